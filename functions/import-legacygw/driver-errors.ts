import { ProxyApiError } from '#shared/errors';
import type { ParsedDsn } from './dsn.ts';

/* The import's own wording for what the MySQL driver reports: its text never reaches a response. */

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

/** What a network error code means, in the import's words (shared by the MySQL and PostgreSQL sources). */
export const NETWORK_PROBLEMS: Readonly<Record<string, string>> = {
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

/**
 * The import's words for a network error code, or undefined: an own property only, so a code such as `__proto__` or
 * `constructor` (a hostile server chooses the code) is an unknown code, never Object.prototype's text.
 */
export function networkProblem(code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(NETWORK_PROBLEMS, code) ? NETWORK_PROBLEMS[code] : undefined;
}

const CLIENT_PROBLEMS: Readonly<Record<number, string>> = {
  1045: 'The MySQL server denied access: check the user and password in the DSN',
  1142: 'The MySQL user may not read the channels table',
  1143: 'The MySQL user may not read the channels table',
  1698: 'The MySQL server denied access: check the user and password in the DSN',
  1130: 'The MySQL server does not accept this user from this network address',
};

/**
 * Rewrites anything a read can throw into a ProxyApiError with our own message (docs/channel-import.md): the
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
  const clientProblem =
    errno === undefined || !Object.hasOwn(CLIENT_PROBLEMS, errno) ? undefined : CLIENT_PROBLEMS[errno];
  if (clientProblem) return new ProxyApiError(400, clientProblem, { cause });
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT') {
    return new ProxyApiError(400, 'The MySQL server offers no TLS, but the DSN requires it (tls parameter)', { cause });
  }
  if (code === 'MYSQL_CLEAR_PASSWORD_NOT_ENABLED') {
    // mysql2 refuses the switch before sending anything; the server is misconfigured or hostile, not the DSN.
    return new ProxyApiError(
      502,
      'The MySQL server asked for the password in clear text (mysql_clear_password); the import never sends it that way',
      { cause },
    );
  }
  if (code === 'IMPORT_OVERSIZE_PACKET') {
    return new ProxyApiError(
      502,
      'Could not read from the MySQL server: it sent more data at once than the import accepts',
      {
        cause,
      },
    );
  }
  if (code === 'IMPORT_NOT_MYSQL') {
    const what =
      (e as { problem?: unknown }).problem === 'silent'
        ? 'it accepted the connection but sent no MySQL greeting within 4 s'
        : 'it answered with something other than a MySQL greeting';
    return new ProxyApiError(
      400,
      `The server at the DSN's address does not speak MySQL (${what}): check the host and port, or write a postgres:// DSN for a PostgreSQL server`,
      { cause },
    );
  }
  if (errno === 1040) {
    return new ProxyApiError(502, 'Could not use the MySQL server: it has too many connections', { cause });
  }
  const network = networkProblem(code);
  if (network) return new ProxyApiError(502, `Could not read from the MySQL server: ${network}`, { cause });
  return new ProxyApiError(500, 'Unexpected error while reading the legacy database', { cause });
}

/** The driver's error code (`ECONNREFUSED`, `HANDSHAKE_NO_SSL_SUPPORT`, ...), if it has one. */
export function driverCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
