import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { LegacyDriverError, rewriteDriverError } from '#functions/import-legacygw/driver-errors';
import type { ParsedDsn } from '#functions/import-legacygw/dsn';
import { proxyErrorResponse, proxySuccess } from '#shared/envelopes/proxy';
import { DeadlineExceededError, ProxyApiError } from '#shared/errors';
import { captureOutput } from '#test/support/capture-output';

const dsn: ParsedDsn = {
  engine: 'mysql',
  user: 'importer',
  password: 'pw-that-must-not-leak',
  host: 'db.internal',
  port: 3306,
  database: 'legacy',
  connectTimeoutMs: 10_000,
  tls: 'false',
};

/** A mysql2-shaped error whose message echoes user@host, as the driver's do. */
function driverError(code: string, errno?: number): Error {
  return Object.assign(new Error(`Access denied for user 'importer'@'10.1.2.3' (${code})`), {
    code,
    errno,
    sqlState: '28000',
  });
}

const rewrite = (e: unknown) => rewriteDriverError(e, dsn, new AbortController().signal) as ProxyApiError;

describe('rewriteDriverError', () => {
  it.each([
    ['ER_ACCESS_DENIED_ERROR', 1045, 400, /denied access/],
    ['ER_BAD_DB_ERROR', 1049, 400, /"legacy" does not exist/],
    ['ER_DBACCESS_DENIED_ERROR', 1044, 400, /"legacy" does not exist .* may not use it/],
    ['ER_TABLEACCESS_DENIED_ERROR', 1142, 400, /may not read the channels table/],
    ['ECONNREFUSED', -111, 502, /refused/],
    ['ETIMEDOUT', undefined, 502, /timed out/],
    ['ENOTFOUND', -3008, 502, /not found/],
    ['PROTOCOL_CONNECTION_LOST', undefined, 502, /closed the connection/],
    ['PROTOCOL_SEQUENCE_TIMEOUT', undefined, 502, /did not answer in time/],
    ['HANDSHAKE_NO_SSL_SUPPORT', undefined, 400, /offers no TLS/],
    ['ER_SOMETHING_NEW', 1234, 500, /Unexpected error/],
  ])('maps %s to %i with our own message', (code, errno, status, message) => {
    const error = rewrite(driverError(code, errno));

    expect(error).toBeInstanceOf(ProxyApiError);
    expect(error.httpStatus).toBe(status);
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/10\.1\.2\.3|importer'@/);
  });

  it.each(['__proto__', 'constructor', 'valueOf'])(
    'shows a driver code named %s as text in a generic 500, never as an object or a function',
    (code) => {
      const error = rewrite(driverError(code));

      expect([error.httpStatus, error.message]).toEqual([500, 'Unexpected error while reading the legacy database']);
      expect((error.cause as Error).message).toBe(`MySQL driver error code=${code} errno=- sqlState=28000`);
    },
  );

  it('keeps only codes of the driver error as the cause', () => {
    const error = rewrite(driverError('ER_ACCESS_DENIED_ERROR', 1045));

    expect(error.cause).toBeInstanceOf(LegacyDriverError);
    expect((error.cause as Error).message).toBe(
      'MySQL driver error code=ER_ACCESS_DENIED_ERROR errno=1045 sqlState=28000',
    );
  });

  it("returns the deadline signal's reason once it has fired, whatever the driver said", () => {
    const deadline = new AbortController();
    const reason = new Error('deadline');
    deadline.abort(reason);

    expect(rewriteDriverError(driverError('ECONNRESET'), dsn, deadline.signal)).toBe(reason);
  });

  it('passes our own errors through unchanged', () => {
    const ours = new ProxyApiError(400, 'The channels table lacks required column(s): key');

    expect(rewrite(ours)).toBe(ours);
  });
});

describe('proxy API envelope', () => {
  const logger = new Logger({ serviceName: 'envelope-test', logLevel: 'DEBUG' });
  const render = (error: unknown) => {
    const output = captureOutput();
    try {
      const response = proxyErrorResponse(error, logger);
      return { status: response.statusCode, body: JSON.parse(response.body), log: output.text() };
    } finally {
      output.restore();
    }
  };

  it('wraps a report as {"success": true, "data"}', () => {
    const response = proxySuccess({ dryRun: true });

    expect([response.statusCode, JSON.parse(response.body)]).toEqual([200, { success: true, data: { dryRun: true } }]);
  });

  it('shows the message of a ProxyApiError below 500', () => {
    expect(render(new ProxyApiError(400, 'DSN has no host'))).toMatchObject({
      status: 400,
      body: { success: false, message: 'DSN has no host' },
    });
  });

  it('shows the written count of a deadline (504) and the reason of an unreachable database (502)', () => {
    expect(render(new DeadlineExceededError(42))).toMatchObject({
      status: 504,
      body: { success: false, message: expect.stringContaining('42 channel(s) were written') },
    });
    expect(
      render(new ProxyApiError(502, 'Could not read from the MySQL server: the connection was refused')),
    ).toMatchObject({
      status: 502,
      body: { message: expect.stringMatching(/refused/) },
    });
  });

  it('turns anything else into a generic 500 and logs the cause chain without stacks', () => {
    const error = new ProxyApiError(500, 'Unexpected error while reading the legacy database', {
      cause: new LegacyDriverError('ER_X', 1, undefined),
    });

    const rendered = render(error);

    expect(rendered.status).toBe(500);
    expect(rendered.body).toEqual({ success: false, message: 'Internal error' });
    const line = JSON.parse(rendered.log.trim().split('\n').at(-1)!);
    expect(line.error).toEqual({
      name: 'ProxyApiError',
      message: 'Unexpected error while reading the legacy database',
      cause: { name: 'LegacyDriverError', message: expect.stringContaining('code=ER_X'), code: 'ER_X', errno: 1 },
    });
    expect(rendered.log).not.toContain('    at ');
  });

  it('renders a plain Error as the same generic 500', () => {
    expect(render(new TypeError('boom'))).toMatchObject({ status: 500, body: { message: 'Internal error' } });
  });
});
