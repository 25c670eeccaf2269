import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { rewriteDriverError } from './driver-errors.ts';
import type { MySqlDsn, ParsedDsn } from './dsn.ts';
import type { ColumnSpec, SourceRow } from './families/family.ts';
import {
  connect,
  type Link,
  OversizePacketError,
  SMALL_PACKET_BYTES,
  type TrustOptions,
  trustedCas,
} from './legacy-connection.ts';
import { hasByteLimit, overLimitColumns } from './limits.ts';
import { type LegacyTable, ORDER_COLUMN, type RowSource } from './source.ts';
import type { ResolvedTarget } from './target.ts';

/** Bounds of one read. */
export interface SourceLimits {
  /** Aborted at the import's deadline: the connection is destroyed and pending reads fail with its reason. */
  signal: AbortSignal;
  /** The deadline as epoch milliseconds; no query's own timeout outlives it by much. */
  deadlineAt: number;
  /** The import's clock (epoch milliseconds), the one the deadline was computed with. */
  now: () => number;
}

/** Opens a database source; the import receives it as a parameter so tests can substitute it. */
export type OpenSource = (dsn: ParsedDsn, target: ResolvedTarget, limits: SourceLimits) => Promise<RowSource>;

// Metadata queries are tiny; one that takes longer than this means the server is stuck.
const METADATA_QUERY_TIMEOUT_MS = 10_000;
// And so are their answers, which the driver buffers whole: a column name is at most 64 characters, a table has at
// most 4,096 columns, a count is one row. A hostile server's flood of rows is refused from the packet headers once
// past these bounds (review 5: 0.6-1.6 GB before the timeout), like an oversized row of the SELECT.
const METADATA_PACKET_BYTES = 64 * 1024;
const METADATA_RESPONSE_BYTES = 1024 * 1024;
const MAX_COLUMNS = 4_096;
// A query's own timer is the driver-level backstop; the deadline's abort signal fires first.
const DEADLINE_GRACE_MS = 1_000;
const QUIT_WAIT_MS = 1_000;
// Rows buffered between the driver and the consumer before the driver pauses the socket: at most 64, and no more
// than ROW_BUFFER_BYTES' worth of rows at their largest allowed size.
const ROW_BUFFER = 64;
const ROW_BUFFER_BYTES = 48 * 1024 * 1024;
// A value's text can grow on its way out: OCTET_LENGTH counts the column's own character set, the connection speaks
// utf8mb4 (a latin1 byte becomes at most 3 bytes).
const CHARSET_GROWTH = 3;
// Integers as text; the length prefix of each value.
const SMALL_VALUE_BYTES = 64;
const VALUE_OVERHEAD_BYTES = 9;

/**
 * Opens MySQL sources whose `tls=true` connections trust `trustedCas(options)` (functions/import-legacygw/sources.ts
 * picks the source by the DSN's engine).
 */
export function legacySourceOpener(options: TrustOptions = {}): OpenSource {
  // Built once per execution environment: about 270 certificates.
  const ca = trustedCas(options);
  return (dsn, target, limits) => {
    if (dsn.engine !== 'mysql') throw new Error('A MySQL source was asked to open another engine');
    return open(dsn, target, limits, ca);
  };
}

/** Opens a legacy source trusting Node's and Amazon RDS's CAs. */
export const openLegacySource: OpenSource = legacySourceOpener();

/**
 * Connects to the MySQL database (at the checked address) in a read-only consistent snapshot and returns a source
 * over its `channels` table. All driver errors are rewritten (see `rewriteDriverError`); the deadline surfaces as
 * `limits.signal.reason`.
 */
async function open(dsn: MySqlDsn, target: ResolvedTarget, limits: SourceLimits, ca: string[]): Promise<RowSource> {
  let source: MySqlLegacySource | undefined;
  try {
    source = new MySqlLegacySource(await connect(dsn, target, limits.signal, ca), dsn, limits);
    await source.prepare();
    return source;
  } catch (e) {
    await source?.close();
    throw rewriteDriverError(e, dsn, limits.signal);
  }
}

class MySqlLegacySource implements RowSource {
  readonly origin;
  private failure: unknown;
  private readonly pending = new Set<(e: unknown) => void>();
  private activeRows: Readable | undefined;
  private completed = false;
  private closed = false;
  private readonly onAbort = () => this.fail(this.limits.signal.reason);

  constructor(
    private readonly link: Link,
    private readonly dsn: MySqlDsn,
    private readonly limits: SourceLimits,
  ) {
    this.origin = { engine: 'mysql', host: dsn.host, port: dsn.port, database: dsn.database } as const;
    // Without a listener, a lost connection would be an uncaught 'error' event; and a streaming
    // query is not told about it by the driver, so the row stream is failed from here.
    link.connection.on('error', (e) => this.fail(e));
    limits.signal.addEventListener('abort', this.onAbort, { once: true });
    if (limits.signal.aborted) this.fail(limits.signal.reason);
  }

  /** Pins a read-only snapshot: the count and the rows come from it, and the session cannot write even by mistake. */
  async prepare(): Promise<void> {
    await this.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  }

  async columns(table: LegacyTable = 'channels'): Promise<ReadonlySet<string>> {
    try {
      const found = await this.query<{ name: string }>(
        'SELECT LOWER(COLUMN_NAME) AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [this.dsn.database, table],
      );
      if (found.length > MAX_COLUMNS) throw new OversizePacketError(found.length);
      return new Set(found.map((c) => String(c.name)));
    } catch (e) {
      throw rewriteDriverError(e, this.dsn, this.limits.signal);
    }
  }

  async count(table: LegacyTable = 'channels'): Promise<number> {
    try {
      const found = await this.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`);
      if (found.length > 1) throw new OversizePacketError(found.length);
      return Number(found[0]?.n ?? 0);
    } catch (e) {
      throw rewriteDriverError(e, this.dsn, this.limits.signal);
    }
  }

  async *rows(
    select: readonly ColumnSpec[],
    limit: number,
    table: LegacyTable = 'channels',
  ): AsyncGenerator<SourceRow> {
    // LIMIT keeps the read bounded even if rows appear after the count (e.g. a snapshot-less engine). The ORDER BY
    // names the table's column: the bare name would be the text alias, which sorts "12" before "2".
    const order = `${quote(table)}.${quote(ORDER_COLUMN[table])}`;
    const sql = `SELECT ${selectList(select)} FROM ${quote(table)} ORDER BY ${order} LIMIT ${limit + 1}`;
    this.throwIfFailed();
    const rowBytes = rowPacketBytes(select);
    // A row is one packet (chain): anything longer than the largest row the SELECT can return is refused from its
    // header, before the driver buffers it.
    this.link.guard.maxPacketBytes = Math.max(SMALL_PACKET_BYTES, rowBytes);
    this.link.guard.limitTotal(Number.POSITIVE_INFINITY);
    const query = this.link.connection.query({ sql, timeout: this.timeoutMs(Number.POSITIVE_INFINITY) });
    // The row stream drops its listeners when destroyed, but the query's own timer can still fire
    // later: without this listener that late 'error' would be an uncaught exception.
    query.on('error', (e) => this.fail(e));
    const highWaterMark = Math.max(1, Math.min(ROW_BUFFER, Math.floor(ROW_BUFFER_BYTES / rowBytes)));
    const stream = query.stream({ highWaterMark });
    this.activeRows = stream;
    try {
      for await (const raw of stream) yield toSourceRow(raw as Record<string, unknown>, select);
      this.throwIfFailed();
      this.completed = true;
    } catch (e) {
      this.fail(e);
      throw rewriteDriverError(this.failure, this.dsn, this.limits.signal);
    } finally {
      this.activeRows = undefined;
    }
  }

  async close(): Promise<void> {
    this.limits.signal.removeEventListener('abort', this.onAbort);
    if (this.closed) return;
    this.closed = true;
    if (!this.completed || this.failure !== undefined) {
      this.link.destroy();
      return;
    }
    // COM_QUIT then FIN: the server ends the session (and its snapshot) without logging an aborted client.
    const socketClosed = once(this.link.socket, 'close').catch(() => undefined);
    try {
      this.link.connection.end();
      this.link.connection.destroy();
      await Promise.race([socketClosed, delay(QUIT_WAIT_MS)]);
    } finally {
      this.link.destroy();
    }
  }

  /** Runs one query with a timeout; the promise also settles when the connection fails or the deadline passes. */
  private query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    this.throwIfFailed();
    // The answer is buffered whole by the driver: bounded per packet and in all.
    this.link.guard.maxPacketBytes = METADATA_PACKET_BYTES;
    this.link.guard.limitTotal(METADATA_RESPONSE_BYTES);
    return new Promise<T[]>((resolve, reject) => {
      const settle = (e: unknown) => {
        this.pending.delete(settle);
        reject(e);
      };
      this.pending.add(settle);
      this.link.connection.query(
        { sql, values, timeout: this.timeoutMs(METADATA_QUERY_TIMEOUT_MS) },
        (err: unknown, rows: unknown) => {
          if (!this.pending.delete(settle)) return;
          if (err) {
            this.fail(err);
            reject(this.failure);
          } else resolve(rows as T[]);
        },
      );
    });
  }

  private timeoutMs(cap: number): number {
    const untilDeadline = this.limits.deadlineAt - this.limits.now() + DEADLINE_GRACE_MS;
    return Math.max(1, Math.min(cap, untilDeadline));
  }

  /** Records the first failure and tears the connection down: a timed-out query keeps running otherwise. */
  private fail(e: unknown): void {
    if (this.failure === undefined) this.failure = e;
    this.link.destroy();
    this.activeRows?.destroy(e instanceof Error ? e : new Error('Legacy source failed'));
    for (const settle of [...this.pending]) settle(this.failure);
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;
// The one column listing the columns over their limit; no selected column is named like it (they are the families').
const OVER_ALIAS = '__over';

/**
 * The SELECT list (docs/channel-import.md, "Limits"): each column's expression, then one column naming by position
 * the columns whose value was over its limit (as the PostgreSQL source does): one short text instead of a flag per
 * column for the driver to parse.
 */
function selectList(select: readonly ColumnSpec[]): string {
  const flags = select.flatMap((column, at) =>
    hasByteLimit(column) ? [`IF(OCTET_LENGTH(${quote(column.name)}) > ${column.maxBytes}, '${at}', NULL)`] : [],
  );
  const over = flags.length > 0 ? `CONCAT_WS(',', ${flags.join(', ')})` : "''";
  return [...select.map(selectExpression), `${over} AS ${quote(OVER_ALIAS)}`].join(', ');
}

/**
 * The SELECT expression of one column: integers as text, so an id above 2^53 survives; a bounded value only when its
 * octet length is within the limit, so a value over the limit never crosses the network; a name cut to one character
 * more than is kept.
 */
function selectExpression(column: ColumnSpec): string {
  const c = quote(column.name);
  if (column.kind === 'integer') return `CAST(${c} AS CHAR) AS ${c}`;
  if (column.prefixChars !== undefined) return `LEFT(${c}, ${column.prefixChars + 1}) AS ${c}`;
  const value = column.kind === 'json' ? `CAST(${c} AS CHAR)` : c;
  if (column.maxBytes === null) return `${value} AS ${c}`;
  return `CASE WHEN OCTET_LENGTH(${c}) <= ${column.maxBytes} THEN ${value} END AS ${c}`;
}

/** The longest row packet `select`'s SELECT can produce from an honest server. */
function rowPacketBytes(select: readonly ColumnSpec[]): number {
  // The over column: each position in decimal and a comma.
  let bytes = 2 * VALUE_OVERHEAD_BYTES + select.length * 5;
  for (const column of select) {
    if (column.kind === 'integer') bytes += VALUE_OVERHEAD_BYTES + SMALL_VALUE_BYTES;
    else if (column.prefixChars !== undefined) bytes += VALUE_OVERHEAD_BYTES + (column.prefixChars + 1) * 4;
    else if (column.maxBytes === null) bytes += VALUE_OVERHEAD_BYTES + SMALL_PACKET_BYTES;
    else bytes += VALUE_OVERHEAD_BYTES + column.maxBytes * CHARSET_GROWTH;
  }
  return bytes;
}

function toSourceRow(raw: Record<string, unknown>, select: readonly ColumnSpec[]): SourceRow {
  const values: Record<string, string | null> = {};
  for (let i = 0; i < select.length; i++) {
    const name = (select[i] as ColumnSpec).name;
    values[name] = toText(raw[name]);
  }
  return { values, oversize: overLimitColumns(toText(raw[OVER_ALIAS]), select, boundedPositions(select)) };
}

// The positions `selectList` bounds, worked out once per SELECT.
const boundedOf = new WeakMap<readonly ColumnSpec[], ReadonlySet<number>>();
function boundedPositions(select: readonly ColumnSpec[]): ReadonlySet<number> {
  let bounded = boundedOf.get(select);
  if (bounded === undefined) {
    bounded = new Set(select.flatMap((column, at) => (hasByteLimit(column) ? [at] : [])));
    boundedOf.set(select, bounded);
  }
  return bounded;
}

// Binary collations and BLOB columns come back as Buffers; a MySQL JSON value parsed by the driver is re-serialised.
function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
