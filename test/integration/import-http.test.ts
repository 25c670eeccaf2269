import { describe, expect, it } from 'vitest';
import type { ChannelView } from '#shared/channel-view';
import { freePort } from '#test/support/mariadb';
import { channelPath } from './channel-review.helpers.ts';
import { FIXTURE_SQL } from './import.helpers.ts';
import {
  type Exchange,
  expectData,
  expectError,
  expectNoSecrets,
  expectReport,
  useImportHarness,
} from './import-http.helpers.ts';

// docs/channel-import.md through HTTP: the local server runs the real authorizer and import handler.

const { db, server, channels, callImport, callProxy } = useImportHarness();

const secretsOf = (extra: readonly string[] = []) => ({ server, mysqlPassword: db.password, extra });

describe('importing the legacy gateway fixture through the local server', () => {
  it('answers 200 with the import report of docs/channel-import.md: 20 rows, 18 imported as 21 channels, 2 skipped', async () => {
    // The DSN grammar is the point: a non-root user whose password holds every delimiter of the Go form.
    expect(db.user).not.toBe('root');
    expect(db.password).toMatch(/@.*:.*\/.*\(.*\)/);
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport({ json: { dsn: db.dsn(database) } });

    const data = expectReport(reply);
    expect(data).toEqual({
      dryRun: false,
      source: { host: db.host, port: db.port, database, rows: 20, kind: 'oneapi' },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
      items: expect.any(Array),
      itemsTruncated: false,
      routes: expect.objectContaining({ total: 28, kept: 27, changed: 1, lost: 0 }),
      // Channels of providers the relay cannot serve yet, named per provider (docs/relay.md, "Providers").
      notServable: expect.arrayContaining([expect.objectContaining({ provider: 'xunfei', channels: 1 })]),
      notes: [
        expect.stringMatching(/^3 enabled channels are of a provider the relay cannot serve yet: cloudflare \(1\)/),
      ],
    });
    expect(data.items.filter((i) => i.outcome === 'skipped')).toEqual([
      { legacyId: 17, outcome: 'skipped', reason: 'unknown legacy channel type 999' },
      { legacyId: 19, outcome: 'skipped', reason: 'identical to legacy channel 1' },
    ]);
    expect(data.items).toEqual(
      expect.arrayContaining([
        { legacyId: 12, outcome: 'imported', channels: 1, warnings: ['model mapping not imported'] },
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
    expect(reply.output).toContain('Import finished');
    expectNoSecrets([reply], secretsOf());
  });

  it('creates nothing on a second run: 0 created, 21 unchanged, the table untouched', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    const first = await callImport({ json: { dsn: db.dsn(database) } });
    expect(first.status).toBe(200);
    const afterFirst = await channels.scan();

    const second = await callImport({ json: { dsn: db.dsn(database) } });

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

    const reply = await callImport({ json: { dsn: db.dsn(database), dryRun: true } });

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
    const reply = await callImport(request);

    expectError(reply, 400, message);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a malformed DSN without repeating it', async () => {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${db.port})`;

    const reply = await callImport({ json: { dsn } });

    expectError(reply, 400, /^DSN has no database name/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects ?allowAllFiles=true, naming the parameter', async () => {
    const dsn = db.dsn('legacy', { params: 'allowAllFiles=true' });

    const reply = await callImport({ json: { dsn } });

    expectError(reply, 400, /allowAllFiles is not supported/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects ?multiStatements=true, naming the parameter', async () => {
    const dsn = db.dsn('legacy', { params: 'charset=utf8mb4&multiStatements=true' });

    const reply = await callImport({ json: { dsn } });

    expectError(reply, 400, /multiStatements is not supported/);
    expectNoSecrets([reply], secretsOf());
  });

  it('refuses a link-local host (the cloud metadata endpoint)', async () => {
    const dsn = `${db.user}:${db.password}@tcp(169.254.169.254:3306)/legacy?timeout=1s`;

    const reply = await callImport({ json: { dsn } });

    expectError(reply, 400, /link-local/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a wrong MySQL password without repeating either password', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    const wrong = 'Wr0ng@pa:ss/(x)';

    const reply = await callImport({ json: { dsn: db.dsn(database, { password: wrong }) } });

    expectError(reply, 400, /denied access/);
    expectNoSecrets([reply], secretsOf([wrong]));
  });

  it('rejects an unknown database', async () => {
    const reply = await callImport({ json: { dsn: db.dsn(`missing_${Date.now()}`) } });

    expectError(reply, 400, /does not exist/);
    expectNoSecrets([reply], secretsOf());
  });

  it('rejects a database without a channels table', async () => {
    const database = await db.createDatabase(undefined, 'CREATE TABLE users (id bigint PRIMARY KEY)');

    const reply = await callImport({ json: { dsn: db.dsn(database) } });

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

    const reply = await callImport({ json: { dsn: db.dsn(database) }, authorization: authorization() });

    expectError(reply, 401, message);
    expect(await channels.scan()).toEqual([]);
    // Without a header the gateway answers before the authorizer runs, so nothing is logged.
    expectNoSecrets([reply], { ...secretsOf(), logs: authorization() !== null });
  });
});

describe('an unreachable database', () => {
  it('answers 502 for a closed port, at once rather than after the connect timeout', async () => {
    const dsn = `${db.user}:${db.password}@tcp(127.0.0.1:${await freePort()})/legacy?timeout=2s`;

    const reply = await callImport({ json: { dsn } });

    // "refused", not "timed out": the answer came from the refused connection, not the 2 s timer.
    expectError(reply, 502, /connection was refused/);
    expectNoSecrets([reply], secretsOf());
  });
});

// Review-and-fix through HTTP, then a re-import: the import respects what an operator corrected.
describe('edits survive a re-import of the legacy gateway fixture', () => {
  it('keeps two edits, creates the deleted channel again, and reports edited 2, created 1, unchanged 18', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    const exchanges: Exchange[] = [];
    const proxy = async (method: string, path: string, json?: unknown) => {
      const exchange = await callProxy({ method, path, json });
      exchanges.push(exchange);
      return exchange;
    };
    const importOnce = async (dryRun: boolean) => {
      const exchange = await callImport({ json: { dsn: db.dsn(database), dryRun } });
      exchanges.push(exchange);
      return expectReport(exchange);
    };
    expect((await importOnce(false)).channels).toEqual({ created: 21, updated: 0, unchanged: 0, edited: 0 });
    const listed = expectData<{ channels: ChannelView[]; total: number }>(
      await proxy('GET', '/api/channels/?per_page=100'),
    );
    expect(listed.total).toBe(21);
    const [modelsEdited, statusEdited, deleted] = listed.channels.filter((c) => c.status === 'enabled');
    if (!modelsEdited || !statusEdited || !deleted) throw new Error('the fixture has fewer than 3 enabled channels');

    const editedModels = expectData<ChannelView>(
      await proxy('PUT', channelPath(modelsEdited.id), { models: ['reviewed-model-a', 'reviewed-model-b'] }),
    );
    const editedStatus = expectData<ChannelView>(
      await proxy('PUT', channelPath(statusEdited.id), { status: 'disabled' }),
    );
    expect(expectData(await proxy('DELETE', channelPath(deleted.id)))).toBeNull();
    const beforeReimport = await channels.scan();

    const dryRun = await importOnce(true);
    const afterDryRun = await channels.scan();
    const report = await importOnce(false);

    expect(dryRun.channels).toEqual({ created: 1, updated: 0, unchanged: 18, edited: 2 });
    expect(afterDryRun).toEqual(beforeReimport);
    expect(report.channels).toEqual({ created: 1, updated: 0, unchanged: 18, edited: 2 });
    const detail = async (id: string) => expectData<ChannelView>(await proxy('GET', channelPath(id)));
    expect(await detail(modelsEdited.id)).toEqual(editedModels);
    expect(await detail(statusEdited.id)).toEqual(editedStatus);
    expect(editedModels.models).toEqual(['reviewed-model-a', 'reviewed-model-b']);
    expect(editedStatus.status).toBe('disabled');
    const back = await detail(deleted.id);
    expect(back).toMatchObject({ ...deleted, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(back.editedAt).toBeNull();
    expect(await channels.scan()).toHaveLength(21);
    expectNoSecrets(exchanges, { server, mysqlPassword: db.password });
  });

  it('answers 404 for a channel deleted twice and leaves the next import to create it once', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    expectReport(await callImport({ json: { dsn: db.dsn(database) } }));
    const [first] = await channels.scan();
    await callProxy({ method: 'DELETE', path: channelPath(first!.id) });

    const again = await callProxy({ method: 'DELETE', path: channelPath(first!.id) });
    const report = expectReport(await callImport({ json: { dsn: db.dsn(database) } }));

    expectError(again, 404, /^No channel has this id$/);
    expect(report.channels).toEqual({ created: 1, updated: 0, unchanged: 20, edited: 0 });
  });
});
