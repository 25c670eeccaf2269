import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '#functions/import-legacygw/limits';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { importDeps, runImport, startTestDynamo, type TestDynamo } from './import.helpers.ts';

// Review 5's route bomb through a real MariaDB and a real repository: 300 rows each within every byte limit, whose
// `group` column (64 KiB) names about 16,600 groups and whose `models` 1,000 models. The deployed deadline is 25 s.

const ROWS = 300;
const DEADLINE_MS = 25_000;

/** A comma-separated list of distinct names `prefix0`, `prefix1`, ... as long as fits in `maxBytes`. */
function names(prefix: string, count: number, maxBytes: number): string {
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < count && bytes + prefix.length + 8 <= maxBytes; i++) {
    const name = `${prefix}${i.toString(36)}`;
    parts.push(name);
    bytes += name.length + 1;
  }
  return parts.join(',');
}

let db: TestMariaDb;
let dynamo: TestDynamo;
let database: string;

beforeAll(async () => {
  [db, dynamo] = await Promise.all([startMariaDb(), startTestDynamo()]);
  // A table whose `group` is TEXT (a hostile or altered schema: the gateways' own is varchar(32)).
  database = await db.createDatabase(
    undefined,
    'CREATE TABLE channels (id BIGINT PRIMARY KEY, type BIGINT, `key` LONGTEXT, status BIGINT, name VARCHAR(191), ' +
      'base_url VARCHAR(191), models LONGTEXT, `group` LONGTEXT)',
  );
  const groups = names('', 100_000, LIMITS.settingsColumnBytes);
  const models = names('m', LIMITS.modelsPerRow, LIMITS.modelsBytes);
  for (let first = 1; first <= ROWS; first += 20) {
    const ids = Array.from({ length: 20 }, (_, i) => first + i);
    await db.query(
      `INSERT INTO \`${database}\`.channels (id, type, \`key\`, status, name, base_url, models, \`group\`) VALUES ${ids
        .map(() => '(?, 1, ?, 1, ?, ?, ?, ?)')
        .join(', ')}`,
      ids.flatMap((id) => [id, `sk-route-bomb-${id}`, `bomb ${id}`, '', models, groups]),
    );
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([db?.stop(), dynamo?.stop()]);
});

describe('an import of 300 rows that each name 16.6 million routes', () => {
  it('answers a dry run and an import well within the deadline with the exact count, and says the routes are not all counted', async () => {
    const table = await dynamo.createChannelsTable();
    const deps = importDeps(dynamo, table, { deadlineMs: DEADLINE_MS });

    const started = performance.now();
    const dry = await runImport(db.dsn(database), deps, true);
    const dryMs = performance.now() - started;
    const real = await runImport(db.dsn(database), deps);
    const realMs = performance.now() - started - dryMs;

    expect(dry.ok && dry.report.channels.created).toBe(ROWS);
    expect(dry.ok && dry.report.routes.complete).toBe(false);
    expect(real.ok && real.report.channels.created).toBe(ROWS);
    expect(await dynamo.scan(table)).toHaveLength(ROWS);
    // Before the bounds the dry run alone took 38-92 s and ended in a 504. Each takes about 5 s here at a load of 8
    // on 2 cores (the MariaDB read and the writes, not the tally); the deadline is the bound that matters.
    expect(dryMs).toBeLessThan(DEADLINE_MS);
    expect(realMs).toBeLessThan(DEADLINE_MS);
  }, 120_000);
});
