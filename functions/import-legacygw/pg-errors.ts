import { ProxyApiError } from '#shared/errors';
import { driverCode, networkProblem } from './driver-errors.ts';
import type { PostgresDsn } from './dsn.ts';
import { PgWireError } from './pg-wire.ts';

/* The import's own wording for what node-postgres and the PostgreSQL server report: their text never reaches a response. */

/** The facts of a PostgreSQL failure, without its message (the server's text can name users, hosts and values). */
export class PgDriverError extends Error {
  constructor(
    readonly code: string | undefined,
    readonly problem: string | undefined,
  ) {
    super(`PostgreSQL driver error code=${code ?? '-'} problem=${problem ?? '-'}`);
    this.name = 'PgDriverError';
  }
}

/** The DSN's connect timeout passed before the server let the import in, or a metadata query went unanswered. */
export class PgTimeout extends Error {
  constructor(readonly phase: 'connect' | 'query') {
    super(`The PostgreSQL ${phase} timeout passed`);
    this.name = 'PgTimeout';
  }
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

const DENIED = 'The PostgreSQL server denied access: check the user and password in the DSN';

// By SQLSTATE (PostgreSQL's errcodes.txt): what the operator can fix in the DSN or the grants is a 400.
const CLIENT_PROBLEMS: Readonly<Record<string, string>> = {
  '28P01': DENIED,
  '42501': 'The PostgreSQL user may not connect to the database or read its channels table',
  '42P01': 'The channels table cannot be read (it is gone, or the PostgreSQL user may not see it)',
};

const SERVER_PROBLEMS: Readonly<Record<string, string>> = {
  '53300': 'it has too many connections',
  '57P03': 'it is starting up or shutting down',
  '57P01': 'it is shutting down',
  '57014': 'a statement ran past its timeout',
  '25006': 'it refused a read-only transaction',
};

// Node's TLS verification failures: the certificate chain, name or dates do not check out.
const TLS_CODES = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
const TLS_FAILED = 'the TLS handshake failed (is the certificate valid for this host name, from a trusted CA?)';

const WIRE_PROBLEMS: Readonly<Record<PgWireError['problem'], string>> = {
  'no-tls': '',
  'cleartext-password':
    'The PostgreSQL server asked for the password in clear text over a connection whose certificate was not ' +
    'verified; the import never sends it that way (use sslmode=verify-full, or scram-sha-256 on the server)',
  oversize: 'Could not read from the PostgreSQL server: it sent more data at once than the import accepts',
  'tls-injection': 'Could not read from the PostgreSQL server: it sent unencrypted data inside the TLS handshake',
  'bad-ssl-answer': 'Could not read from the PostgreSQL server: it did not answer the TLS request as PostgreSQL does',
};

/**
 * SQLSTATE 28000 stands for several refusals; which one is read from the error's `routine` (the server function
 * that raised it) and the fixed start of its text, never repeated: a role that does not exist (a server with
 * `trust` or `peer` auth says so; with a password method it answers 28P01 instead), or no pg_hba.conf line for this
 * user, address and encryption.
 */
function notAuthorized(e: unknown, dsn: PostgresDsn): string {
  const routine = (e as { routine?: unknown } | null)?.routine;
  const text = e instanceof Error ? e.message : '';
  if (routine === 'InitializeSessionUserId' || /^role ".*" does not exist$/s.test(text)) {
    return "The PostgreSQL server has no role named as the DSN's user: check the user name in the DSN, or create the role on the server (CREATE ROLE ... LOGIN PASSWORD '...')";
  }
  if (/, no encryption$/.test(text) && dsn.sslmode === 'disable') {
    return 'The PostgreSQL server accepts this user from this network address only over TLS: remove sslmode=disable from the DSN (or set sslmode=require)';
  }
  return 'The PostgreSQL server does not accept this user from this network address (no pg_hba.conf line matches this user, database and address): add one on the server';
}

/**
 * Rewrites anything the PostgreSQL source can throw into a ProxyApiError with our own message
 * (docs/channel-import.md, "PostgreSQL"); the cause keeps codes only. At the deadline the signal's reason passes
 * through, so the caller can report how much it wrote.
 */
export function rewritePgError(e: unknown, dsn: PostgresDsn, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (e instanceof ProxyApiError) return e;
  if (e instanceof PgWireError) {
    const cause = new PgDriverError(undefined, e.problem);
    if (e.problem === 'no-tls') {
      return new ProxyApiError(
        400,
        `The PostgreSQL server offers no TLS, but the DSN requires it (sslmode=${dsn.sslmode})`,
        {
          cause,
        },
      );
    }
    return new ProxyApiError(502, WIRE_PROBLEMS[e.problem], { cause });
  }
  if (e instanceof PgTimeout) {
    const problem = e.phase === 'connect' ? 'the connection timed out' : 'the server did not answer in time';
    return new ProxyApiError(502, `Could not read from the PostgreSQL server: ${problem}`, {
      cause: new PgDriverError(undefined, `${e.phase}-timeout`),
    });
  }
  const code = driverCode(e);
  const cause = new PgDriverError(code, undefined);
  if (code !== undefined && SQLSTATE.test(code)) {
    if (code === '3D000') {
      return new ProxyApiError(
        400,
        `The database ${JSON.stringify(dsn.database)} does not exist on the PostgreSQL server`,
        {
          cause,
        },
      );
    }
    if (code === '28000') return new ProxyApiError(400, notAuthorized(e, dsn), { cause });
    const client = Object.hasOwn(CLIENT_PROBLEMS, code) ? CLIENT_PROBLEMS[code] : undefined;
    if (client) return new ProxyApiError(400, client, { cause });
    const server =
      (Object.hasOwn(SERVER_PROBLEMS, code) ? SERVER_PROBLEMS[code] : undefined) ??
      (code.startsWith('08') ? 'the connection failed' : undefined);
    if (server) return new ProxyApiError(502, `Could not read from the PostgreSQL server: ${server}`, { cause });
  }
  if (code !== undefined && TLS_CODES.test(code)) {
    return new ProxyApiError(502, `Could not read from the PostgreSQL server: ${TLS_FAILED}`, { cause });
  }
  const network = networkProblem(code);
  if (network) return new ProxyApiError(502, `Could not read from the PostgreSQL server: ${network}`, { cause });
  // node-postgres reports a closed socket with this message only (no code).
  if (e instanceof Error && /^Connection terminated/.test(e.message)) {
    return new ProxyApiError(502, 'Could not read from the PostgreSQL server: the server closed the connection', {
      cause: new PgDriverError(undefined, 'connection-terminated'),
    });
  }
  return new ProxyApiError(500, 'Unexpected error while reading the legacy database', { cause });
}
