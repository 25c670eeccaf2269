import { describe, expect, it } from 'vitest';
import { FIXTURE_SQL } from './import.helpers.ts';
import { callImport, expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';

const { db, server, channels } = useImportHarness({ LEGACYGW_MAX_ROWS: '5' });

describe('an import with LEGACYGW_MAX_ROWS=5', () => {
  it('refuses the 20-row fixture with 400 and writes nothing', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    expectError(reply, 400, /too many rows \(20 rows; at most 5 can be imported, see LEGACYGW_MAX_ROWS\)/);
    expect(await channels.scan()).toEqual([]);
    expectNoSecrets([reply], { server, mysqlPassword: db.password });
  });

  it('imports a table of exactly 5 rows', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await db.query(`DELETE FROM \`${database}\`.channels WHERE id > 5`);

    const reply = await callImport(server, { json: { dsn: db.dsn(database) } });

    const data = expectReport(reply);
    expect(data.source.rows).toBe(5);
    expect(data.rows).toEqual({ imported: 5, skipped: 0 });
    expectNoSecrets([reply], { server, mysqlPassword: db.password });
  });
});
