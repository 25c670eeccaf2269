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
import { DatasetIdConflictError, type DatasetRecord, DynamoDatasetRepository } from '#shared/repositories/datasets';

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

  it("queries the team's partition of the table, not an index, for a search", async () => {
    dynamo.on(QueryCommand).resolves({ Items: [record] });

    for await (const _ of repo.teamRecords('team-a')) break;

    const input = dynamo.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(input?.IndexName).toBeUndefined();
    expect(input?.ExpressionAttributeValues).toEqual({ ':team': 'team-a' });
  });
});

describe('DynamoDatasetRepository.update', () => {
  it('sets only the given fields, the parent and its index key, on the condition that the record exists', async () => {
    dynamo.on(UpdateCommand).resolves({});

    const updated = await repo.update('team-a', record.id, {
      name: 'New',
      intro: undefined,
      parentId: 'ffffffffffffffffffffffff',
      updateTime: '2026-02-01T00:00:00.000Z',
    });

    expect(updated).toBe(true);
    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.Key).toEqual({ teamId: 'team-a', id: record.id });
    expect(input?.ConditionExpression).toBe('attribute_exists(id)');
    const set = Object.fromEntries(
      Object.entries(input?.ExpressionAttributeNames ?? {}).map(([ph, field]) => [
        field,
        input?.ExpressionAttributeValues?.[ph.replace('#f', ':v')],
      ]),
    );
    expect(set).toEqual({
      name: 'New',
      parentId: 'ffffffffffffffffffffffff',
      updateTime: '2026-02-01T00:00:00.000Z',
      parentKey: 'team-a#ffffffffffffffffffffffff',
    });
  });

  it('answers false when the record is gone (failed condition), and passes other failures through', async () => {
    dynamo
      .on(UpdateCommand)
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))
      .rejectsOnce(new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} }));
    const changes = { parentId: null, updateTime: '2026-02-01T00:00:00.000Z' };

    expect(await repo.update('team-a', record.id, changes)).toBe(false);
    await expect(repo.update('team-a', record.id, changes)).rejects.toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
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
