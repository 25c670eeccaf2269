import { describe, expect, it } from 'vitest';
import { importDeps, runImport, useImportEngines } from './import.helpers.ts';

// docs/channel-import.md, "Limits" and "Skip reasons and warnings": one row over each limit is skipped with a reason
// naming the field and the limit, its value never transferred; the other rows import, and the dry run says exactly
// what the import does.

const { db, dynamo } = useImportEngines();

// One API's newest columns (test/fixtures/legacygw-channels.sql); `id` as varchar so the ids a real table cannot hold
// in a bigint (text, negative, above 2^53) can be tried too.
const TABLE = `CREATE TABLE channels (
  id varchar(40) PRIMARY KEY, type bigint, \`key\` longtext, status bigint, name varchar(191),
  base_url longtext, models longtext, \`group\` longtext, model_mapping longtext, priority bigint,
  config longtext, other longtext, system_prompt longtext)`;

const OK = (id: string, extra: Record<string, string> = {}) => ({
  id,
  key: `'sk-limits-${id.replace(/\W/g, '')}'`,
  base_url: "''",
  models: "'gpt-4o'",
  group: "'default'",
  config: "''",
  ...extra,
});

const ROWS: ReadonlyArray<readonly [reason: string | null, row: ReturnType<typeof OK>]> = [
  [null, OK('1')],
  ['key over 1 MiB', OK('2', { key: "REPEAT('k', 1048577)" })],
  ['base_url over 2 KiB', OK('3', { base_url: "CONCAT('https://', REPEAT('u', 2048))" })],
  ['models over 32 KiB', OK('4', { models: "REPEAT('m,', 16385)" })],
  ['group over 64 KiB', OK('5', { group: "REPEAT('g', 65537)" })],
  ['config over 64 KiB', OK('6', { config: "REPEAT('c', 65537)" })],
  ['a key over 16 KiB', OK('7', { key: "REPEAT('k', 16385)" })],
  [
    'more than 1,000 keys',
    OK('8', { key: "(SELECT GROUP_CONCAT(CONCAT('sk-', seq) SEPARATOR '\\n') FROM seq_1_to_1001)" }),
  ],
  ['more than 1,000 models', OK('9', { models: '(SELECT GROUP_CONCAT(seq) FROM seq_1_to_1001)' })],
  ['a model name over 256 characters', OK('10', { models: "REPEAT('n', 257)" })],
  [null, OK('not-a-number')],
  [null, OK('-5')],
  [null, OK('9007199254740993')],
];

async function limitsTable() {
  const database = await db.createDatabase(undefined, `${TABLE};`);
  for (const [, row] of ROWS) {
    await db.query(
      `INSERT INTO \`${database}\`.channels (id, type, \`key\`, status, name, base_url, models, \`group\`, config)
       VALUES ('${row.id}', 1, ${row.key}, 1, 'c${row.id}', ${row.base_url}, ${row.models}, ${row.group}, ${row.config})`,
    );
  }
  return database;
}

describe('limits, checked before a value is transferred', () => {
  it('skips each row over a limit with a reason naming the field and the limit, and imports the others', async () => {
    const database = await limitsTable();
    const table = await dynamo.createChannelsTable();

    const result = await runImport(db.dsn(database), importDeps(dynamo, table));

    if (!result.ok) throw result.error;
    const skipped = result.report.items.filter((i) => i.outcome === 'skipped');
    const expected = ROWS.flatMap(([reason, row]) => (reason === null ? [] : [[Number(row.id), reason]]));
    expect(skipped.map((i) => [i.legacyId, i.outcome === 'skipped' ? i.reason : ''])).toEqual(
      expect.arrayContaining(expected),
    );
    expect(skipped).toHaveLength(expected.length);
    expect(result.report.rows).toEqual({ imported: 4, skipped: expected.length });
    const stored = await dynamo.scan(table);
    expect(stored.map((c) => c.source.legacyId).sort((a, b) => String(a).localeCompare(String(b)))).toEqual([
      '-5',
      1,
      '9007199254740993',
      'not-a-number',
    ]);
  });

  it('reports on a dry run exactly what the import does', async () => {
    const database = await limitsTable();
    const [dryTable, realTable] = await Promise.all([dynamo.createChannelsTable(), dynamo.createChannelsTable()]);

    const dry = await runImport(db.dsn(database), importDeps(dynamo, dryTable), true);
    const real = await runImport(db.dsn(database), importDeps(dynamo, realTable));

    expect(dry.ok && { ...dry.report, dryRun: false }).toEqual(real.ok && real.report);
    expect(await dynamo.scan(dryTable)).toEqual([]);
  });
});
