import { describe, expect, it } from 'vitest';
import type { PostgresDsn } from '#functions/import-legacygw/dsn';
import { PgDriverError, PgTimeout, rewritePgError } from '#functions/import-legacygw/pg-errors';
import { PgWireError } from '#functions/import-legacygw/pg-wire';
import { ProxyApiError } from '#shared/errors';

const dsn: PostgresDsn = {
  engine: 'postgres',
  user: 'importer',
  password: 'pw-that-must-not-leak',
  host: 'db.internal',
  port: 5432,
  database: 'oneapi',
  connectTimeoutMs: 10_000,
  sslmode: 'prefer',
};

/** A node-postgres DatabaseError: the server's text names the user and a value. */
function serverError(code: string): Error {
  return Object.assign(new Error(`FATAL: something about user "importer" and pw-that-must-not-leak (${code})`), {
    code,
    severity: 'FATAL',
  });
}

const rewrite = (e: unknown) => rewritePgError(e, dsn, new AbortController().signal) as ProxyApiError;

describe('rewritePgError', () => {
  it.each([
    [
      'a role that does not exist (trust auth)',
      { routine: 'InitializeSessionUserId' },
      'role "nobody" does not exist',
      'prefer',
      /has no role named as the DSN's user: check the user name in the DSN, or create the role/,
    ],
    [
      'no pg_hba.conf line without TLS, under sslmode=disable',
      { routine: 'ClientAuthentication' },
      'no pg_hba.conf entry for host "10.0.0.9", user "importer", database "oneapi", no encryption',
      'disable',
      /only over TLS: remove sslmode=disable/,
    ],
    [
      'no pg_hba.conf line for this address',
      { routine: 'ClientAuthentication' },
      'no pg_hba.conf entry for host "10.0.0.9", user "importer", database "oneapi", SSL encryption',
      'require',
      /does not accept this user from this network address \(no pg_hba\.conf line matches/,
    ],
  ] as const)('names 28000 for %s, never blaming TLS for a missing role', (_, fields, text, sslmode, message) => {
    const e = Object.assign(new Error(text), { code: '28000', severity: 'FATAL', ...fields });

    const error = rewritePgError(e, { ...dsn, sslmode }, new AbortController().signal) as ProxyApiError;

    expect([error.httpStatus, error.message]).toEqual([400, expect.stringMatching(message)]);
    if (fields.routine === 'InitializeSessionUserId') expect(error.message).not.toMatch(/TLS|sslmode/);
    expect(error.message).not.toContain('nobody');
    expect(error.message).not.toContain('10.0.0.9');
  });

  it.each([
    ['28P01', 400, /denied access/],
    ['42501', 400, /may not connect to the database or read its channels table/],
    ['42P01', 400, /channels table cannot be read/],
    ['3D000', 400, /"oneapi" does not exist/],
    ['53300', 502, /too many connections/],
    ['57P03', 502, /starting up/],
    ['57014', 502, /statement ran past its timeout/],
    ['08006', 502, /connection failed/],
    ['ECONNREFUSED', 502, /refused/],
    ['ENOTFOUND', 502, /not found/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 502, /TLS handshake failed/],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 502, /TLS handshake failed/],
    ['XX000', 500, /Unexpected error/],
  ])('rewrites %s to %d with its own words, keeping only the code', (code, status, message) => {
    const error = rewrite(serverError(code));

    expect(error).toBeInstanceOf(ProxyApiError);
    expect([error.httpStatus, error.message]).toEqual([status, expect.stringMatching(message)]);
    expect(error.message).not.toContain('pw-that-must-not-leak');
    expect(error.message).not.toContain('FATAL');
    expect(error.cause).toBeInstanceOf(PgDriverError);
    expect(String((error.cause as Error).message)).toBe(`PostgreSQL driver error code=${code} problem=-`);
  });

  it.each([
    [new PgWireError('no-tls', 'x'), 400, /offers no TLS, but the DSN requires it \(sslmode=prefer\)/],
    [new PgWireError('cleartext-password', 'x'), 502, /password in clear text/],
    [new PgWireError('oversize', 'x'), 502, /more data at once/],
    [new PgWireError('tls-injection', 'x'), 502, /unencrypted data/],
    [new PgTimeout('connect'), 502, /connection timed out/],
    [new PgTimeout('query'), 502, /did not answer in time/],
    [new Error('Connection terminated unexpectedly'), 502, /closed the connection/],
    [new Error('something else'), 500, /Unexpected error/],
  ])('rewrites %s', (e, status, message) => {
    const error = rewrite(e);

    expect([error.httpStatus, error.message]).toEqual([status, expect.stringMatching(message)]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'shows an error code named %s as text in a generic 500, never as an object or a function',
    (code) => {
      const error = rewrite(serverError(code));

      expect([error.httpStatus, error.message]).toEqual([500, 'Unexpected error while reading the legacy database']);
      expect((error.cause as Error).message).toBe(`PostgreSQL driver error code=${code} problem=-`);
    },
  );

  it('passes the deadline through as the signal reason', () => {
    const deadline = new AbortController();
    const reason = new Error('deadline');
    deadline.abort(reason);

    expect(rewritePgError(serverError('57014'), dsn, deadline.signal)).toBe(reason);
  });

  it('passes an error of the import itself through unchanged', () => {
    const own = new ProxyApiError(400, 'own');

    expect(rewrite(own)).toBe(own);
  });
});
