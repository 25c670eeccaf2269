import { isIPv4, isIPv6 } from 'node:net';
import { ProxyApiError } from '#shared/errors';
import { isHostName } from '#shared/host-name';

export type TlsMode = 'true' | 'skip-verify' | 'preferred' | 'false';

/** A legacy gateway DSN taken apart into explicit connection options (docs/channel-import.md). */
export interface ParsedDsn {
  user: string;
  password: string;
  /** Host name or IP address; IPv6 without brackets. */
  host: string;
  port: number;
  database: string;
  /** From `?timeout=` (a Go duration), capped at MAX_CONNECT_TIMEOUT_MS; that cap is also the default. */
  connectTimeoutMs: number;
  /** From `?tls=`; default 'false'. */
  tls: TlsMode;
}

/** Longer input is refused before any parsing. */
export const MAX_DSN_LENGTH = 4096;
/** Upper bound (and default) of the connect timeout, whatever the DSN asks for. */
export const MAX_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_PORT = 3306;
// MySQL's limit for a database name.
const MAX_DATABASE_LENGTH = 64;

const GO_FORM = 'user[:password]@tcp(host[:port])/database';
const URL_FORM = 'mysql://user:password@host[:port]/database';
const MALFORMED = `DSN is malformed: expected ${GO_FORM} or ${URL_FORM}`;

const TLS_MODES: readonly TlsMode[] = ['true', 'skip-verify', 'preferred', 'false'];
const IGNORED_PARAMS = ['charset', 'collation', 'parseTime', 'loc'];
const ALLOWED_PARAMS = new Set(['timeout', 'tls', ...IGNORED_PARAMS]);
const ALLOWED_PARAMS_TEXT = [...ALLOWED_PARAMS].join(', ');

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
 * password is literal and may contain `@ : / ( )`) and `mysql://user:password@host[:port]/database[?params]`
 * (percent-decoded user and password). A scheme-less DSN whose user is followed by `://` reads as a scheme:
 * prefix it with `mysql://`. Throws ProxyApiError(400) whose message never contains the password.
 */
export function parseDsn(input: string): ParsedDsn {
  if (typeof input !== 'string') throw dsnError('DSN must be a string');
  if (input.length > MAX_DSN_LENGTH) throw dsnError(`DSN is longer than ${MAX_DSN_LENGTH} characters`);
  const dsn = input.trim();
  if (dsn === '') throw dsnError('DSN is empty');

  const scheme = SCHEME.exec(dsn);
  if (scheme && scheme[1]?.toLowerCase() !== 'mysql') throw dsnError('DSN scheme must be mysql:// (or none)');
  const rest = scheme ? dsn.slice(scheme[0].length) : dsn;

  if (rest.includes('@tcp(')) return parseGoForm(rest);
  if (scheme) return parseUrlForm(rest);
  if (OTHER_NETWORK.test(rest)) throw networkError();
  throw dsnError(MALFORMED);
}

/** The DSN for display: host, port, database only. */
export function describeDsn(dsn: ParsedDsn): { host: string; port: number; database: string } {
  return { host: dsn.host, port: dsn.port, database: dsn.database };
}

function networkError(): ProxyApiError {
  return dsnError(`DSN network must be tcp (unix sockets and other networks are not supported): expected ${GO_FORM}`);
}

function parseGoForm(rest: string): ParsedDsn {
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

function parseUrlForm(rest: string): ParsedDsn {
  // As in a WHATWG URL, the authority ends at the first '/', '?' or '#', and the userinfo at its last '@'.
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const tail = end < 0 ? '' : rest.slice(end);
  const at = authority.lastIndexOf('@');
  if (at < 0) throw dsnError(`DSN has no user name: expected ${URL_FORM}`);
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
  const { host, port } = parseAddress(hostPort);
  if (tail.includes('#')) throw dsnError(`DSN is malformed (a '#' must be percent-encoded): expected ${URL_FORM}`);
  if (!tail.startsWith('/')) throw dsnError(`DSN has no database name: expected ${URL_FORM}`);
  return assemble(user, password, host, port, tail.slice(1), !tail.includes('@'));
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

function parseAddress(address: string): { host: string; port: number } {
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
  return { host, port: portText === undefined ? DEFAULT_PORT : parsePort(portText) };
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
): ParsedDsn {
  const question = pathAndQuery.indexOf('?');
  const rawDatabase = question < 0 ? pathAndQuery : pathAndQuery.slice(0, question);
  const database = parseDatabase(rawDatabase);
  // A name is quoted only where it cannot be a piece of the password, not even by coincidence.
  const mayName = (name: string) =>
    mayNameParams && PARAM_NAME.test(name) && (password === '' || !name.includes(password));
  const params = parseParams(question < 0 ? '' : pathAndQuery.slice(question + 1), mayName);
  return { user, password, host, port, database, ...params };
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
  if ([...database].length > MAX_DATABASE_LENGTH) {
    throw dsnError(`DSN database name is longer than ${MAX_DATABASE_LENGTH} characters`);
  }
  return database;
}

function parseParams(raw: string, mayName: (name: string) => boolean): Pick<ParsedDsn, 'connectTimeoutMs' | 'tls'> {
  const result: Pick<ParsedDsn, 'connectTimeoutMs' | 'tls'> = {
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
