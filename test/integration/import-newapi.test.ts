import { describe, expect, it } from 'vitest';
import { channelId } from '#functions/import-legacygw/mapping';
import type { StoredChannel } from '#shared/repositories/channels';
import { callImport, expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';
import {
  type ExpectedChannel,
  NEWAPI_EXPECTED_CHANNELS,
  NEWAPI_EXPECTED_ITEMS,
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
      id: channelId(c.provider, c.baseUrl, c.key),
      source: { legacyId, host: db.host, database },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe('importing the New API fixture through the local server', () => {
  it('detects New API and imports 18 of 20 rows as 22 channels, field by field', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expect(expectReport(reply)).toEqual({
      dryRun: false,
      source: { host: db.host, port: db.port, database, rows: 20, kind: 'newapi' },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 22, updated: 0, unchanged: 0, edited: 0 },
      items: NEWAPI_EXPECTED_ITEMS,
      itemsTruncated: false,
      routes: NEWAPI_EXPECTED_ROUTES,
    });
    expect(await channels.scan()).toEqual(storedFor(NEWAPI_EXPECTED_CHANNELS, database));
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
    expect(JSON.parse(vertex?.key ?? '')).toMatchObject({ type: 'service_account', project_id: 'fixture-vertex-0004' });
    expect(vertex?.key.split('\n')).toHaveLength(9);
    expect(byLegacyId(6).map((c) => c.key.split('|').length)).toEqual([3]);
  });

  it('changes nothing on a second run: 0 created, 22 unchanged, the table untouched', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();
    const first = await callImport(server, { json: { dsn: db.dsn(database) } });
    expect(first.status).toBe(200);
    const afterFirst = await channels.scan();

    const second = await callImport(server, { json: { dsn: db.dsn(database) } });

    const data = expectReport(second);
    expect(data.source.kind).toBe('newapi');
    expect(data.rows).toEqual({ imported: 18, skipped: 2 });
    expect(data.channels).toEqual({ created: 0, updated: 0, unchanged: 22, edited: 0 });
    expect(await channels.scan()).toEqual(afterFirst);
    expectNoSecrets([first, second], secretsOf());
  });

  it('reports a dry run of New API like the real import and writes nothing', async () => {
    const database = await db.createDatabase(undefined, NEWAPI_FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } });

    expect(expectReport(reply)).toMatchObject({
      dryRun: true,
      source: { database, rows: 20, kind: 'newapi' },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 22, updated: 0, unchanged: 0, edited: 0 },
      items: NEWAPI_EXPECTED_ITEMS,
      routes: NEWAPI_EXPECTED_ROUTES,
    });
    expect(await channels.scan()).toEqual([]);
    expectNoSecrets([reply], secretsOf());
  });
});

describe('which table the import detects', () => {
  const NEWAPI_KEY = 'sk-detect-newapi-0001';

  it.each([
    { column: 'tag', type: 'varchar(191)' },
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

    expect(expectReport(reply).source.kind).toBe('legacygw');
    expect(await channels.scan()).toEqual([expect.objectContaining({ provider: 'proxy', legacyType: 43 })]);
    expectNoSecrets([reply], secretsOf([NEWAPI_KEY]));
  });

  it.each([
    { legacyColumn: 'config', type: 'longtext' },
    { legacyColumn: 'system_prompt', type: 'text' },
  ])(
    'refuses a table with fork columns and the legacy-only column $legacyColumn, and imports nothing',
    async ({ legacyColumn, type }) => {
      const forkKey = 'sk-fork-gateway-0001';
      const database = await db.createDatabase(
        undefined,
        `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` text, status bigint, name varchar(191),
           base_url varchar(191), models longtext, tag varchar(30), setting text, \`${legacyColumn}\` ${type});
         INSERT INTO channels VALUES (1, 1, '${forkKey}', 1, 'fork', '', 'gpt-4o', 'prod', '{}', '');`,
      );
      await channels.clear();

      const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

      expectError(
        reply,
        400,
        new RegExp(`fork of the legacy gateway \\(tag, setting\\) and columns New API never had \\(${legacyColumn}\\)`),
      );
      expect(await channels.scan()).toEqual([]);
      expectNoSecrets([reply], secretsOf([forkKey]));
    },
  );
});

function channelsOf(stored: readonly StoredChannel[], legacyId: number): StoredChannel[] {
  return stored.filter((c) => c.source.legacyId === legacyId);
}
