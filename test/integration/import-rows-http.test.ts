import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openChannelsFile } from '#functions/console/page/sqlite/channels-file';
import { callsOf, sumReports } from '#shared/import-rows';
import type { ImportReport } from '#shared/schemas/import-report';
import { SQLITE_FIXTURES, type SqliteFixture, writeSqliteFixture } from '#test/support/sqlite-fixtures';
import { useTempDir } from '#test/support/temp-dir';
import { loadSqlite, openFileReader } from '../../scripts/import-sqlite/node-file.ts';
import { expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';
import { comparable, ROWS_PATH, tableAsRows } from './import-rows.helpers.ts';

// docs/channel-import.md, "Rows sent by a client": a table sent as rows imports exactly as the same table read from
// MariaDB. Each family fixture is loaded into MariaDB, imported through the DSN route, then sent through the rows
// route as a client that read it from SQLite sends it; the reports are equal apart from `source`, the channels apart
// from where and when they were written.

const { db, server, channels, callImport, callProxy } = useImportHarness();

const FIXTURES = readdirSync(new URL('../fixtures/', import.meta.url))
  .filter((name) => name.endsWith('.sql') && !/\.(pg|sqlite)\.sql$/.test(name))
  .sort();
const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

const withoutSource = ({ source, ...report }: ImportReport) => ({
  ...report,
  source: { rows: source.rows, kind: source.kind },
});

async function importBothWays(database: string, dryRun: boolean) {
  await channels.clear();
  const viaDsn = await callImport({ json: { dsn: db.dsn(database), dryRun } });
  const dsnChannels = (await channels.scan()).map(comparable);
  await channels.clear();
  const table = await tableAsRows(db, database);
  const viaRows = await callProxy({ method: 'POST', path: ROWS_PATH, json: { ...table, dryRun } });
  const rowsChannels = (await channels.scan()).map(comparable);
  return { viaDsn, viaRows, dsnChannels, rowsChannels, table };
}

// A One API table with one value over each limit, a name past 64 characters and multi-byte values on both sides of
// a byte limit: the rows route must skip exactly the rows the SQL's OCTET_LENGTH check skips, with the same reasons.
const LIMITS_TABLE = `CREATE TABLE channels (
  id bigint PRIMARY KEY, type bigint, \`key\` longtext, status bigint, name varchar(191),
  base_url longtext, models longtext, \`group\` longtext, model_mapping longtext, priority bigint,
  config longtext, other longtext);
INSERT INTO channels (id, type, \`key\`, status, name, base_url, models, \`group\`, config) VALUES
  (1, 1, 'sk-rows-limit-1', 1, 'plain', '', 'gpt-4o', 'default', ''),
  (2, 1, REPEAT('k', 1048577), 1, 'key over', '', 'gpt-4o', 'default', ''),
  (3, 1, 'sk-rows-limit-3', 1, 'url over', CONCAT('https://', REPEAT('u', 2048)), 'gpt-4o', 'default', ''),
  (4, 1, 'sk-rows-limit-4', 1, 'models over', '', REPEAT('m,', 16385), 'default', ''),
  (5, 1, 'sk-rows-limit-5', 1, 'group over', '', 'gpt-4o', REPEAT('g', 65537), ''),
  (6, 1, 'sk-rows-limit-6', 1, 'config over', '', 'gpt-4o', 'default', REPEAT('c', 65537)),
  (7, 1, 'sk-rows-limit-7', 1, REPEAT('名', 70), '', 'gpt-4o', 'default', ''),
  (8, 1, 'sk-rows-limit-8', 1, 'euro over', CONCAT('https://', REPEAT('€', 681)), 'gpt-4o', 'default', ''),
  (9, 1, 'sk-rows-limit-9', 1, 'euro within', CONCAT('https://', REPEAT('€', 680)), 'gpt-4o', 'default', ''),
  (10, 1, 'sk-rows-limit-10', 1, 'astral within', '', REPEAT('😀,', 6553), 'default', ''),
  (11, 1, 'sk-rows-limit-11', 1, 'astral over', '', REPEAT('😀,', 6554), 'default', '');`;

describe('POST /api/channels/import/rows gives what the MariaDB import gives', () => {
  it.each(FIXTURES)('imports %s to the same report and channels', async (name) => {
    const database = await db.createDatabase(undefined, fixture(name));

    const preview = await importBothWays(database, true);
    const run = await importBothWays(database, false);

    expect(withoutSource(expectReport(preview.viaRows))).toEqual(withoutSource(expectReport(preview.viaDsn)));
    expect(withoutSource(expectReport(run.viaRows))).toEqual(withoutSource(expectReport(run.viaDsn)));
    expect(expectReport(run.viaRows).source).toEqual({
      host: '',
      port: 0,
      database: '',
      rows: run.table.rows.length,
      kind: expectReport(run.viaDsn).source.kind,
    });
    expect(run.rowsChannels.length).toBeGreaterThan(0);
    expect(run.rowsChannels).toEqual(run.dsnChannels);
    expect(preview.rowsChannels).toEqual([]);
    expectNoSecrets([preview.viaRows, run.viaRows], { server });
  });

  it('skips the rows over a limit with the reasons the SQL check gives, bytes counted as UTF-8', async () => {
    const database = await db.createDatabase(undefined, LIMITS_TABLE);

    const run = await importBothWays(database, false);

    const report = expectReport(run.viaRows);
    expect(withoutSource(report)).toEqual(withoutSource(expectReport(run.viaDsn)));
    expect(
      report.items.filter((i) => i.outcome === 'skipped').map((i) => [i.legacyId, 'reason' in i && i.reason]),
    ).toEqual([
      [2, 'key over 1 MiB'],
      [3, 'base_url over 2 KiB'],
      [4, 'models over 32 KiB'],
      [5, 'group over 64 KiB'],
      [6, 'config over 64 KiB'],
      [8, 'base_url over 2 KiB'],
      [11, 'models over 32 KiB'],
    ]);
    expect(run.rowsChannels).toEqual(run.dsnChannels);
    expect(run.rowsChannels.find((c) => c.legacyId === 7)?.name).toBe('名'.repeat(64));
  });

  it('imports a table sent in several calls to the same channels, and the summed report counts every row once', async () => {
    const database = await db.createDatabase(undefined, fixture('newapi-channels.sql'));
    const table = await tableAsRows(db, database);
    await channels.clear();
    const whole = expectReport(await callImport({ json: { dsn: db.dsn(database) } }));
    const expected = (await channels.scan()).map(comparable);
    await channels.clear();

    const reports: ImportReport[] = [];
    for (const call of callsOf(table.columns, table.rows, { dryRun: false, limits: { rows: 3 } })) {
      reports.push(expectReport(await callProxy({ method: 'POST', path: ROWS_PATH, json: call })));
    }
    const summed = sumReports(reports);

    expect(reports.length).toBe(Math.ceil(table.rows.length / 3));
    expect((await channels.scan()).map(comparable)).toEqual(expected);
    expect(summed.source.rows).toBe(whole.source.rows);
    expect(summed.rows).toEqual(whole.rows);
    expect(summed.channels).toEqual(whole.channels);
    expect([...summed.items].sort(byLegacyId)).toEqual([...whole.items].sort(byLegacyId));
    expect(summed.routes.lost + summed.routes.changed).toBe(whole.routes.lost + whole.routes.changed);
  });
});

describe('a SQLite file read as the console and the terminal read it, sent through the rows route', () => {
  const dir = useTempDir('rows-sqlite-');

  it.each<SqliteFixture>(SQLITE_FIXTURES)(
    'imports the GORM SQLite form of %s to the channels of its MySQL form',
    async (name) => {
      const database = await db.createDatabase(undefined, fixture(`${name}.sql`));
      await channels.clear();
      const viaDsn = expectReport(await callImport({ json: { dsn: db.dsn(database) } }));
      const expected = (await channels.scan()).map(comparable);
      await channels.clear();
      const path = join(dir(), `${name}.db`);
      await writeSqliteFixture(name, path);

      const reader = openFileReader(path);
      const file = openChannelsFile(await loadSqlite(), reader);
      const reports: ImportReport[] = [];
      try {
        const rows = [...file.batches()].flat();
        for (const call of callsOf(file.columns(), rows, { dryRun: false })) {
          reports.push(expectReport(await callProxy({ method: 'POST', path: ROWS_PATH, json: call })));
        }
      } finally {
        file.close();
        reader.close();
      }

      expect(reports).toHaveLength(1);
      expect(withoutSource(reports[0] as ImportReport)).toEqual(withoutSource(viaDsn));
      expect((await channels.scan()).map(comparable)).toEqual(expected);
    },
  );

  it('skips a row whose value the reader left unread as the oversize marker, with the reason of the SQL check', async () => {
    await channels.clear();
    const columns = ['id', 'type', 'key', 'status', 'base_url', 'models', 'group', 'config'];
    const rows = [
      [1, 1, { oversizeBytes: 2 * 1024 * 1024 }, 1, '', 'gpt-4o', 'default', ''],
      [2, 1, 'sk-rows-marker-2', 1, '', 'gpt-4o', 'default', { oversizeBytes: 70_000 }],
      [3, 1, 'sk-rows-marker-3', 1, '', 'gpt-4o', 'default', ''],
    ];

    const report = expectReport(await callProxy({ method: 'POST', path: ROWS_PATH, json: { columns, rows } }));

    expect(report.items).toEqual([
      { legacyId: 1, outcome: 'skipped', reason: 'key over 1 MiB' },
      { legacyId: 2, outcome: 'skipped', reason: 'config over 64 KiB' },
    ]);
    expect((await channels.scan()).map((c) => c.source.legacyId)).toEqual([3]);
  });
});

const byLegacyId = (a: { legacyId: number | string }, b: { legacyId: number | string }) =>
  String(a.legacyId).localeCompare(String(b.legacyId), 'en', { numeric: true });

describe('POST /api/channels/import/rows refuses what it cannot import, in the proxy envelope', () => {
  it('refuses a body over 5 MiB with 413 and writes nothing', async () => {
    await channels.clear();
    const big = 'k'.repeat(5 * 1024 * 1024);

    const reply = await callProxy({
      method: 'POST',
      path: ROWS_PATH,
      json: { columns: ['id', 'type', 'key', 'status', 'base_url', 'models'], rows: [[1, 1, big, 1, '', 'm']] },
    });

    expectError(reply, 413, /at most 5 MiB .*several calls/);
    expect(await channels.scan()).toEqual([]);
  });

  it('refuses more than 5,000 rows with 413 naming the count', async () => {
    const rows = Array.from({ length: 5_001 }, (_, i) => [i + 1, 1, `sk-${i}`, 1, '', 'm']);

    const reply = await callProxy({
      method: 'POST',
      path: ROWS_PATH,
      json: { columns: ['id', 'type', 'key', 'status', 'base_url', 'models'], rows },
    });

    expectError(reply, 413, /5001 rows; .*at most 5,000 rows/);
  });

  it.each([
    [
      'a table of no gateway it knows',
      { columns: ['id', 'type', 'key', 'status', 'base_url', 'models', 'tag'], rows: [] },
      /matches (no|more than one) gateway/,
    ],
    [
      'a table without a required column',
      { columns: ['id', 'type', 'key'], rows: [] },
      /lacks required column\(s\): status, base_url, models/,
    ],
    [
      'a value that is an object',
      { columns: ['id'], rows: [[{}]] },
      /rows\[0\]\[0\]: a value must be text, a number or null/,
    ],
    [
      'a short row',
      { columns: ['id', 'key'], rows: [[1, 'k'], [2]] },
      /rows\[1\]: every row must hold exactly one value per column/,
    ],
    ['a column named twice', { columns: ['id', 'ID'], rows: [] }, /each column once/],
  ])('answers 400 for %s', async (_, json, message) => {
    expectError(await callProxy({ method: 'POST', path: ROWS_PATH, json }), 400, message);
  });

  it('answers 401 without the admin key and writes nothing', async () => {
    await channels.clear();
    const database = await db.createDatabase(undefined, fixture('oneapi-channels.sql'));
    const table = await tableAsRows(db, database);

    const reply = await callProxy({
      method: 'POST',
      path: ROWS_PATH,
      json: table,
      authorization: `Bearer ${server.credentials.accessTokens[0]!.token}`,
    });

    expect(reply.status).toBe(401);
    expect(await channels.scan()).toEqual([]);
  });
});
