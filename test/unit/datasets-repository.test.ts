import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
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

  it('returns undefined when the team has no such item', async () => {
    dynamo.on(GetCommand).resolves({});

    const found = await repo.get('team-b', record.id);

    expect(found).toBeUndefined();
  });
});

describe('DynamoDatasetRepository.put', () => {
  it('writes the record with a condition that the id is not taken', async () => {
    dynamo.on(PutCommand).resolves({});

    await repo.put(record);

    expect(dynamo.calls()).toHaveLength(1);
    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'datasets-test',
      Item: record,
      ConditionExpression: 'attribute_not_exists(id)',
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
