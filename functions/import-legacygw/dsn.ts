import { isIPv4, isIPv6 } from 'node:net';
import { ProxyApiError } from '#shared/errors';
import { isHostName } from '#shared/host-name';

/** MySQL's `tls` parameter (the Go driver's values). */
export type TlsMode = 'true' | 'skip-verify' | 'preferred' | 'false';
/** PostgreSQL's `sslmode` parameter (libpq's values, less `allow`). */
export type SslMode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

interface DsnBase {
  user: string;
  password: string;
  /** Host name or IP address; IPv6 without brackets. */
  host: string;
  port: number;
  database: string;
  /**
   * From `?timeout=` (MySQL, a Go duration) or `?connect_timeout=` (PostgreSQL, seconds), capped at
   * MAX_CONNECT_TIMEOUT_MS; that cap is also the default.
   */
  connectTimeoutMs: number;
}

/** A MySQL DSN taken apart into explicit connection options (docs/channel-import.md). */
export interface MySqlDsn extends DsnBase {
  readonly engine: 'mysql';
  /** From `?tls=`; default 'false'. */
  tls: TlsMode;
}

/** A PostgreSQL DSN taken apart into explicit connection options (docs/channel-import.md, "PostgreSQL"). */
export interface PostgresDsn extends DsnBase {
  readonly engine: 'postgres';
  /** From `?sslmode=`; default 'prefer', as libpq and pgx (the Go driver the gateways use). */
  sslmode: SslMode;
}

/** A legacy gateway DSN: which engine, and how to reach it. */
export type ParsedDsn = MySqlDsn | PostgresDsn;

/** Longer input is refused before any parsing. */
export const MAX_DSN_LENGTH = 4096;
/** Upper bound (and default) of the connect timeout, whatever the DSN asks for. */
export const MAX_CONNECT_TIMEOUT_MS = 10_000;
const MYSQL_PORT = 3306;
const POSTGRES_PORT = 5432;
// MySQL's limit for a database name, in characters.
const MAX_MYSQL_DATABASE_CHARS = 64;
// PostgreSQL's (NAMEDATALEN - 1), in bytes: the server silently cuts a longer name, which could name another database.
const MAX_POSTGRES_DATABASE_BYTES = 63;

const GO_FORM = 'user[:password]@tcp(host[:port])/database';
const URL_FORM = 'mysql://user:password@host[:port]/database';
const POSTGRES_FORM = 'postgres://user:password@host[:port]/database';
const MALFORMED = `DSN is malformed: expected ${GO_FORM}, ${URL_FORM} or ${POSTGRES_FORM}`;

const TLS_MODES: readonly TlsMode[] = ['true', 'skip-verify', 'preferred', 'false'];
const SSL_MODES: readonly SslMode[] = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'];
const IGNORED_PARAMS = ['charset', 'collation', 'parseTime', 'loc'];
const ALLOWED_PARAMS = new Set(['timeout', 'tls', ...IGNORED_PARAMS]);
const ALLOWED_PARAMS_TEXT = [...ALLOWED_PARAMS].join(', ');
const POSTGRES_PARAMS = new Set(['sslmode', 'connect_timeout']);
const POSTGRES_PARAMS_TEXT = [...POSTGRES_PARAMS].join(', ');
const POSTGRES_SCHEMES = new Set(['postgres', 'postgresql']);
// libpq's other spelling of a DSN ("host=db user=app ..."); GORM's documentation shows it for PostgreSQL.
const KEYWORD_VALUE_FORM = /^[a-z_]+=\S*(?:\s+[a-z_]+=\S*)*\s*$/i;

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const OTHER_NETWORK = /@[A-Za-z][A-Za-z0-9]*\(/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what it must find
const CONTROL = /[\u0000-\u001f\u007f]/;
const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const DURATION_UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

// Every message below is fixed text or names a parameter; none quotes the input, so none can carry the password.
function dsnError(message: string): ProxyApiError {
  return new ProxyApiError(400, message);
}

/**
 * Parses `[mysql://]user[:password]@tcp(host[:port])/database[?params]` (split at the last `@tcp(`; the
 * password is literal and may contain `@ : / ( )`), `mysql://user:password@host[:port]/database[?params]`
 * and `postgres://` or `postgresql://user:password@host[:port]/database[?params]` (percent-decoded user and
 * password). A scheme-less DSN whose user is followed by `://` reads as a scheme: prefix it with `mysql://`.
 * Throws ProxyApiError(400) whose message never contains the password.
 */
export function parseDsn(input: string): ParsedDsn {
  if (typeof input !== 'string') throw dsnError('DSN must be a string');
  if (input.length > MAX_DSN_LENGTH) throw dsnError(`DSN is longer than ${MAX_DSN_LENGTH} characters`);
  const dsn = input.trim();
  if (dsn === '') throw dsnError('DSN is empty');

  if (looksLikeSqliteFile(dsn)) throw dsnError(SQLITE_FILE);
  const scheme = SCHEME.exec(dsn);
  const schemeName = scheme?.[1]?.toLowerCase();
  if (schemeName !== undefined && POSTGRES_SCHEMES.has(schemeName)) {
    return parsePostgresUrl(dsn.slice(scheme?.[0].length ?? 0));
  }
  if (scheme && schemeName !== 'mysql') {
    throw dsnError('DSN scheme must be mysql://, postgres:// or postgresql:// (or none, for MySQL)');
  }
  const rest = scheme ? dsn.slice(scheme[0].length) : dsn;

  if (rest.includes('@tcp(')) return parseGoForm(rest);
  if (scheme) return parseUrlForm(rest);
  if (OTHER_NETWORK.test(rest)) throw networkError();
  // Named only as a form: whatever the text holds (a password too) is not repeated.
  if (KEYWORD_VALUE_FORM.test(rest)) {
    throw dsnError(`DSN in the keyword=value form is not supported: write ${POSTGRES_FORM}[?sslmode=...]`);
  }
  throw dsnError(MALFORMED);
}

// SQLite is One API's and New API's default database (no SQL_DSN): its file's path is what an operator has at hand.
const SQLITE_FILE =
  'DSN is a SQLite file\'s path, not a database server: import the file itself instead, in the console ("Or import ' +
  'from the gateway\'s SQLite file") or from a terminal: npm run --silent import:sqlite -- <file.db> --url <proxy_url>';
const SQLITE_SCHEME = /^(?:sqlite3?|file):/i;
const SQLITE_PATH = /\.(?:db|sqlite3?|db3)$/i;

/**
 * A SQLite file's path or URL (`sqlite:///data/one-api.db`, `file:one-api.db`, `/data/one-api.db`,
 * `C:\\gw\\one-api.db`): a scheme of SQLite's, or a name ending in a SQLite extension with no user part (`@`).
 */
function looksLikeSqliteFile(dsn: string): boolean {
  return SQLITE_SCHEME.test(dsn) || (SQLITE_PATH.test(dsn) && !dsn.includes('@'));
}

/** The DSN for display: host, port, database only. */
export function describeDsn(dsn: ParsedDsn): { host: string; port: number; database: string } {
  return { host: dsn.host, port: dsn.port, database: dsn.database };
}

function networkError(): ProxyApiError {
  return dsnError(`DSN network must be tcp (unix sockets and other networks are not supported): expected ${GO_FORM}`);
}

function parseGoForm(rest: string): MySqlDsn {
  const at = rest.lastIndexOf('@tcp(');
  const { user, password } = splitUserInfo(rest.slice(0, at));
  const afterNetwork = rest.slice(at + '@tcp('.length);
  const close = afterNetwork.indexOf(')');
  if (close < 0) throw dsnError(`DSN is malformed: expected ${GO_FORM}`);
  const { host, port } = parseAddress(afterNetwork.slice(0, close));
  const tail = afterNetwork.slice(close + 1);
  if (!tail.startsWith('/')) throw dsnError(`DSN has no database name: expected ${GO_FORM}`);
  // With no '@' after the split, the parameters cannot be a misplaced piece of the password, so naming one is safe.
  return assemble(user, password, host, port, tail.slice(1), !afterNetwork.includes('@'));
}

function parseUrlForm(rest: string): MySqlDsn {
  const url = splitUrl(rest, URL_FORM, MYSQL_PORT);
  return assemble(url.user, url.password, url.host, url.port, url.pathAndQuery, url.mayNameParams);
}

function parsePostgresUrl(rest: string): PostgresDsn {
  const url = splitUrl(rest, POSTGRES_FORM, POSTGRES_PORT);
  const question = url.pathAndQuery.indexOf('?');
  const rawDatabase = question < 0 ? url.pathAndQuery : url.pathAndQuery.slice(0, question);
  const database = parseDatabase(rawDatabase);
  if (Buffer.byteLength(database) > MAX_POSTGRES_DATABASE_BYTES) {
    throw dsnError(`DSN database name is longer than ${MAX_POSTGRES_DATABASE_BYTES} bytes`);
  }
  const mayName = paramNamer(url.mayNameParams, url.password);
  const params = parsePostgresParams(question < 0 ? '' : url.pathAndQuery.slice(question + 1), mayName);
  return {
    engine: 'postgres',
    user: url.user,
    password: url.password,
    host: url.host,
    port: url.port,
    database,
    ...params,
  };
}

/** `user:password@host:port/path?query` of a URL, the user info percent-decoded. */
function splitUrl(
  rest: string,
  form: string,
  defaultPort: number,
): { user: string; password: string; host: string; port: number; pathAndQuery: string; mayNameParams: boolean } {
  // As in a WHATWG URL, the authority ends at the first '/', '?' or '#', and the userinfo at its last '@'.
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const tail = end < 0 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  if (at < 0) throw dsnError(`DSN has no user name: expected ${form}`);
  const hostPort = authority.slice(at + 1);
  if (hostPort.includes('(')) throw networkError();
  const raw = splitUserInfo(authority.slice(0, at));
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(raw.user);
    password = decodeURIComponent(raw.password);
  } catch {
    throw dsnError('DSN user name or password has invalid percent-encoding');
  }
  checkUser(user);
  const { host, port } = parseAddress(hostPort, defaultPort);
  if (tail.includes('#')) throw dsnError(`DSN is malformed (a '#' must be percent-encoded): expected ${form}`);
  if (!tail.startsWith('/')) throw dsnError(`DSN has no database name: expected ${form}`);
  return { user, password, host, port, pathAndQuery: tail.slice(1), mayNameParams: !tail.includes('@') };
}

function splitUserInfo(userInfo: string): { user: string; password: string } {
  const colon = userInfo.indexOf(':');
  const user = colon < 0 ? userInfo : userInfo.slice(0, colon);
  checkUser(user);
  return { user, password: colon < 0 ? '' : userInfo.slice(colon + 1) };
}

function checkUser(user: string): void {
  if (user === '') throw dsnError('DSN has no user name');
  if (CONTROL.test(user)) throw dsnError('DSN user name contains control characters');
}

function parseAddress(address: string, defaultPort = MYSQL_PORT): { host: string; port: number } {
  let host: string;
  let portText: string | undefined;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0) throw dsnError('DSN host has an unclosed [');
    host = address.slice(1, close);
    const after = address.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) throw dsnError('DSN host is malformed: expected [ipv6] or [ipv6]:port');
      portText = after.slice(1);
    }
    if (host !== '' && !isPlainIPv6(host)) throw dsnError('DSN host in brackets must be an IPv6 address');
  } else if (address.indexOf(':') !== address.lastIndexOf(':')) {
    // The Go driver reads "::1:3306" as a host without a port, where a person may see port 3306: require brackets.
    throw dsnError('DSN host is malformed: write an IPv6 address in brackets, e.g. [::1]:3306');
  } else {
    const colon = address.indexOf(':');
    host = colon < 0 ? address : address.slice(0, colon);
    portText = colon < 0 ? undefined : address.slice(colon + 1);
    if (host !== '' && !isIPv4(host) && !isHostName(host)) {
      throw dsnError('DSN host is not a valid host name or IP address');
    }
  }
  if (host === '') throw dsnError('DSN has no host');
  return { host, port: portText === undefined ? defaultPort : parsePort(portText) };
}

// Zone ids (fe80::1%eth0) would let a name choose the interface; no legacy database needs one.
function isPlainIPv6(host: string): boolean {
  return isIPv6(host) && !host.includes('%');
}

function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) throw dsnError('DSN port must be a number from 1 to 65535');
  return port;
}

function assemble(
  user: string,
  password: string,
  host: string,
  port: number,
  pathAndQuery: string,
  mayNameParams: boolean,
): MySqlDsn {
  const question = pathAndQuery.indexOf('?');
  const rawDatabase = question < 0 ? pathAndQuery : pathAndQuery.slice(0, question);
  const database = parseDatabase(rawDatabase);
  if ([...database].length > MAX_MYSQL_DATABASE_CHARS) {
    throw dsnError(`DSN database name is longer than ${MAX_MYSQL_DATABASE_CHARS} characters`);
  }
  const params = parseParams(question < 0 ? '' : pathAndQuery.slice(question + 1), paramNamer(mayNameParams, password));
  return { engine: 'mysql', user, password, host, port, database, ...params };
}

// A name is quoted only where it cannot be a piece of the password, not even by coincidence.
function paramNamer(mayNameParams: boolean, password: string): (name: string) => boolean {
  return (name) => mayNameParams && PARAM_NAME.test(name) && (password === '' || !name.includes(password));
}

function parseDatabase(raw: string): string {
  if (raw.includes('/')) throw dsnError("DSN database name must not contain '/' (percent-encode it as %2F)");
  let database: string;
  try {
    database = decodeURIComponent(raw);
  } catch {
    throw dsnError('DSN database name has invalid percent-encoding');
  }
  if (database === '') throw dsnError('DSN has no database name');
  if (CONTROL.test(database)) throw dsnError('DSN database name contains control characters');
  return database;
}

function parseParams(raw: string, mayName: (name: string) => boolean): Pick<MySqlDsn, 'connectTimeoutMs' | 'tls'> {
  const result: Pick<MySqlDsn, 'connectTimeoutMs' | 'tls'> = {
    connectTimeoutMs: MAX_CONNECT_TIMEOUT_MS,
    tls: 'false',
  };
  const seen = new Set<string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!ALLOWED_PARAMS.has(name)) {
      throw dsnError(
        `DSN parameter${mayName(name) ? ` ${name}` : ''} is not supported (allowed: ${ALLOWED_PARAMS_TEXT})`,
      );
    }
    // From here on `name` is one of the allowed names, so quoting it is safe.
    if (seen.has(name)) throw dsnError(`DSN parameter ${name} is given more than once`);
    seen.add(name);
    if (name !== 'timeout' && name !== 'tls') continue;
    let value: string;
    try {
      value = decodeURIComponent(eq < 0 ? '' : pair.slice(eq + 1));
    } catch {
      throw dsnError(`DSN parameter ${name} has invalid percent-encoding`);
    }
    if (name === 'timeout') result.connectTimeoutMs = parseTimeout(value);
    else result.tls = parseTls(value);
  }
  return result;
}

// A Go duration ("5s", "500ms", "1m30s"). Zero means "no timeout" to the Go driver, which the cap turns into the cap.
function parseTimeout(value: string): number {
  if (value !== '0' && !DURATION.test(value)) {
    throw dsnError('DSN parameter timeout must be a duration such as 5s or 500ms');
  }
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(DURATION_PART)) {
    ms += Number(amount) * (DURATION_UNIT_MS[unit ?? ''] ?? 0);
  }
  if (ms === 0) return MAX_CONNECT_TIMEOUT_MS;
  return Math.min(Math.ceil(ms), MAX_CONNECT_TIMEOUT_MS);
}

function parseTls(value: string): TlsMode {
  const mode = TLS_MODES.find((m) => m === value);
  if (mode === undefined) throw dsnError(`DSN parameter tls must be one of ${TLS_MODES.join(', ')}`);
  return mode;
}

function parsePostgresParams(
  raw: string,
  mayName: (name: string) => boolean,
): Pick<PostgresDsn, 'connectTimeoutMs' | 'sslmode'> {
  const result: Pick<PostgresDsn, 'connectTimeoutMs' | 'sslmode'> = {
    connectTimeoutMs: MAX_CONNECT_TIMEOUT_MS,
    sslmode: 'prefer',
  };
  const seen = new Set<string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    // libpq would also take options, sslrootcert, host, ... here: each could redirect or reconfigure the session.
    if (!POSTGRES_PARAMS.has(name)) {
      throw dsnError(
        `DSN parameter${mayName(name) ? ` ${name}` : ''} is not supported (allowed: ${POSTGRES_PARAMS_TEXT})`,
      );
    }
    if (seen.has(name)) throw dsnError(`DSN parameter ${name} is given more than once`);
    seen.add(name);
    let value: string;
    try {
      value = decodeURIComponent(eq < 0 ? '' : pair.slice(eq + 1));
    } catch {
      throw dsnError(`DSN parameter ${name} has invalid percent-encoding`);
    }
    if (name === 'connect_timeout') result.connectTimeoutMs = parseConnectTimeout(value);
    else result.sslmode = parseSslMode(value);
  }
  return result;
}

// libpq's connect_timeout: whole seconds, 0 meaning "wait forever", which the cap turns into the cap.
function parseConnectTimeout(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw dsnError('DSN parameter connect_timeout must be a whole number of seconds');
  const ms = Number(value) * 1000;
  return ms === 0 ? MAX_CONNECT_TIMEOUT_MS : Math.min(ms, MAX_CONNECT_TIMEOUT_MS);
}

function parseSslMode(value: string): SslMode {
  const mode = SSL_MODES.find((m) => m === value);
  if (mode === undefined) throw dsnError(`DSN parameter sslmode must be one of ${SSL_MODES.join(', ')}`);
  return mode;
}
