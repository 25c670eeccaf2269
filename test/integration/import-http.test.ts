import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '#test/support/local-server';
import { freePort, type TestMariaDb } from '#test/support/mariadb';
import { FIXTURE_SQL } from './import.helpers.ts';
import {
  type ChannelsTable,
  callImport,
  expectError,
  expectNoSecrets,
  expectReport,
  startImportHarness,
  stopImportHarness,
} from './import-http.helpers.ts';

// SPEC 3 through HTTP: the local server runs the real authorizer and import handler.

let db: TestMariaDb;
let server: TestServer;
let channels: ChannelsTable;

beforeAll(async () => {
  ({ db, server, channels } = await startImportHarness());
});

afterAll(() => stopImportHarness({ db, server, channels }));

const secretsOf = (extra: readonly string[] = []) => ({ server, mysqlPassword: db.password, extra });

describe('importing the legacy gateway fixture through the local server', () => {
  it('answers 200 with the SPEC 3.5 report: 20 rows, 18 imported as 21 channels, 2 skipped', async () => {
    // The DSN grammar is the point: a non-root user whose password holds every delimiter of the Go form.
    expect(db.user).not.toBe('root');
    expect(db.password).toMatch(/@.*:.*\/.*\(.*\)/);
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    const data = expectReport(reply);
    expect(data).toEqual({
      dryRun: false,
      source: { host: db.host, port: db.port, database, rows: 20, kind: 'legacygw' },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
      items: expect.any(Array),
      itemsTruncated: false,
    });
    expect(data.items.filter((i) => i.outcome === 'skipped')).toEqual([
      { legacyId: 17, outcome: 'skipped', reason: 'unknown legacy channel type 999' },
      { legacyId: 19, outcome: 'skipped', reason: 'duplicate of legacy channel 1' },
    ]);
    expect(data.items).toEqual(
      expect.arrayContaining([
        { legacyId: 2, outcome: 'imported', channels: 1, warnings: ['model mapping not imported'] },
        { legacyId: 16, outcome: 'imported', channels: 1, warnings: ['no models'] },
      ]),
    );
    // Rows without warnings (1: plain OpenAI, 10: three keys) are not listed.
    expect(data.items.map((i) => i.legacyId)).not.toEqual(expect.arrayContaining([1]));
    expect(data.items.map((i) => i.legacyId)).not.toEqual(expect.arrayContaining([10]));
    const stored = await channels.scan();
    expect(stored).toHaveLength(21);
    for (const channel of stored)
      expect(channel.source).toEqual({ legacyId: expect.any(Number), host: db.host, database });
    expect(JSON.stringify(stored)).not.toContain(db.password);
    expect(reply.output).toContain('Legacy import finished');
    expectNoSecrets([reply], secretsOf());
  });

  it('creates nothing on a second run: 0 created, 21 unchanged, the table untouched', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    const first = await callImport(server, { json: { dsn: db.dsn(database) } });
    expect(first.status).toBe(200);
    const afterFirst = await channels.scan();

    const second = await callImport(server, { json: { dsn: db.dsn(database) } });

    const data = expectReport(second);
    expect(data.rows).toEqual({ imported: 18, skipped: 2 });
    expect(data.channels).toEqual({ created: 0, updated: 0, unchanged: 21, edited: 0 });
    expect(await channels.scan()).toEqual(afterFirst);
    expectNoSecrets([first, second], secretsOf());
  });

  it('reports a dry run like a real import and writes nothing', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    const before = await channels.scan();

    const reply = await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } });

    const data = expectReport(reply);
    expect(data).toMatchObject({
      dryRun: true,
      source: { database, rows: 20 },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
      itemsTruncated: false,
    });
    expect(before).toEqual([]);
    expect(await channels.scan()).toEqual([]);
    expectNoSecrets([reply], secretsOf());
  });
});

describe('requests the import refuses with 400', () => {
  it.each([
    { problem: 'is not JSON', request: { raw: '{"dsn": "u:p@tcp(127.0.0.1:3306)/legacy"' }, message: /valid JSON/ },
    { problem: 'has no dsn', request: { json: { dryRun: true } }, message: /dsn is required/ },
    { problem: 'has a dsn that is not a string', request: { json: { dsn: 3306 } }, message: /dsn .*string/ },
  ])('rejects a body that $problem', async ({ request, message }) => {
    const reply = await callImport(server, request);

    expectError(reply, 400, message);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a malformed DSN without repeating it', async () => {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${db.port})`;

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /^DSN has no database name/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects ?allowAllFiles=true, naming the parameter', async () => {
    const dsn = db.dsn('legacy', { params: 'allowAllFiles=true' });

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /allowAllFiles is not supported/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects ?multiStatements=true, naming the parameter', async () => {
    const dsn = db.dsn('legacy', { params: 'charset=utf8mb4&multiStatements=true' });

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /multiStatements is not supported/);
    expectNoSecrets([reply], secretsOf());
  });

  it('refuses a link-local host (the cloud metadata endpoint)', async () => {
    const dsn = `${db.user}:${db.password}@tcp(169.254.169.254:3306)/legacy?timeout=1s`;

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /link-local/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a wrong MySQL password without repeating either password', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    const wrong = 'Wr0ng@pa:ss/(x)';

    const reply = await callImport(server, { json: { dsn: db.dsn(database, { password: wrong }) } });

    expectError(reply, 400, /denied access/);
    expectNoSecrets([reply], secretsOf([wrong]));
  });

  it('rejects an unknown database', async () => {
    const reply = await callImport(server, { json: { dsn: db.dsn(`missing_${Date.now()}`) } });

    expectError(reply, 400, /does not exist/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a database without a channels table', async () => {
    const database = await db.createDatabase(undefined, 'CREATE TABLE users (id bigint PRIMARY KEY)');

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expectError(reply, 400, /has no channels table/);
    expectNoSecrets([reply], secretsOf());
  });
});

describe('callers without the admin key get 401 and the import does not run', () => {
  it.each([
    { caller: 'sends no Authorization header', authorization: () => null, message: /Missing or malformed/ },
    {
      caller: 'sends an access token',
      authorization: () => `Bearer ${server.credentials.accessTokens[0]?.token}`,
      message: /invalid or not valid for this API/,
    },
    {
      caller: 'sends a wrong admin key',
      authorization: () => `Bearer ${'x'.repeat(server.credentials.adminKey.length)}`,
      message: /invalid or not valid for this API/,
    },
  ])('answers 401 when the caller $caller', async ({ authorization, message }) => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) }, authorization: authorization() });

    expectError(reply, 401, message);
    expect(await channels.scan()).toEqual([]);
    // Without a header the gateway answers before the authorizer runs, so nothing is logged.
    expectNoSecrets([reply], { ...secretsOf(), logs: authorization() !== null });
  });
});

describe('an unreachable database', () => {
  it('answers 502 for a closed port, at once rather than after the connect timeout', async () => {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${await freePort()})/legacy?timeout=2s`;

    const reply = await callImport(server, { json: { dsn } });

    // "refused", not "timed out": the answer came from the refused connection, not the 2 s timer.
    expectError(reply, 502, /connection was refused/);
    expectNoSecrets([reply], secretsOf());
  });
});
