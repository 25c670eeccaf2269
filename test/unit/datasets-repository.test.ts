import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { documentClient } from '#shared/clients/dynamodb';
import {
  DatasetIdConflictError,
  type DatasetRecord,
  DynamoDatasetRepository,
  TREE_LOCK_ID,
} from '#shared/repositories/datasets';

const dynamo = mockClient(DynamoDBDocumentClient);
const repo = new DynamoDatasetRepository(documentClient, 'datasets-test');

const record: DatasetRecord = {
  id: '0123456789abcdef01234567',
  teamId: 'team-a',
  tmbId: 'member-a',
  parentId: null,
  type: 'folder',
  name: 'Dir',
  intro: '',
  avatar: '/imgs/files/folder.svg',
  inheritPermission: true,
  createTime: '2026-01-01T00:00:00.000Z',
  updateTime: '2026-01-01T00:00:00.000Z',
};

beforeEach(() => {
  dynamo.reset();
});

describe('DynamoDatasetRepository.get', () => {
  it('reads the item by team and id with a consistent read', async () => {
    dynamo.on(GetCommand).resolves({ Item: record });

    const found = await repo.get('team-a', record.id);

    expect(found).toEqual(record);
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'datasets-test',
      Key: { teamId: 'team-a', id: record.id },
      ConsistentRead: true,
    });
  });

  it('returns the record without its index key', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...record, parentKey: 'team-a#root' } });

    expect(await repo.get('team-a', record.id)).toStrictEqual(record);
  });

  it('returns undefined when the team has no such item', async () => {
    dynamo.on(GetCommand).resolves({});

    const found = await repo.get('team-b', record.id);

    expect(found).toBeUndefined();
  });
});

describe('DynamoDatasetRepository.put', () => {
  it('writes the record and its by-parent index key with a condition that the id is not taken', async () => {
    dynamo.on(PutCommand).resolves({});

    await repo.put(record);
    await repo.put({ ...record, id: 'child', parentId: record.id });

    expect(dynamo.calls()).toHaveLength(2);
    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'datasets-test',
      Item: { ...record, parentKey: 'team-a#root' },
      ConditionExpression: 'attribute_not_exists(id)',
    });
    expect(dynamo.commandCalls(PutCommand)[1]?.args[0].input.Item).toMatchObject({
      parentKey: `team-a#${record.id}`,
    });
  });

  it('turns a failed condition into DatasetIdConflictError carrying the cause', async () => {
    const conflict = new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    dynamo.on(PutCommand).rejects(conflict);

    const error = await repo.put(record).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DatasetIdConflictError);
    expect((error as Error).cause).toBe(conflict);
    expect(dynamo.calls()).toHaveLength(1);
  });

  it('passes any other failure through unchanged', async () => {
    const throttled = new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} });
    dynamo.on(PutCommand).rejects(throttled);

    const outcome = repo.put(record);

    await expect(outcome).rejects.toBe(throttled);
  });
});

describe('DynamoDatasetRepository.children and teamRecords', () => {
  it('queries the by-parent index for the team and parent, newest first, page by page', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [record], LastEvaluatedKey: { k: 1 } })
      .resolvesOnce({ Items: [] });

    const pages = [];
    for await (const page of repo.children('team-a', null)) pages.push(page);

    expect(pages).toEqual([[record], []]);
    const [first, second] = dynamo.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(first).toMatchObject({
      TableName: 'datasets-test',
      IndexName: 'byParent',
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeValues: { ':pk': 'team-a#root' },
      ScanIndexForward: false,
    });
    expect(first?.ExpressionAttributeNames?.['#pk']).toBe('parentKey');
    expect(second?.ExclusiveStartKey).toEqual({ k: 1 });
  });

  it("queries the team's partition of the table, not an index, for a search, within the record ids' key range", async () => {
    dynamo.on(QueryCommand).resolves({ Items: [record] });

    for await (const _ of repo.teamRecords('team-a')) break;

    const input = dynamo.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(input?.IndexName).toBeUndefined();
    expect(input?.KeyConditionExpression).toBe('#team = :team AND #id BETWEEN :low AND :high');
    expect(input?.ExpressionAttributeValues).toEqual({
      ':team': 'team-a',
      ':low': '000000000000000000000000',
      ':high': 'ffffffffffffffffffffffff',
    });
    // The tree lock's item sorts outside that range, so a list of the team never shows it.
    expect(TREE_LOCK_ID > 'ffffffffffffffffffffffff').toBe(true);
  });
});

describe('DynamoDatasetRepository.update', () => {
  it('sets only the given fields, the parent and its index key, on the condition that the record exists under the parent read', async () => {
    dynamo.on(UpdateCommand).resolves({});

    const updated = await repo.update(
      'team-a',
      record.id,
      {
        name: 'New',
        intro: undefined,
        parentId: 'ffffffffffffffffffffffff',
        updateTime: '2026-02-01T00:00:00.000Z',
      },
      null,
    );

    expect(updated).toBe(true);
    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.Key).toEqual({ teamId: 'team-a', id: record.id });
    expect(input?.ConditionExpression).toBe('attribute_exists(id) AND attribute_type(#parent, :nullType)');
    expect(input?.ExpressionAttributeNames?.['#parent']).toBe('parentId');
    expect(input?.ExpressionAttributeValues?.[':nullType']).toBe('NULL');
    const set = Object.fromEntries(
      Object.entries(input?.ExpressionAttributeNames ?? {})
        .filter(([ph]) => ph.startsWith('#f'))
        .map(([ph, field]) => [field, input?.ExpressionAttributeValues?.[ph.replace('#f', ':v')]]),
    );
    expect(set).toEqual({
      name: 'New',
      parentId: 'ffffffffffffffffffffffff',
      updateTime: '2026-02-01T00:00:00.000Z',
      parentKey: 'team-a#ffffffffffffffffffffffff',
    });
  });

  it('conditions on an id parent by equality', async () => {
    dynamo.on(UpdateCommand).resolves({});

    await repo.update('team-a', record.id, { parentId: null, updateTime: '2026-02-01T00:00:00.000Z' }, 'a'.repeat(24));

    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.ConditionExpression).toBe('attribute_exists(id) AND #parent = :expectedParent');
    expect(input?.ExpressionAttributeValues?.[':expectedParent']).toBe('a'.repeat(24));
  });

  it('answers false when the record is gone or moved (failed condition), and passes other failures through', async () => {
    dynamo
      .on(UpdateCommand)
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))
      .rejectsOnce(new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} }));
    const changes = { parentId: null, updateTime: '2026-02-01T00:00:00.000Z' };

    expect(await repo.update('team-a', record.id, changes, null)).toBe(false);
    await expect(repo.update('team-a', record.id, changes, null)).rejects.toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
  });
});

describe('DynamoDatasetRepository.lockTree and unlockTree', () => {
  it("takes the team's lock item with a condition that it is free or expired, and answers false when it is not", async () => {
    dynamo
      .on(UpdateCommand)
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));

    expect(await repo.lockTree('team-a', 'owner-1', 1_000, 16_000)).toBe(true);
    expect(await repo.lockTree('team-a', 'owner-2', 2_000, 17_000)).toBe(false);

    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.Key).toEqual({ teamId: 'team-a', id: TREE_LOCK_ID });
    expect(input?.ConditionExpression).toBe('attribute_not_exists(#expires) OR #expires <= :now');
    expect(input?.ExpressionAttributeValues).toEqual({ ':owner': 'owner-1', ':expires': 16_000, ':now': 1_000 });
  });

  it('releases only a lock the owner still holds, and takes a lost one calmly', async () => {
    dynamo
      .on(UpdateCommand)
      .resolvesOnce({})
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))
      .rejectsOnce(new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} }));

    await repo.unlockTree('team-a', 'owner-1');
    await repo.unlockTree('team-a', 'owner-1');
    await expect(repo.unlockTree('team-a', 'owner-1')).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);

    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.ConditionExpression).toBe('#owner = :owner');
    expect(input?.ExpressionAttributeValues).toEqual({ ':owner': 'owner-1', ':released': 0 });
  });
});

describe('DynamoDatasetRepository.deleteMany', () => {
  const fast = new DynamoDatasetRepository(documentClient, 'datasets-test', { baseDelayMs: 1, maxAttempts: 3 });
  const ids = Array.from({ length: 60 }, (_, i) => `id-${i}`);

  it('deletes in batches of 25 by team and id, resending only the unprocessed requests', async () => {
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({
        UnprocessedItems: { 'datasets-test': [{ DeleteRequest: { Key: { teamId: 'team-a', id: 'id-0' } } }] },
      })
      .resolves({});

    await fast.deleteMany('team-a', ids);

    const sent = dynamo
      .commandCalls(BatchWriteCommand)
      .map((c) => c.args[0].input.RequestItems?.['datasets-test'] ?? []);
    expect(sent.map((r) => r.length).sort()).toEqual([1, 10, 25, 25]);
    const keys = sent.flat().map((r) => r.DeleteRequest?.Key);
    expect(new Set(keys.map((k) => k?.id))).toEqual(new Set(ids));
    expect(keys.every((k) => k?.teamId === 'team-a')).toBe(true);
    expect(sent.flat().some((r) => r.PutRequest)).toBe(false);
  });

  it('sends nothing for no ids', async () => {
    await fast.deleteMany('team-a', []);

    expect(dynamo.calls()).toHaveLength(0);
  });

  it('fails when a batch stays unprocessed after every attempt', async () => {
    dynamo.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: input.RequestItems }));

    await expect(fast.deleteMany('team-a', ids.slice(0, 3))).rejects.toThrow(/unprocessed/);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(3);
  });
});
