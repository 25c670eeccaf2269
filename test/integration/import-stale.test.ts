import { describe, expect, it } from 'vitest';
import { callImport, callProxy, expectReport, useImportHarness } from './import-http.helpers.ts';
import { ROWS_PATH } from './import-rows.helpers.ts';

// docs/channel-import.md, "Stale channels": stored channels that no row of this run produces any more are listed in
// the report (dry run and import, every source), enabled ones first; the import never deletes nor changes them.

const { db, server, channels } = useImportHarness();

const TABLE = `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` longtext NOT NULL, status bigint,
    name varchar(191), base_url varchar(191) DEFAULT '', models longtext, \`group\` varchar(32) DEFAULT 'default');
  INSERT INTO channels (id, type, \`key\`, status, name, models) VALUES
    (1, 1, 'sk-stale-fixture-0001', 1, 'kept', 'gpt-4o'),
    (2, 1, 'sk-stale-fixture-0002', 1, 'deleted later', 'gpt-4o-mini'),
    (3, 1, 'sk-stale-fixture-0003', 2, 'disabled, deleted later', 'gpt-4.1');`;

describe('stale channels', () => {
  it('lists the channels whose legacy rows are gone, enabled first, in the preview and the import, and keeps them', async () => {
    const database = await db.createDatabase(undefined, TABLE);
    await channels.clear();
    const first = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));
    expect(first.stale).toBeUndefined();
    const stored = await channels.scan();
    const idOf = (legacyId: number) => stored.find((c) => c.source.legacyId === legacyId)?.id;
    await db.query(`DELETE FROM \`${database}\`.channels WHERE id IN (2, 3)`);

    const preview = expectReport(await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } }));
    const real = expectReport(await callImport(server, { json: { dsn: db.dsn(database) } }));

    const stale = {
      count: 2,
      items: [
        { id: idOf(2), name: 'deleted later', provider: 'openai', status: 'enabled', legacyId: 2 },
        { id: idOf(3), name: 'disabled, deleted later', provider: 'openai', status: 'disabled', legacyId: 3 },
      ],
      itemsTruncated: false,
    };
    expect(preview.stale).toEqual(stale);
    expect(real.stale).toEqual(stale);
    expect(JSON.stringify(real)).not.toContain('sk-stale-fixture');
    // Never deleted nor changed: the operator decides.
    expect((await channels.scan()).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      stored.sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('lists them for rows sent by a client too', async () => {
    await channels.clear();
    const columns = ['id', 'type', 'key', 'status', 'name', 'base_url', 'models'];
    const row = (id: number) => [id, 1, `sk-stale-rows-000${id}`, 1, `row ${id}`, '', 'gpt-4o'];
    await callProxy(server, { method: 'POST', path: ROWS_PATH, json: { columns, rows: [row(1), row(2)] } });

    const reply = await callProxy(server, {
      method: 'POST',
      path: ROWS_PATH,
      json: { columns, rows: [row(1)], dryRun: true },
    });

    expect(expectReport(reply).stale).toMatchObject({ count: 1, items: [{ name: 'row 2', legacyId: 2 }] });
  });
});
