import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTable, ensureTables } from '#infra/local/dynamo-engine';
import { TABLES, type TableDef } from '#shared/tables';
import { ON_ANOTHER_ENGINE, uniqueTableName, uniqueTableNames } from '#test/support/dynamo-engine';
import { useTestEngine } from '#test/support/test-engine';

const db = useTestEngine();

/** A table with an index of each projection kind, as a TableDef of shared/tables.ts may declare them. */
const WITH_INDEXES: TableDef = {
  logicalName: 'datasets',
  partitionKey: 'teamId',
  sortKey: 'id',
  indexes: [
    { name: 'byParent', partitionKey: 'teamId', sortKey: 'parentKey' },
    { name: 'byName', partitionKey: 'name', include: ['intro'] },
    { name: 'byMember', partitionKey: 'tmbId', sortKey: 'id', include: [] },
  ],
};
const WITHOUT_INDEXES: TableDef = { ...WITH_INDEXES, indexes: undefined };

/** A KeySchema as DescribeTable reports it. */
const keys = (hash: string, range?: string) => [
  { AttributeName: hash, KeyType: 'HASH' },
  ...(range ? [{ AttributeName: range, KeyType: 'RANGE' }] : []),
];

/** The items whose `attribute` equals `value`, read from `index` of `table` (or from the table itself). */
async function queryBy(table: string, index: string | undefined, attribute: string, value: string) {
  const { Items } = await db.documents.send(
    new QueryCommand({
      TableName: table,
      IndexName: index,
      KeyConditionExpression: '#k = :v',
      ExpressionAttributeNames: { '#k': attribute },
      ExpressionAttributeValues: { ':v': value },
    }),
  );
  return Items;
}

const describeTable = async (name: string) =>
  (await db.client.send(new DescribeTableCommand({ TableName: name }))).Table;

describe('ensureTable on the tests engine', () => {
  it('creates a missing table with its key schema and every index with its projection, all ACTIVE', async () => {
    const name = uniqueTableName('indexed');

    await ensureTable(db.client, name, WITH_INDEXES);

    const table = await describeTable(name);
    expect(table?.TableStatus).toBe('ACTIVE');
    expect(table?.KeySchema).toEqual(keys('teamId', 'id'));
    const indexes = Object.fromEntries(
      (table?.GlobalSecondaryIndexes ?? []).map((i) => [
        i.IndexName,
        { status: i.IndexStatus, keys: i.KeySchema, projection: i.Projection },
      ]),
    );
    expect(indexes).toEqual({
      byParent: { status: 'ACTIVE', keys: keys('teamId', 'parentKey'), projection: { ProjectionType: 'ALL' } },
      byName: {
        status: 'ACTIVE',
        keys: keys('name'),
        projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['intro'] },
      },
      byMember: { status: 'ACTIVE', keys: keys('tmbId', 'id'), projection: { ProjectionType: 'KEYS_ONLY' } },
    });
  });

  it('answers queries on the created indexes with the projected attributes only', async () => {
    const name = uniqueTableName('indexed');
    await ensureTable(db.client, name, WITH_INDEXES);
    const item = { teamId: 't1', id: 'a', parentKey: 'root', name: 'Docs', tmbId: 'm1', intro: 'hi', avatar: 'x' };
    await db.documents.send(new PutCommand({ TableName: name, Item: item }));

    const byName = await queryBy(name, 'byName', 'name', 'Docs');
    const byMember = await queryBy(name, 'byMember', 'tmbId', 'm1');

    expect(byName).toEqual([{ teamId: 't1', id: 'a', name: 'Docs', intro: 'hi' }]);
    expect(byMember).toEqual([{ teamId: 't1', id: 'a', tmbId: 'm1' }]);
  });

  it('leaves an existing table and its items alone', async () => {
    const name = uniqueTableName('existing');
    await ensureTable(db.client, name, WITHOUT_INDEXES);
    await db.documents.send(new PutCommand({ TableName: name, Item: { teamId: 't1', id: 'kept' } }));

    await ensureTable(db.client, name, WITHOUT_INDEXES);

    expect(await queryBy(name, undefined, 'teamId', 't1')).toEqual([{ teamId: 't1', id: 'kept' }]);
  });

  it('creates every table of shared/tables.ts under the names it is given', async () => {
    const names = uniqueTableNames();

    await ensureTables(db.client, names);

    for (const def of Object.values(TABLES)) {
      const table = await describeTable(names[def.logicalName]);
      expect(table?.TableStatus).toBe('ACTIVE');
      expect(table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(
        def.indexes?.map((i) => i.name).sort(),
      );
    }
  });

  // dynalite cannot add an index to an existing table; DynamoDB Local (and DynamoDB) can.
  it.skipIf(!ON_ANOTHER_ENGINE)('adds the indexes an existing table lacks, keeping its items', async () => {
    const name = uniqueTableName('upgraded');
    await ensureTable(db.client, name, WITHOUT_INDEXES);
    await db.documents.send(new PutCommand({ TableName: name, Item: { teamId: 't1', id: 'old', name: 'Kept' } }));

    await ensureTable(db.client, name, WITH_INDEXES);

    const table = await describeTable(name);
    expect(table?.GlobalSecondaryIndexes?.map((i) => [i.IndexName, i.IndexStatus]).sort()).toEqual([
      ['byMember', 'ACTIVE'],
      ['byName', 'ACTIVE'],
      ['byParent', 'ACTIVE'],
    ]);
    expect(await queryBy(name, 'byName', 'name', 'Kept')).toEqual([{ teamId: 't1', id: 'old', name: 'Kept' }]);
  });

  it.skipIf(ON_ANOTHER_ENGINE)(
    'fails naming the table and the index when the engine cannot add an index to an existing table (dynalite)',
    async () => {
      const name = uniqueTableName('old');
      await ensureTable(db.client, name, WITHOUT_INDEXES);

      const ensuring = ensureTable(db.client, name, WITH_INDEXES);

      await expect(ensuring).rejects.toThrow(
        `table ${name} exists without its index byParent, and this DynamoDB engine could not add it: delete the table`,
      );
    },
  );
});
