import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ImportDeps } from '#functions/import-legacygw/import-legacygw';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { testChannelId } from '#test/support/channel-ids';
import { FIXTURE_SQL, importDeps, runImport, useImportEngines } from './import.helpers.ts';

// docs/channel-import.md, "An import into an empty table": the first import into a table with no channel reads
// nothing back; any later one reads and classifies every chunk. Counted on the commands the repository sends.

const { db, dynamo } = useImportEngines();

/** A channel no fixture row maps to: it makes a table non-empty without changing any outcome of the import. */
const UNRELATED: StoredChannel = {
  id: 'not-from-the-fixture',
  provider: 'openai',
  legacyType: 1,
  name: 'kept',
  baseUrl: 'https://api.openai.com',
  models: ['gpt-4o'],
  key: 'sk-integration-unrelated',
  status: 'enabled',
  source: { legacyId: 9_999, host: '127.0.0.1', database: 'other' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** The real repository over a client of its own that records the name of every command it sends. */
function countingDeps(table: string): { deps: ImportDeps; sent: string[]; close(): void } {
  const sent: string[] = [];
  const base = localDynamoClient(dynamo);
  const client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  const deps = { ...importDeps(dynamo, table), repo: new ChannelRepository(client, table, { baseDelayMs: 5 }) };
  return { deps, sent, close: () => base.destroy() };
}

const count = (sent: string[], command: string) => sent.filter((c) => c === command).length;

async function fixtureAndTable() {
  const [database, table] = await Promise.all([
    db.createDatabase(undefined, FIXTURE_SQL),
    dynamo.createChannelsTable(),
  ]);
  return { database, table, dsn: db.dsn(database) };
}

describe('an import into an empty channels table', () => {
  it('reads nothing back (one Scan for one id, no BatchGetItem) and reports and stores what the read path does', async () => {
    const { table: empty, dsn } = await fixtureAndTable();
    const holdingOne = await dynamo.createChannelsTable();
    await new ChannelRepository(dynamo.documentClient, holdingOne).putMany([UNRELATED]);
    const first = countingDeps(empty);
    const readPath = countingDeps(holdingOne);

    const fromEmpty = await runImport(dsn, first.deps);
    const fromRead = await runImport(dsn, readPath.deps);
    first.close();
    readPath.close();

    expect(count(first.sent, 'ScanCommand')).toBe(1);
    expect(count(first.sent, 'BatchGetItemCommand')).toBe(0);
    expect(count(first.sent, 'BatchWriteItemCommand')).toBeGreaterThan(0);
    // The read path's one chunk: the keyed ids, then the unkeyed ids of the channels not found under them; then the
    // stale channels' summaries (the unrelated channel no row produces).
    expect(count(readPath.sent, 'BatchGetItemCommand')).toBe(3);
    expect(fromEmpty.ok && fromEmpty.report.channels).toEqual({ created: 21, updated: 0, unchanged: 0, edited: 0 });
    // The same report, but that the read path also lists the unrelated channel as stale (never deleted).
    const { stale, ...readReport } = fromRead.ok ? fromRead.report : ({} as never);
    expect(stale?.count).toBe(1);
    expect(fromEmpty.ok && fromEmpty.report).toEqual(readReport);
    const withoutUnrelated = (await dynamo.scan(holdingOne)).filter((c) => c.id !== UNRELATED.id);
    expect(await dynamo.scan(empty)).toEqual(withoutUnrelated);
  });

  it('on a dry run reads nothing back, writes nothing, and reports what a real import reports', async () => {
    const { table, dsn } = await fixtureAndTable();
    const dry = countingDeps(table);
    const other = await dynamo.createChannelsTable();

    const dryRun = await runImport(dsn, dry.deps, true);
    const real = await runImport(dsn, importDeps(dynamo, other));
    dry.close();

    expect(dry.sent).toEqual(['ScanCommand']);
    expect(await dynamo.scan(table)).toEqual([]);
    expect(dryRun.ok && { ...dryRun.report, dryRun: false }).toEqual(real.ok && real.report);
  });

  it('reads and classifies on the next import, which finds every channel unchanged', async () => {
    const { table, dsn } = await fixtureAndTable();
    await runImport(dsn, importDeps(dynamo, table));
    const before = await dynamo.scan(table);
    const second = countingDeps(table);

    const again = await runImport(dsn, second.deps);
    second.close();

    expect(count(second.sent, 'BatchGetItemCommand')).toBe(1);
    expect(count(second.sent, 'BatchWriteItemCommand')).toBe(0);
    expect(again.ok && again.report.channels).toEqual({ created: 0, updated: 0, unchanged: 21, edited: 0 });
    expect(await dynamo.scan(table)).toEqual(before);
  });

  it('keeps an operator edit made after the first import through any later import', async () => {
    const { table, dsn } = await fixtureAndTable();
    await runImport(dsn, importDeps(dynamo, table));
    const review = new ChannelRepository(dynamo.documentClient, table);
    const id = testChannelId(1, 'sk-fixture-openai-main-0001');
    const read = await review.get(id);
    const edited = await review.update(
      id,
      { name: 'corrected by hand', models: ['gpt-4o'] },
      '2026-03-01T12:00:00.000Z',
      read?.updatedAt,
    );

    const again = await runImport(dsn, importDeps(dynamo, table));

    expect(again.ok && again.report.channels).toEqual({ created: 0, updated: 0, unchanged: 20, edited: 1 });
    expect(await review.get(id)).toEqual(edited);
    expect(edited).toMatchObject({
      name: 'corrected by hand',
      models: ['gpt-4o'],
      editedAt: '2026-03-01T12:00:00.000Z',
    });
  });
});
