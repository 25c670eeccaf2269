import type { Client } from 'pg';
import type Cursor from 'pg-cursor';
import type { PostgresDsn } from './dsn.ts';
import type { ColumnSpec, SourceRow } from './families/family.ts';
import { type TrustOptions, trustedCas } from './legacy-connection.ts';
import { overLimitColumns } from './limits.ts';
import { PgTimeout, rewritePgError } from './pg-errors.ts';
import { PgWire, SMALL_WIRE_LIMITS } from './pg-wire.ts';
import { type LegacyTable, ORDER_COLUMN, type RowSource, type SourceOrigin } from './source.ts';
import type { ResolvedTarget } from './target.ts';

/*
 * A PostgreSQL database as a row source (docs/channel-import.md, "PostgreSQL"): one connection to the checked
 * address, one read-only REPEATABLE READ transaction (one snapshot for the columns, the count and the rows), a
 * statement timeout tied to the import's deadline, and the rows through a cursor, each bounded value checked
 * with octet_length in SQL so that a value over its limit is never sent.
 */

/** Bounds of one read. */
export interface PgSourceLimits {
  /** Aborted at the import's deadline: the connection is destroyed and pending reads fail with its reason. */
  readonly signal: AbortSignal;
  /** The deadline as epoch milliseconds: the server's statement timeout ends shortly after it. */
  readonly deadlineAt: number;
  /** The import's clock (epoch milliseconds), the one the deadline was computed with. */
  readonly now: () => number;
}

/** Opens a PostgreSQL source; the import receives it as a parameter so tests can substitute it. */
export type OpenPgSource = (dsn: PostgresDsn, target: ResolvedTarget, limits: PgSourceLimits) => Promise<RowSource>;

// The server's own timeouts end a little after the deadline; the client gives up at the deadline itself.
const DEADLINE_GRACE_MS = 1_000;
const METADATA_QUERY_TIMEOUT_MS = 10_000;
const QUIT_WAIT_MS = 1_000;
// An integer column's text is bounded too: a table whose `id` is text could hold anything.
const INTEGER_TEXT_BYTES = 64;
// What one batch of rows may hold, whatever the server sends: the batch size follows from the largest row the
// selected limits allow, so memory stays bounded even when a server ignores the limits in the SQL. Two batches
// are held at once: the one being consumed and the next one arriving.
const BATCH_BYTES = 32 * 1024 * 1024;
const MAX_BATCH_ROWS = 500;
// DataRow framing: type, length and column count, then a length before each value.
const ROW_OVERHEAD_BYTES = 7;
const VALUE_OVERHEAD_BYTES = 4;
// UTF-8 takes at most 4 bytes a character.
const MAX_BYTES_PER_CHAR = 4;

/** Opens PostgreSQL sources whose verifying sslmodes trust `trustedCas(options)`. */
export function pgSourceOpener(options: TrustOptions = {}): OpenPgSource {
  let ca: string[] | undefined;
  return (dsn, target, limits) => {
    // Built on first use, once per execution environment: about 270 certificates.
    ca ??= trustedCas(options);
    return open(dsn, target, limits, ca);
  };
}

/** Opens a PostgreSQL source trusting Node's and Amazon RDS's CAs. */
export const openPgSource: OpenPgSource = pgSourceOpener();

async function open(
  dsn: PostgresDsn,
  target: ResolvedTarget,
  limits: PgSourceLimits,
  ca: readonly string[],
): Promise<RowSource> {
  let source: PgSource | undefined;
  try {
    // Loaded on the first PostgreSQL import only: a MySQL import's cold start does not pay for the driver.
    const [{ default: pg }, { default: CursorClass }] = await Promise.all([import('pg'), import('pg-cursor')]);
    limits.signal.throwIfAborted();
    const wire = new PgWire(target, dsn.port, { mode: dsn.sslmode, ca, host: dsn.host });
    const client = new pg.Client({
      stream: () => wire,
      host: target.address,
      port: dsn.port,
      user: dsn.user,
      database: dsn.database,
      // A function, so node-postgres never falls back to PGPASSWORD or ~/.pgpass.
      password: () => dsn.password,
      // TLS is the wire's (pg-wire.ts): the driver only ever sees plaintext.
      ssl: false,
      sslnegotiation: 'postgres',
      application_name: 'channel-import',
      client_encoding: 'UTF8',
    });
    source = new PgSource(client, wire, CursorClass, dsn, limits);
    await source.connect();
    return source;
  } catch (e) {
    await source?.close();
    throw rewritePgError(e, dsn, limits.signal);
  }
}

class PgSource implements RowSource {
  readonly origin: SourceOrigin;
  private failure: unknown;
  private completed = false;
  private closed = false;
  private schema: string | null = null;
  /** Per table read: lower-case name -> the name as the table spells it. */
  private readonly names = new Map<LegacyTable, ReadonlyMap<string, string>>();
  private readonly onAbort = () => this.fail(this.limits.signal.reason);

  constructor(
    private readonly client: Client,
    private readonly wire: PgWire,
    private readonly CursorClass: typeof Cursor,
    private readonly dsn: PostgresDsn,
    private readonly limits: PgSourceLimits,
  ) {
    this.origin = { engine: 'postgres', host: dsn.host, port: dsn.port, database: dsn.database };
    // Without a listener a lost connection would be an uncaught 'error' event.
    client.on('error', (e) => this.fail(e));
    limits.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Connects within the DSN's connect timeout and pins a read-only snapshot with the server's timeouts. */
  async connect(): Promise<void> {
    this.throwIfFailed();
    const timer = setTimeout(() => this.fail(new PgTimeout('connect')), this.dsn.connectTimeoutMs);
    try {
      await this.client.connect();
    } catch (e) {
      // A timeout or the deadline destroyed the connection: that, not the driver's "terminated", is the reason.
      throw this.failure ?? e;
    } finally {
      clearTimeout(timer);
    }
    const timeoutMs = Math.max(1, this.limits.deadlineAt - this.limits.now() + DEADLINE_GRACE_MS);
    // One snapshot for the columns, the count and the rows, in a transaction that cannot write even by mistake.
    // The values are integers computed here, so the statements carry no input.
    await this.query(
      'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY; ' +
        `SET LOCAL statement_timeout = ${timeoutMs}; ` +
        `SET LOCAL idle_in_transaction_session_timeout = ${timeoutMs}`,
    );
  }

  async columns(table: LegacyTable = 'channels'): Promise<ReadonlySet<string>> {
    let names = this.names.get(table);
    if (names === undefined) {
      try {
        // information_schema lists only the columns this user may read; the search path's first schema is the one
        // GORM created the table in. The table's name is one of LegacyTable's, never the caller's text.
        const result = await this.query<{ schema: string | null; name: string }>(
          'SELECT current_schema() AS schema, column_name::text AS name FROM information_schema.columns ' +
            `WHERE table_schema = current_schema() AND table_name = '${table}' ORDER BY ordinal_position`,
        );
        this.schema = result[0]?.schema ?? this.schema;
        const found = new Map<string, string>();
        for (const { name } of result) if (!found.has(name.toLowerCase())) found.set(name.toLowerCase(), name);
        names = found;
        this.names.set(table, names);
      } catch (e) {
        throw this.rewrite(e);
      }
    }
    return new Set(names.keys());
  }

  async count(table: LegacyTable = 'channels'): Promise<number> {
    try {
      const [row] = await this.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${await this.table(table)}`);
      return Number(row?.n ?? 0);
    } catch (e) {
      throw this.rewrite(e);
    }
  }

  async *rows(
    select: readonly ColumnSpec[],
    limit: number,
    table: LegacyTable = 'channels',
  ): AsyncGenerator<SourceRow> {
    let cursor: Cursor<unknown[]> | undefined;
    try {
      const plan = await this.plan(select, limit, table);
      this.throwIfFailed();
      this.wire.limits = { maxMessageBytes: plan.rowBytes, maxResponseBytes: plan.batch * plan.rowBytes + 64 * 1024 };
      const rows = this.client.query(new this.CursorClass<unknown[]>(plan.sql, undefined, { rowMode: 'array' }));
      cursor = rows;
      // The next batch is asked for as soon as one arrives, so the server works while the consumer maps these.
      const fetch = () => {
        const next = rows.read(plan.batch);
        // Awaited below; until then a failure must not count as unhandled.
        next.catch(() => undefined);
        return next;
      };
      for (let next = fetch(); ; ) {
        const batch = await next;
        this.throwIfFailed();
        if (batch.length === 0) break;
        next = fetch();
        for (const raw of batch) yield plan.toRow(raw);
      }
      this.completed = true;
    } catch (e) {
      this.fail(e);
      throw this.rewrite(this.failure);
    } finally {
      this.wire.limits = SMALL_WIRE_LIMITS;
      if (this.completed) await cursor?.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.limits.signal.removeEventListener('abort', this.onAbort);
    if (this.closed) return;
    this.closed = true;
    if (!this.completed || this.failure !== undefined) {
      this.wire.destroy();
      return;
    }
    // Terminate then FIN: the server ends the session (and its snapshot) without logging a lost client.
    try {
      await Promise.race([this.client.end(), delay(QUIT_WAIT_MS)]);
    } catch {
      // Closing never fails the import.
    } finally {
      this.wire.destroy();
    }
  }

  /** The SELECT for `select`, how many rows to fetch at once, and how a fetched row becomes a SourceRow. */
  private async plan(select: readonly ColumnSpec[], limit: number, name: LegacyTable) {
    const table = await this.table(name);
    // Inner query: each column cast to text once, in id order. OFFSET 0 keeps PostgreSQL from folding it into the
    // outer query, which would cast again for every use. The outer query keeps a value only within its limit and
    // lists the columns over it in one text column (`flags`); octet_length reads a stored value's size from its
    // header, so a value over its limit is neither read in full nor sent.
    const inner: string[] = [];
    const outer: string[] = [];
    const over: string[] = [];
    const bounded = new Set<number>();
    let rowBytes = ROW_OVERHEAD_BYTES + VALUE_OVERHEAD_BYTES;
    select.forEach((spec, i) => {
      const column = this.quoted(name, spec.name);
      const value = `v${i}`;
      const bound = spec.kind === 'integer' ? INTEGER_TEXT_BYTES : spec.maxBytes;
      if (spec.kind !== 'integer' && spec.prefixChars !== undefined) {
        const chars = spec.prefixChars + 1;
        inner.push(`left(${column}::text, ${chars}) AS ${value}`);
        outer.push(value);
        rowBytes += VALUE_OVERHEAD_BYTES + chars * MAX_BYTES_PER_CHAR;
      } else if (bound !== null) {
        inner.push(`${column}::text AS ${value}`);
        outer.push(`CASE WHEN octet_length(${value}) <= ${bound} THEN ${value} END`);
        over.push(`CASE WHEN octet_length(${value}) > ${bound} THEN '${i}' END`);
        bounded.add(i);
        rowBytes += VALUE_OVERHEAD_BYTES + bound + String(i).length + 1;
      } else {
        // No limit asked for: the wire's message limit still bounds it.
        inner.push(`${column}::text AS ${value}`);
        outer.push(value);
        rowBytes += VALUE_OVERHEAD_BYTES + SMALL_WIRE_LIMITS.maxMessageBytes;
      }
    });
    const flags = over.length > 0 ? `concat_ws(',', ${over.join(', ')})` : "''";
    const rows = Math.max(0, Math.floor(limit));
    const sql =
      `SELECT ${[...outer, flags].join(', ')} FROM (SELECT ${inner.join(', ')} FROM ${table} ` +
      `ORDER BY ${this.quoted(name, ORDER_COLUMN[name])} LIMIT ${rows} OFFSET 0) AS r`;
    const batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(BATCH_BYTES / rowBytes)));
    const names = select.map((spec) => spec.name);
    const toRow = (raw: unknown[]): SourceRow => {
      const values: Record<string, string | null> = {};
      for (let i = 0; i < names.length; i++) values[names[i] as string] = asText(raw[i]);
      const listed = raw[names.length];
      return { values, oversize: overLimitColumns(typeof listed === 'string' ? listed : null, select, bounded) };
    };
    return { sql, batch, rowBytes, toRow };
  }

  private async table(name: LegacyTable): Promise<string> {
    if (!this.names.has(name)) await this.columns(name);
    const names = this.names.get(name);
    if (this.schema === null || names === undefined || names.size === 0) {
      throw new Error(`the ${name} table has no readable columns`);
    }
    return `${this.escape(this.schema)}.${this.escape(name)}`;
  }

  private quoted(table: LegacyTable, name: string): string {
    const actual = this.names.get(table)?.get(name);
    if (actual === undefined) throw new Error(`a selected column is not in the ${table} table`);
    return this.escape(actual);
  }

  private escape(identifier: string): string {
    return this.client.escapeIdentifier(identifier);
  }

  /** Runs one metadata query with a timeout; the deadline and a lost connection end it too. */
  private async query<T>(text: string): Promise<T[]> {
    this.throwIfFailed();
    const untilDeadline = this.limits.deadlineAt - this.limits.now() + DEADLINE_GRACE_MS;
    // The driver's own query_timeout leaves the query running on a connection in an unknown state: destroy it.
    const timer = setTimeout(
      () => this.fail(new PgTimeout('query')),
      Math.max(1, Math.min(METADATA_QUERY_TIMEOUT_MS, untilDeadline)),
    );
    try {
      const result: unknown = await this.client.query(text);
      this.throwIfFailed();
      // A multi-statement text answers with one result per statement.
      const last = (Array.isArray(result) ? result.at(-1) : result) as { rows?: T[] } | undefined;
      return last?.rows ?? [];
    } catch (e) {
      throw this.failure ?? e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Records the first failure and tears the connection down: the server would keep the query running otherwise. */
  private fail(e: unknown): void {
    if (this.failure === undefined) this.failure = e;
    this.wire.destroy();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private rewrite(e: unknown): unknown {
    return rewritePgError(this.failure ?? e, this.dsn, this.limits.signal);
  }
}

function asText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
