import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedCas } from '#functions/import-legacygw/legacy-connection';
import { legacySourceOpener, type OpenSource } from '#functions/import-legacygw/legacy-source';
import { importEnvSchema, loadConfig } from '#shared/config';
import { makeTestCertificates } from '#test/support/certificates';
import { startStallingProxy } from '#test/support/fake-mysql';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { FIXTURE_SQL, importDeps, runImport, startTestDynamo, type TestDynamo } from './import.helpers.ts';

const PLAINTEXT_KEY = 'sk-fixture-openai-main-0001';

let dir: string;
let testCaPem: string;
let db: TestMariaDb;
let dynamo: TestDynamo;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-tls-'));
  const tls = await makeTestCertificates(dir);
  testCaPem = await readFile(tls.caFile, 'utf8');
  [db, dynamo] = await Promise.all([startMariaDb({ tls }), startTestDynamo()]);
});

afterAll(async () => {
  await Promise.all([db?.stop(), dynamo?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Imports the fixture through a recording proxy; returns the outcome and whether a key crossed the wire in clear. */
async function importThroughProxy(params: string, openSource?: OpenSource) {
  const database = await db.createDatabase(undefined, FIXTURE_SQL);
  const table = await dynamo.createChannelsTable();
  const proxy = await startStallingProxy(db.port);
  try {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${proxy.port})/${database}?${params}`;
    const deps = importDeps(dynamo, table);
    const result = await runImport(dsn, openSource ? { ...deps, openSource } : deps);
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

  it('with tls=true imports, verified, when the test CA is configured as LEGACYGW_CA_BUNDLE', async () => {
    // The handler's own path: the variable parsed at cold start, then the opener it builds.
    const config = loadConfig(importEnvSchema, { CHANNELS_TABLE: 'channels', LEGACYGW_CA_BUNDLE: testCaPem });

    const { result, keyInClear } = await importThroughProxy(
      'tls=true',
      legacySourceOpener({ extraCas: config.LEGACYGW_CA_BUNDLE }),
    );

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

describe('CAs trusted by tls=true', () => {
  it("holds Node's trusted CAs, the Amazon RDS CAs of every region and the configured ones", () => {
    const subjects = trustedCas({ extraCas: [testCaPem] }).map((pem) => new X509Certificate(pem).subject);

    expect(subjects).toContain('CN=Test CA');
    expect(subjects.filter((s) => /Amazon RDS .*Root CA/.test(s)).length).toBeGreaterThan(10);
    expect(subjects.some((s) => /Amazon RDS eu-central-1 Root CA RSA2048 G1/.test(s))).toBe(true);
    expect(subjects.some((s) => /ISRG Root X1/.test(s))).toBe(true);
  });

  it('refuses, at cold start, a LEGACYGW_CA_BUNDLE that holds no certificate, naming the variable', () => {
    expect(() => loadConfig(importEnvSchema, { CHANNELS_TABLE: 'c', LEGACYGW_CA_BUNDLE: 'not a pem' })).toThrow(
      /LEGACYGW_CA_BUNDLE holds no PEM certificate/,
    );
    expect(() =>
      loadConfig(importEnvSchema, {
        CHANNELS_TABLE: 'c',
        LEGACYGW_CA_BUNDLE: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      }),
    ).toThrow(/LEGACYGW_CA_BUNDLE: certificate 1 of 1 is not a valid X\.509 certificate/);
  });
});
