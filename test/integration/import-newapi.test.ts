import { describe, expect, it } from 'vitest';
import type { StoredChannel } from '#shared/repositories/channels';
import { localChannelId } from '#test/support/channel-ids';
import { callImport, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';
import {
  type ExpectedChannel,
  NEWAPI_EXPECTED_CHANNELS,
  NEWAPI_EXPECTED_ROUTES,
  NEWAPI_FIXTURE_KEYS,
  NEWAPI_FIXTURE_SQL,
} from './newapi-fixture.expected.ts';

// New API's table through HTTP: the local server (the `npm start` code path) and a throwaway MariaDB loaded with
// the GORM-shaped fixture. docs/channel-import.md writes out what these tests expect.

const { db, server, channels } = useImportHarness();

const secretsOf = (extra: readonly string[] = []) => ({
  server,
  mysqlPassword: db.password,
  extra: [...NEWAPI_FIXTURE_KEYS, ...extra],
});

/** The stored form of the expected channels, ignoring the timestamps, sorted like the scan. */
function storedFor(expected: readonly ExpectedChannel[], database: string) {
  return expected
    .map(({ legacyId, ...c }) => ({
      ...c,
      id: localChannelId(server.credentials, legacyId, c.key),
      settings: {},
      source: { legacyId, host: db.host, database },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe('importing the New API fixture through the local server', () => {
  it('detects New API and imports 19 of 20 rows as 23 channels, field by field', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    // The report's items and every channel's settings follow New API's family (docs/channel-import.md, "New API: keys
    // and settings"); test/integration/family-oracle.test.ts pins them field by field on the family's own fixtures.
    expect(expectReport(reply)).toMatchObject({
      dryRun: false,
      source: { host: db.host, port: db.port, database, rows: 20, kind: 'newapi' },
      rows: { imported: 19, skipped: 1 },
      channels: { created: 23, updated: 0, unchanged: 0, edited: 0 },
      itemsTruncated: false,
      routes: NEWAPI_EXPECTED_ROUTES,
    });
    expect(expectReport(reply).items).toContainEqual({
      legacyId: 15,
      outcome: 'skipped',
      reason: 'unknown legacy channel type 58',
    });
    const withoutSettings = (list: readonly StoredChannel[]) => list.map(({ settings: _settings, ...c }) => c);
    expect(withoutSettings(await channels.scan())).toEqual(
      withoutSettings(storedFor(NEWAPI_EXPECTED_CHANNELS, database) as StoredChannel[]),
    );
    expectNoSecrets([reply], secretsOf());
  });

  it('keeps a Vertex AI service account and an AWS ak|sk|region whole, one channel each', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expect(reply.status).toBe(200);
    const byLegacyId = (id: number) => channelsOf(stored, id);
    const stored = await channels.scan();
    const [vertex] = byLegacyId(4);
    expect(byLegacyId(4)).toHaveLength(1);
    // New API keeps the region in `other`: the product's Vertex AI key is region|project_id|<the service account>.
    const key = vertex?.key ?? '';
    expect(JSON.parse(key.slice(key.indexOf('{')))).toMatchObject({
      type: 'service_account',
      project_id: 'fixture-vertex-0004',
    });
    expect(key.slice(key.indexOf('{')).split('\n')).toHaveLength(9);
    expect(byLegacyId(6).map((c) => c.key.split('|').length)).toEqual([3]);
  });

  it('changes nothing on a second run: 0 created, 23 unchanged, the table untouched', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();
    const first = await callImport(server, { json: { dsn: db.dsn(database) } });
    expect(first.status).toBe(200);
    const afterFirst = await channels.scan();

    const second = await callImport(server, { json: { dsn: db.dsn(database) } });

    const data = expectReport(second);
    expect(data.source.kind).toBe('newapi');
    expect(data.rows).toEqual({ imported: 19, skipped: 1 });
    expect(data.channels).toEqual({ created: 0, updated: 0, unchanged: 23, edited: 0 });
    expect(await channels.scan()).toEqual(afterFirst);
    expectNoSecrets([first, second], secretsOf());
  });

  it('reports a dry run of New API like the real import and writes nothing', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } });
    const dry = expectReport(reply);
    expect(await channels.scan()).toEqual([]);
    const real = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));

    expect(dry).toMatchObject({
      dryRun: true,
      source: { database, rows: 20, kind: 'newapi' },
      rows: { imported: 19, skipped: 1 },
      channels: { created: 23, updated: 0, unchanged: 0, edited: 0 },
      routes: NEWAPI_EXPECTED_ROUTES,
    });
    expect({ ...dry, dryRun: false }).toEqual(real);
    expectNoSecrets([reply], secretsOf());
  });
});

describe('which table the import detects', () => {
  const NEWAPI_KEY = 'sk-detect-newapi-0001';

  it("refuses a table whose only column beyond One API's is tag: New API and the hubs share it, so it decides nothing", async () => {
    const database = await db.createDatabase(
      undefined,
      `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` longtext NOT NULL, status bigint,
         name varchar(191), base_url varchar(191) DEFAULT '', models longtext, tag varchar(191));
       INSERT INTO channels (id, type, \`key\`, status, name, base_url, models) VALUES
         (1, 43, '${NEWAPI_KEY}', 1, 'ds', '', 'deepseek-chat');`,
    );
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ success: false, message: expect.stringMatching(/matches no gateway.*tag/) });
    expect(await channels.scan()).toEqual([]);
    expectNoSecrets([reply], secretsOf([NEWAPI_KEY]));
  });

  it.each([
    { column: 'setting', type: 'text' },
    { column: 'auto_ban', type: 'bigint DEFAULT 1' },
    { column: 'status_code_mapping', type: "varchar(1024) DEFAULT ''" },
  ])('reads a table with only the fork column $column as New API (43 is DeepSeek there)', async ({ column, type }) => {
    const database = await db.createDatabase(
      undefined,
      `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` longtext NOT NULL, status bigint,
         name varchar(191), base_url varchar(191) DEFAULT '', models longtext, \`${column}\` ${type});
       INSERT INTO channels (id, type, \`key\`, status, name, base_url, models) VALUES
         (1, 43, '${NEWAPI_KEY}', 1, 'ds', '', 'deepseek-chat');`,
    );
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expect(expectReport(reply).source.kind).toBe('newapi');
    expect(await channels.scan()).toEqual([
      expect.objectContaining({ provider: 'deepseek', legacyType: 43, baseUrl: 'https://api.deepseek.com' }),
    ]);
    expectNoSecrets([reply], secretsOf([NEWAPI_KEY]));
  });

  it('reads a table without fork columns as the legacy gateway (43 is a pass-through proxy there)', async () => {
    const database = await db.createDatabase(
      undefined,
      `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` text, status bigint, name varchar(191),
         base_url varchar(191), models longtext, config longtext);
       INSERT INTO channels VALUES (1, 43, '${NEWAPI_KEY}', 1, 'p', 'https://p.example.com', 'gpt-4o', '');`,
    );
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expect(expectReport(reply).source.kind).toBe('oneapi');
    expect(await channels.scan()).toEqual([expect.objectContaining({ provider: 'proxy', legacyType: 43 })]);
    expectNoSecrets([reply], secretsOf([NEWAPI_KEY]));
  });

  it.each([
    { legacyColumn: 'config', type: 'longtext' },
    { legacyColumn: 'system_prompt', type: 'text' },
  ])(
    'reads a One API table upgraded in place by New API (fork columns beside $legacyColumn) as New API',
    async ({ legacyColumn, type }) => {
      const forkKey = 'sk-fork-gateway-0001';
      const database = await db.createDatabase(
        undefined,
        `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` text, status bigint, name varchar(191),
           base_url varchar(191), models longtext, tag varchar(30), setting text, \`${legacyColumn}\` ${type});
         INSERT INTO channels VALUES (1, 43, '${forkKey}', 1, 'fork', '', 'deepseek-chat', '', '{}', '');`,
      );
      await channels.clear();

      const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

      // New API's numbers are the ones such a gateway uses now: 43 is DeepSeek there, a pass-through proxy in One API.
      expect(expectReport(reply).source.kind).toBe('newapi');
      expect(await channels.scan()).toEqual([expect.objectContaining({ provider: 'deepseek', legacyType: 43 })]);
      expectNoSecrets([reply], secretsOf([forkKey]));
    },
  );
});

function channelsOf(stored: readonly StoredChannel[], legacyId: number): StoredChannel[] {
  return stored.filter((c) => c.source.legacyId === legacyId);
}
