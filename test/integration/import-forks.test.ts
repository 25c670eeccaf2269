import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '#functions/import-legacygw/report';
import { callImport, callProxy, expectError, expectReport, useImportHarness } from './import-http.helpers.ts';
import { ROWS_PATH, tableAsRows } from './import-rows.helpers.ts';

// docs/channel-import.md, "Forks": a table with columns no version of its family has is refused naming only those
// columns, for every family; the operator may then name the family, and each row's warnings name the fork's columns
// that hold a value. Veloera's table is written from its model/channel.go (test/fixtures/forks/veloera-channels.sql).

const { db, server, channels } = useImportHarness();

const VELOERA = readFileSync(new URL('../fixtures/forks/veloera-channels.sql', import.meta.url), 'utf8');

// Two One API forks seen in the wild: a rate and limits per channel; a concurrency cap, a rate limit and the last error.
const ONEAPI_COLUMNS = `id bigint PRIMARY KEY, type bigint DEFAULT 0, \`key\` longtext NOT NULL, status bigint DEFAULT 1,
  name varchar(191), weight bigint unsigned DEFAULT 0, created_time bigint, test_time bigint, response_time bigint,
  base_url varchar(191) DEFAULT '', other longtext, balance double, balance_updated_time bigint, models longtext,
  \`group\` varchar(32) DEFAULT 'default', used_quota bigint DEFAULT 0, model_mapping varchar(1024) DEFAULT '',
  priority bigint DEFAULT 0, config longtext, system_prompt text`;
const RATE_FORK = `CREATE TABLE channels (${ONEAPI_COLUMNS}, exchange_rate double DEFAULT 0, \`limits\` text);
  INSERT INTO channels (id, type, \`key\`, status, name, models, \`group\`, exchange_rate, \`limits\`) VALUES
    (1, 1, 'sk-fork-rate-0001', 1, 'rated', 'gpt-4o', 'default', 7.2, NULL),
    (2, 1, 'sk-fork-rate-0002', 1, 'plain', 'gpt-4o-mini', 'default', 0, '{}');`;
const RPM_FORK = `CREATE TABLE channels (${ONEAPI_COLUMNS}, max_concurrency bigint DEFAULT 0, rpm bigint DEFAULT 0,
    last_error text);
  INSERT INTO channels (id, type, \`key\`, status, name, models, max_concurrency, rpm, last_error) VALUES
    (1, 1, 'sk-fork-rpm-0001', 1, 'capped', 'gpt-4o', 4, 60, 'upstream 429');`;
const PLAIN = `CREATE TABLE channels (${ONEAPI_COLUMNS});
  INSERT INTO channels (id, type, \`key\`, status, name, models) VALUES (1, 1, 'sk-plain-oneapi-0001', 1, 'a', 'gpt-4o');`;
// One Hub's table with a column of no One Hub version.
const HUB_FORK = `CREATE TABLE channels (${ONEAPI_COLUMNS}, proxy varchar(191), deleted_at datetime, region_lock text);
  INSERT INTO channels (id, type, \`key\`, status, name, models, region_lock) VALUES
    (1, 1, 'sk-fork-hub-0001', 1, 'hub', 'gpt-4o', 'eu');`;

/**
 * Asserts the report of a fork read as the family `kind`: every row imported, none skipped, and one item, row 1's
 * single channel with `warnings`; the routes name `unreadColumns`.
 */
function expectForkRead(
  report: ImportReport,
  expected: { kind: string; imported: number; warnings: string[]; unreadColumns: string[] },
): void {
  expect(report.source.kind).toBe(expected.kind);
  expect(report.rows).toEqual({ imported: expected.imported, skipped: 0 });
  expect(report.items).toEqual([{ legacyId: 1, outcome: 'imported', channels: 1, warnings: expected.warnings }]);
  expect(report.routes.unreadColumns).toEqual(expected.unreadColumns);
}

async function importOf(sql: string, body: Record<string, unknown>) {
  const database = await db.createDatabase(undefined, sql);
  await channels.clear();
  return { database, reply: await callImport(server, { json: { dsn: db.dsn(database), ...body } }) };
}

describe('a table with columns no version of its family has', () => {
  it.each([
    ['a One API fork with exchange_rate and limits', RATE_FORK, "One API's", 'exchange_rate, limits', 'oneapi'],
    [
      'a One API fork with max_concurrency, rpm and last_error',
      RPM_FORK,
      "One API's",
      'last_error, max_concurrency, rpm',
      'oneapi',
    ],
    ['a New API fork (Veloera) with model_prefix', VELOERA, "New API's", 'model_prefix', 'newapi'],
    ['a One Hub fork with a column of its own', HUB_FORK, "One Hub's", 'region_lock', 'onehub'],
  ])('refuses %s, naming only those columns and how to choose the family', async (_, sql, family, columns, kind) => {
    const { reply } = await importOf(sql, { dryRun: true });

    expectError(reply, 400, new RegExp(`looks like ${family}, but no version of .+ has column\\(s\\) ${columns}:`));
    const message = (reply.body as { message: string }).message;
    expect(message).toContain(`"family": "${kind}"`);
    expect(message).not.toMatch(/\bmodels\b|base_url|used_quota/);
    expect(await channels.scan()).toEqual([]);
  });

  it('imports a One API fork read as One API when asked, warning on each row whose fork columns hold a value', async () => {
    const { reply } = await importOf(RATE_FORK, { family: 'oneapi' });

    expectForkRead(expectReport(reply), {
      kind: 'oneapi',
      imported: 2,
      warnings: ['not read (columns no version of One API has): exchange_rate'],
      unreadColumns: ['exchange_rate'],
    });
    expect(await channels.scan()).toHaveLength(2);
  });

  it('imports Veloera read as New API through both routes, naming model_prefix on the prefixed row and in the routes', async () => {
    const { database, reply } = await importOf(VELOERA, { family: 'newapi', dryRun: true });
    const viaRows = await callProxy(server, {
      method: 'POST',
      path: ROWS_PATH,
      json: { ...(await tableAsRows(db, database)), family: 'newapi', dryRun: true },
    });

    for (const report of [expectReport(reply), expectReport(viaRows)]) {
      expectForkRead(report, {
        kind: 'newapi',
        imported: 3,
        warnings: [
          'not read (columns no version of New API has): model_prefix',
          'key holds commas: New API reads it as one key, a fork may mean several',
        ],
        // Its routes may be prefixed: the report never claims that no route is lost without saying so.
        unreadColumns: ['model_prefix'],
      });
    }
  });

  it('refuses a family that is not one of the four', async () => {
    const { reply } = await importOf(RATE_FORK, { family: 'veloera' });

    expectError(reply, 400, /family must be one of "oneapi", "newapi", "onehub", "donehub"/);
  });

  it('leaves a table of a known version untouched by the choice: no warning, no unread columns', async () => {
    const { reply } = await importOf(PLAIN, { family: 'oneapi', dryRun: true });

    const report = expectReport(reply);
    expect(report.items).toEqual([]);
    expect(report.routes.unreadColumns).toBeUndefined();
  });
});

describe('a SQLite file\'s rows (docs/channel-import.md, "Rows sent by a client")', () => {
  it("records the file's name as the source of the report and of each channel", async () => {
    await channels.clear();
    const table = {
      columns: ['id', 'type', 'key', 'status', 'base_url', 'models'],
      rows: [[1, 1, 'sk-file-0001', 1, '', 'gpt-4o']],
    };

    const reply = await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { ...table, file: 'one-api.db' } });

    expect(expectReport(reply).source).toMatchObject({ host: '', port: 0, database: 'one-api.db' });
    expect((await channels.scan()).map((c) => c.source)).toEqual([{ legacyId: 1, host: '', database: 'one-api.db' }]);
  });

  it('refuses a file name with a directory', async () => {
    const reply = await callProxy(server, {
      method: 'POST',
      path: ROWS_PATH,
      json: { columns: ['id'], rows: [], file: '/home/me/one-api.db' },
    });

    expectError(reply, 400, /file must be a file name, without a directory/);
  });
});

describe('a table whose columns also fit an older version of another gateway (docs/channel-import.md, "Ambiguity")', () => {
  const V05 = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'];

  it("reads One API's v0.5 columns as One API's and says once that One Hub v0.5.8 numbers these rows' types differently", async () => {
    const rows = [
      [1, 1, 'sk-ambiguous-0001', 1, 'openai', '', 'gpt-4o', 'default'],
      [2, 24, 'sk-ambiguous-0002', 1, 'gemini', '', 'gemini-pro', 'default'],
      [3, 25, 'sk-ambiguous-0003', 1, 'other', '', 'm', 'default'],
    ];

    const report = expectReport(
      await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns: V05, rows, dryRun: true } }),
    );

    expect(report.source.kind).toBe('oneapi');
    expect(report.notes).toEqual([
      'The table\'s columns are also those of an older One Hub, which reads the type of 2 row(s) differently (types 24, 25). It was read as One API\'s; if One Hub wrote it, import it again with "family": "onehub".',
    ]);
  });

  it('says nothing when every row reads the same in both', async () => {
    const rows = [[1, 1, 'sk-unambiguous-0001', 1, 'openai', '', 'gpt-4o', 'default']];

    const report = expectReport(
      await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns: V05, rows, dryRun: true } }),
    );

    expect(report.notes).toBeUndefined();
  });
});
