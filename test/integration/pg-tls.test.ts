import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDsn } from '#functions/import-legacygw/dsn';
import { CORE_COLUMNS } from '#functions/import-legacygw/limits';
import { type OpenPgSource, openPgSource, pgSourceOpener } from '#functions/import-legacygw/pg-source';
import { ProxyApiError } from '#shared/errors';
import { makeTestCertificates } from '#test/support/certificates';
import { startStallingProxy } from '#test/support/fake-mysql';
import { startPostgres, type TestPostgres } from '#test/support/postgres';

const FIXTURE = readFileSync(new URL('../fixtures/legacygw-channels.pg.sql', import.meta.url), 'utf8');
const PLAINTEXT_KEY = 'sk-fixture-openai-main-0001';
// A role the server asks for its password in clear text (pg_hba.conf method `password`).
const CLEARTEXT_USER = 'cleartext_importer';
const CLEARTEXT_PASSWORD = 'clear-text-password-0123';

let dir: string;
let testCaPem: string;
let pg: TestPostgres;
let database: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pg-tls-'));
  const tls = await makeTestCertificates(dir);
  testCaPem = await readFile(tls.caFile, 'utf8');
  pg = await startPostgres({ tls, hba: [`host all ${CLEARTEXT_USER} 127.0.0.1/32 password`] });
  database = await pg.createDatabase(undefined, FIXTURE);
  await pg.query(
    database,
    `CREATE ROLE ${CLEARTEXT_USER} LOGIN PASSWORD '${CLEARTEXT_PASSWORD}';
     GRANT CONNECT ON DATABASE "${database}" TO ${CLEARTEXT_USER};
     GRANT SELECT ON channels TO ${CLEARTEXT_USER};`,
  );
});

afterAll(async () => {
  await pg?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Reads the fixture through a recording proxy with `sslmode`, the DSN naming the server `host` (the connection
 * goes to 127.0.0.1 whatever the name); returns the rows read or the error, and whether a key crossed in clear.
 */
async function readThroughProxy(
  sslmode: string,
  options: { host?: string; open?: OpenPgSource; user?: string; password?: string } = {},
) {
  const proxy = await startStallingProxy(pg.port);
  const host = options.host ?? '127.0.0.1';
  const userInfo = `${encodeURIComponent(options.user ?? pg.user)}:${encodeURIComponent(options.password ?? pg.password)}`;
  try {
    const dsn = parseDsn(`postgres://${userInfo}@${host}:${proxy.port}/${database}?sslmode=${sslmode}`);
    if (dsn.engine !== 'postgres') throw new Error('expected a PostgreSQL DSN');
    const limits = { signal: new AbortController().signal, deadlineAt: Date.now() + 20_000, now: () => Date.now() };
    let result: { rows: number } | { error: ProxyApiError };
    try {
      const source = await (options.open ?? openPgSource)(dsn, { address: '127.0.0.1', family: 4 }, limits);
      try {
        const columns = await source.columns();
        let rows = 0;
        for await (const _ of source.rows(
          CORE_COLUMNS.filter((c) => columns.has(c.name)),
          100,
        ))
          rows += 1;
        result = { rows };
      } finally {
        await source.close();
      }
    } catch (e) {
      if (!(e instanceof ProxyApiError)) throw e;
      result = { error: e };
    }
    return { result, keyInClear: proxy.serverData().includes(PLAINTEXT_KEY) };
  } finally {
    await proxy.close();
  }
}

const trustingTestCa = () => pgSourceOpener({ extraCas: [testCaPem] });

describe('TLS to a PostgreSQL legacy database', () => {
  it('without TLS (sslmode=disable) the keys cross the wire in clear (the control for the checks below)', async () => {
    const { result, keyInClear } = await readThroughProxy('disable');

    expect(result).toEqual({ rows: 20 });
    expect(keyInClear).toBe(true);
  });

  it.each(['prefer', 'require'])('with sslmode=%s reads over an encrypted connection, unverified', async (mode) => {
    const { result, keyInClear } = await readThroughProxy(mode);

    expect(result).toEqual({ rows: 20 });
    expect(keyInClear).toBe(false);
  });

  it('with sslmode=verify-full reads, verified, when the test CA is configured', async () => {
    const { result, keyInClear } = await readThroughProxy('verify-full', { open: trustingTestCa() });

    expect(result).toEqual({ rows: 20 });
    expect(keyInClear).toBe(false);
  });

  it.each(['verify-full', 'verify-ca'])(
    'with sslmode=%s refuses a certificate from a CA the process does not trust (502)',
    async (mode) => {
      const { result } = await readThroughProxy(mode);

      expect(result).toEqual({ error: expect.objectContaining({ httpStatus: 502 }) });
      expect((result as { error: Error }).error.message).toMatch(/TLS handshake failed/);
    },
  );

  it('with sslmode=verify-full refuses a certificate that does not name the DSN host (502)', async () => {
    const { result } = await readThroughProxy('verify-full', { host: 'db.example.test', open: trustingTestCa() });

    expect(result).toEqual({ error: expect.objectContaining({ httpStatus: 502 }) });
  });

  it('with sslmode=verify-ca accepts that certificate: it checks the chain only', async () => {
    const { result, keyInClear } = await readThroughProxy('verify-ca', {
      host: 'db.example.test',
      open: trustingTestCa(),
    });

    expect(result).toEqual({ rows: 20 });
    expect(keyInClear).toBe(false);
  });

  it('gives the password in clear text only to a server whose certificate it verified (verify-full)', async () => {
    const cleartext = { user: CLEARTEXT_USER, password: CLEARTEXT_PASSWORD };

    const verified = await readThroughProxy('verify-full', { ...cleartext, open: trustingTestCa() });
    const unverified = await readThroughProxy('require', cleartext);

    expect(verified.result).toEqual({ rows: 20 });
    expect(unverified.result).toEqual({ error: expect.objectContaining({ httpStatus: 502 }) });
    expect((unverified.result as { error: Error }).error.message).toMatch(/password in clear text/);
  });
});
