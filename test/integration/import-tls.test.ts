import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStallingProxy } from '#test/support/fake-mysql';
import { type ServerTls, startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { FIXTURE_SQL, importDeps, runImport, startTestDynamo, type TestDynamo } from './import.helpers.ts';

const run = promisify(execFile);
const PLAINTEXT_KEY = 'sk-fixture-openai-main-0001';

let dir: string;
let db: TestMariaDb;
let dynamo: TestDynamo;

/** A throwaway CA and a server certificate for localhost / 127.0.0.1, made with the openssl CLI. */
async function makeCertificates(into: string): Promise<ServerTls> {
  const file = (name: string) => join(into, name);
  const openssl = async (args: string[]) => {
    try {
      await run('openssl', args, { cwd: into });
    } catch (e) {
      throw new Error(`The TLS tests need the openssl CLI (apt-get install -y openssl): ${(e as Error).message}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test CA']);
  await openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  await writeFile(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  return { certFile: file('server.pem'), keyFile: file('server.key'), caFile: file('ca.pem') };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-tls-'));
  const tls = await makeCertificates(dir);
  [db, dynamo] = await Promise.all([startMariaDb({ tls }), startTestDynamo()]);
});

afterAll(async () => {
  await Promise.all([db?.stop(), dynamo?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Imports the fixture through a recording proxy; returns the outcome and whether a key crossed the wire in clear. */
async function importThroughProxy(params: string) {
  const database = await db.createDatabase(undefined, FIXTURE_SQL);
  const table = await dynamo.createChannelsTable();
  const proxy = await startStallingProxy(db.port);
  try {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${proxy.port})/${database}?${params}`;
    const result = await runImport(dsn, importDeps(dynamo, table));
    return { result, keyInClear: proxy.serverData().includes(PLAINTEXT_KEY) };
  } finally {
    await proxy.close();
  }
}

describe('TLS to the legacy database', () => {
  it('without TLS (tls=false) the keys cross the wire in clear (the control for the checks below)', async () => {
    const { result, keyInClear } = await importThroughProxy('tls=false');

    expect(result.ok && result.report.channels.created).toBe(21);
    expect(keyInClear).toBe(true);
  });

  it('with tls=skip-verify imports over an encrypted connection', async () => {
    const { result, keyInClear } = await importThroughProxy('tls=skip-verify');

    expect(result.ok && result.report.channels.created).toBe(21);
    expect(keyInClear).toBe(false);
  });

  it('with tls=preferred uses TLS when the server offers it', async () => {
    const { result, keyInClear } = await importThroughProxy('tls=preferred');

    expect(result.ok && result.report.channels.created).toBe(21);
    expect(keyInClear).toBe(false);
  });

  it('with tls=true refuses a certificate from a CA the process does not trust (502)', async () => {
    const { result } = await importThroughProxy('tls=true');

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      502,
      expect.stringMatching(/TLS handshake failed/),
    ]);
  });
});
