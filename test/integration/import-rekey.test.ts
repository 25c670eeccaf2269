import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { unkeyedChannelId } from '#functions/import-legacygw/identity';
import type { StoredChannel } from '#shared/repositories/channels';
import { FIXTURE_SQL, importDeps, runImport, useImportEngines } from './import.helpers.ts';

// docs/channel-import.md, "Moving to keyed ids": channels an import stored before keyed ids carry the unkeyed id of
// that time; the first import of the same gateway moves them to their keyed ids, keeping every operator edit.

const { db, dynamo } = useImportEngines();

/** The table as an import before keyed ids left it: the same channels under their unkeyed ids. */
async function asBeforeKeyedIds(
  table: string,
  keyed: readonly StoredChannel[],
  edit: (c: StoredChannel) => StoredChannel,
) {
  const unkeyed = keyed.map((c) => edit({ ...c, id: unkeyedChannelId(c.provider, c.baseUrl, c.key) }));
  const requests = [
    ...keyed.map((c) => ({ DeleteRequest: { Key: { id: c.id } } })),
    ...unkeyed.map((c) => ({ PutRequest: { Item: c } })),
  ];
  for (let i = 0; i < requests.length; i += 25) {
    await dynamo.documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests.slice(i, i + 25) } }));
  }
  return unkeyed;
}

async function importedFixture() {
  const [database, table] = await Promise.all([
    db.createDatabase(undefined, FIXTURE_SQL),
    dynamo.createChannelsTable(),
  ]);
  const dsn = db.dsn(database);
  const deps = importDeps(dynamo, table);
  await runImport(dsn, deps);
  return { dsn, table, deps, keyed: await dynamo.scan(table) };
}

const EDITED_AT = '2026-02-01T00:00:00.000Z';
const editRowTwo = (c: StoredChannel): StoredChannel =>
  c.source.legacyId === 2 ? { ...c, name: 'renamed by an operator', editedAt: EDITED_AT } : c;

describe('moving channels stored under unkeyed ids', () => {
  it('gives every channel its keyed id on the first import, keeps the edit, and leaves no duplicate', async () => {
    const { dsn, table, deps, keyed } = await importedFixture();
    await asBeforeKeyedIds(table, keyed, editRowTwo);

    const moved = await runImport(dsn, deps);

    expect(moved.ok && moved.report.channels).toEqual({ created: 0, updated: 0, unchanged: 20, edited: 1 });
    const after = await dynamo.scan(table);
    expect(after.map((c) => c.id)).toEqual(keyed.map((c) => c.id));
    expect(after.find((c) => c.source.legacyId === 2)).toMatchObject({
      name: 'renamed by an operator',
      editedAt: EDITED_AT,
    });
    const again = await runImport(dsn, deps);
    expect(again.ok && again.report.channels).toEqual({ created: 0, updated: 0, unchanged: 20, edited: 1 });
    expect(await dynamo.scan(table)).toEqual(after);
  });

  it('reports the same counts on a dry run and moves nothing', async () => {
    const { dsn, table, deps, keyed } = await importedFixture();
    const unkeyed = await asBeforeKeyedIds(table, keyed, editRowTwo);

    const dry = await runImport(dsn, deps, true);

    expect(dry.ok && dry.report.channels).toEqual({ created: 0, updated: 0, unchanged: 20, edited: 1 });
    expect(await dynamo.scan(table)).toEqual([...unkeyed].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('never moves a channel stored for another legacy row under the same unkeyed id', async () => {
    const { dsn, table, deps, keyed } = await importedFixture();
    // Row 1's channel as if another row had stored it: the same unkeyed id, someone else's legacy id.
    await asBeforeKeyedIds(table, keyed, (c) =>
      c.source.legacyId === 1 ? { ...c, source: { ...c.source, legacyId: 99 } } : c,
    );

    const result = await runImport(dsn, deps);

    expect(result.ok && result.report.channels).toEqual({ created: 1, updated: 0, unchanged: 20, edited: 0 });
    const after = await dynamo.scan(table);
    expect(after.filter((c) => c.source.legacyId === 99)).toHaveLength(1);
  });
});
