import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { ProxyApiError } from '#shared/errors';
import { rewriteDriverError } from './driver-errors.ts';
import type { ParsedDsn } from './dsn.ts';
import { checkColumns, type SourceColumn, toLegacyRow } from './legacy-columns.ts';
import { connect, type Link, type TrustOptions, trustedCas } from './legacy-connection.ts';
import type { LegacyRow } from './mapping.ts';
import type { SourceKind } from './providers.ts';
import type { ResolvedTarget } from './target.ts';

/** Bounds of one read. */
export interface SourceLimits {
  /** Refuse a table with more rows than this (LEGACYGW_MAX_ROWS). */
  maxRows: number;
  /** Aborted at the import's deadline: the connection is destroyed and pending reads fail with its reason. */
  signal: AbortSignal;
  /** The deadline as epoch milliseconds; no query's own timeout outlives it by much. */
  deadlineAt: number;
  /** The import's clock (epoch milliseconds), the one the deadline was computed with. */
  now: () => number;
}

/** An open, checked legacy `channels` table. */
export interface LegacySource {
  /** Whose table it is, found from its columns: the legacy gateway's or New API's. */
  readonly kind: SourceKind;
  /** Streams the rows in id order; the driver stops reading the socket while the consumer is busy. */
  rows(): AsyncIterable<LegacyRow>;
  /** Ends the connection: politely after a complete read, by destroying it otherwise. Never throws. */
  close(): Promise<void>;
}

/** Opens a legacy source; the import receives it as a parameter so tests can substitute it. */
export type OpenSource = (dsn: ParsedDsn, target: ResolvedTarget, limits: SourceLimits) => Promise<LegacySource>;

// Metadata queries are tiny; one that takes longer than this means the server is stuck.
const METADATA_QUERY_TIMEOUT_MS = 10_000;
// A query's own timer is the driver-level backstop; the deadline's abort signal fires first.
const DEADLINE_GRACE_MS = 1_000;
const QUIT_WAIT_MS = 1_000;
// Rows buffered between the driver and the consumer before the driver pauses the socket.
const ROW_BUFFER = 64;

/** Opens legacy sources whose `tls=true` connections trust `trustedCas(options)`. */
export function legacySourceOpener(options: TrustOptions = {}): OpenSource {
  // Built once per execution environment: about 270 certificates.
  const ca = trustedCas(options);
  return (dsn, target, limits) => open(dsn, target, limits, ca);
}

/** Opens a legacy source trusting Node's and Amazon RDS's CAs. */
export const openLegacySource: OpenSource = legacySourceOpener();

/**
 * Connects to the legacy database (at the checked address), checks the `channels` table and its
 * row count, and returns a source that streams it. All driver errors are rewritten (see
 * `rewriteDriverError`); the deadline surfaces as `limits.signal.reason`.
 */
async function open(dsn: ParsedDsn, target: ResolvedTarget, limits: SourceLimits, ca: string[]): Promise<LegacySource> {
  // Until the import core picks a source by engine, a PostgreSQL DSN stops here.
  if (dsn.engine !== 'mysql') throw new ProxyApiError(400, 'PostgreSQL sources are not supported yet');
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

class MySqlLegacySource implements LegacySource {
  kind: SourceKind = 'legacygw';
  private columns: SourceColumn[] = [];
  private failure: unknown;
  private readonly pending = new Set<(e: unknown) => void>();
  private activeRows: Readable | undefined;
  private completed = false;
  private closed = false;
  private readonly onAbort = () => this.fail(this.limits.signal.reason);

  constructor(
    private readonly link: Link,
    private readonly dsn: ParsedDsn,
    private readonly limits: SourceLimits,
  ) {
    // Without a listener, a lost connection would be an uncaught 'error' event; and a streaming
    // query is not told about it by the driver, so the row stream is failed from here.
    link.connection.on('error', (e) => this.fail(e));
    limits.signal.addEventListener('abort', this.onAbort, { once: true });
    if (limits.signal.aborted) this.fail(limits.signal.reason);
  }

  /** Pins a read-only snapshot, discovers the columns and refuses tables the import must not read. */
  async prepare(): Promise<void> {
    // One snapshot for the count and the rows, and a session that cannot write even by mistake.
    await this.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    const found = await this.query<{ name: string }>(
      'SELECT LOWER(COLUMN_NAME) AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [this.dsn.database, 'channels'],
    );
    ({ kind: this.kind, columns: this.columns } = checkColumns(
      new Set(found.map((c) => String(c.name))),
      this.dsn.database,
    ));
    const [count] = await this.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM `channels`');
    const rows = Number(count?.n ?? 0);
    if (rows > this.limits.maxRows) throw tooManyRows(this.limits.maxRows, rows);
  }

  async *rows(): AsyncGenerator<LegacyRow> {
    const select = this.columns.map((c) => `\`${c}\``).join(', ');
    // LIMIT keeps the read bounded even if rows appear after the count (e.g. a snapshot-less engine).
    const sql = `SELECT ${select} FROM \`channels\` ORDER BY \`id\` LIMIT ${this.limits.maxRows + 1}`;
    this.throwIfFailed();
    const query = this.link.connection.query({ sql, timeout: this.timeoutMs(Number.POSITIVE_INFINITY) });
    // The row stream drops its listeners when destroyed, but the query's own timer can still fire
    // later: without this listener that late 'error' would be an uncaught exception.
    query.on('error', (e) => this.fail(e));
    const stream = query.stream({ highWaterMark: ROW_BUFFER });
    this.activeRows = stream;
    let count = 0;
    try {
      for await (const raw of stream) {
        count += 1;
        if (count > this.limits.maxRows) throw tooManyRows(this.limits.maxRows);
        yield toLegacyRow(raw as Record<string, unknown>, this.columns);
      }
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

function tooManyRows(maxRows: number, rows?: number): ProxyApiError {
  const found = rows === undefined ? 'more than' : `${rows} rows;`;
  return new ProxyApiError(
    400,
    `The channels table has too many rows (${found} at most ${maxRows} can be imported, see LEGACYGW_MAX_ROWS)`,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
