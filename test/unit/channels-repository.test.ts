import { DynamoDBClient, ResourceNotFoundException, ThrottlingException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ChannelRepository,
  ChannelWriteError,
  fromChannelItem,
  type StoredChannel,
  toChannelItem,
} from '#shared/repositories/channels';

const TABLE = 'channels-test';
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const dynamo = mockClient(documentClient);

function channel(n: number): StoredChannel {
  return {
    id: `id-${n}`,
    provider: 'openai',
    legacyType: 1,
    name: `channel ${n}`,
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o'],
    key: `sk-unit-${n}`,
    status: 'enabled',
    source: { legacyId: n, host: 'db.internal', database: 'legacy' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const channels = (count: number, from = 1) => Array.from({ length: count }, (_, i) => channel(from + i));
const repository = (maxAttempts = 4) => new ChannelRepository(documentClient, TABLE, { maxAttempts, baseDelayMs: 1 });
const putRequests = (items: StoredChannel[]) => items.map((item) => ({ PutRequest: { Item: toChannelItem(item) } }));
const throttling = () => new ThrottlingException({ message: 'Rate exceeded', $metadata: {} });

/** Answers every BatchWrite after a turn of the event loop and records the most that were in flight at once. */
function countBatchWritesInFlight(): { readonly peak: number } {
  let now = 0;
  const counter = { peak: 0 };
  dynamo.on(BatchWriteCommand).callsFake(async () => {
    now += 1;
    counter.peak = Math.max(counter.peak, now);
    await new Promise((r) => setImmediate(r));
    now -= 1;
    return {};
  });
  return counter;
}

describe('ChannelRepository.putMany', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it('writes in BatchWriteItem calls of at most 25 items and returns the count', async () => {
    dynamo.on(BatchWriteCommand).resolves({});
    const items = channels(60);

    const written = await repository().putMany(items);

    expect(written).toBe(60);
    const calls = dynamo.commandCalls(BatchWriteCommand);
    expect(calls.map((c) => c.args[0].input.RequestItems?.[TABLE]?.length).sort()).toEqual([10, 25, 25]);
    const sent = calls.flatMap((c) => c.args[0].input.RequestItems?.[TABLE] ?? []);
    expect(sent).toHaveLength(60);
    expect(new Set(sent.map((r) => r.PutRequest?.Item?.id))).toEqual(new Set(items.map((i) => i.id)));
  });

  it('keeps at most the configured number of batch writes in flight', async () => {
    const inFlight = countBatchWritesInFlight();
    const repo = new ChannelRepository(documentClient, TABLE, { writeConcurrency: 2 });

    await repo.putMany(channels(200));

    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(8);
    expect(inFlight.peak).toBe(2);
  });

  it('shares its write slots among overlapping putMany calls', async () => {
    const inFlight = countBatchWritesInFlight();
    const repo = new ChannelRepository(documentClient, TABLE, { writeConcurrency: 2 });

    const written = await Promise.all([repo.putMany(channels(50)), repo.putMany(channels(50, 51))]);

    expect(written).toEqual([50, 50]);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(4);
    expect(inFlight.peak).toBe(2);
  });

  it('stops waiting for a write slot when its signal aborts, and sends nothing for that call', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    dynamo.on(BatchWriteCommand).callsFake(async () => {
      await held;
      return {};
    });
    const repo = new ChannelRepository(documentClient, TABLE, { writeConcurrency: 1 });
    const first = repo.putMany(channels(1));
    const controller = new AbortController();
    const second = repo.putMany(channels(3, 2), { signal: controller.signal }).catch((e: unknown) => e);

    controller.abort(new Error('deadline'));
    const failure = await second;
    release();

    expect(failure).toBeInstanceOf(ChannelWriteError);
    expect((failure as ChannelWriteError).written).toBe(0);
    expect(await first).toBe(1);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(1);
  });

  it('resends only the unprocessed items and counts each item once', async () => {
    const items = channels(3);
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [TABLE]: putRequests(items.slice(1)) } })
      .resolvesOnce({ UnprocessedItems: { [TABLE]: putRequests(items.slice(2)) } })
      .resolvesOnce({});

    const written = await repository().putMany(items);

    expect(written).toBe(3);
    const sent = dynamo.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.[TABLE]?.length);
    expect(sent).toEqual([3, 2, 1]);
  });

  it('retries a throttled batch and then writes it', async () => {
    dynamo.on(BatchWriteCommand).rejectsOnce(throttling()).resolves({});

    const written = await repository().putMany(channels(5));

    expect(written).toBe(5);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(2);
  });

  it('gives up after the last attempt and reports how many items were written before', async () => {
    const items = channels(30);
    const second = items.slice(25);
    dynamo.on(BatchWriteCommand, { RequestItems: { [TABLE]: putRequests(items.slice(0, 25)) } }).resolves({});
    dynamo
      .on(BatchWriteCommand, { RequestItems: { [TABLE]: putRequests(second) } })
      .resolves({ UnprocessedItems: { [TABLE]: putRequests(second.slice(2)) } });
    dynamo.on(BatchWriteCommand, { RequestItems: { [TABLE]: putRequests(second.slice(2)) } }).rejects(throttling());

    const failure = await repository(3)
      .putMany(items)
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(ChannelWriteError);
    expect((failure as ChannelWriteError).written).toBe(27);
    expect((failure as ChannelWriteError).cause).toBeInstanceOf(ThrottlingException);
  });

  it('does not retry an error that retrying cannot fix', async () => {
    dynamo
      .on(BatchWriteCommand)
      .rejects(new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: {} }));

    const failure = await repository()
      .putMany(channels(1))
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(ChannelWriteError);
    expect((failure as ChannelWriteError).written).toBe(0);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(1);
  });

  it('sends nothing once its abort signal has fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));

    const failure = await repository()
      .putMany(channels(3), { signal: controller.signal })
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(ChannelWriteError);
    expect(dynamo.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});

describe('the stored form of a channel', () => {
  const withSettings: StoredChannel = {
    ...channel(12),
    settings: { headerOverride: { Authorization: 'Bearer sk-stored-secret-0123456789' }, weight: 3 },
  };

  it('writes settings and source as JSON text, legacyId first, and reads back the channel it wrote', () => {
    const item = toChannelItem(withSettings);

    expect(item.source).toBe('{"legacyId":12,"host":"db.internal","database":"legacy"}');
    expect(JSON.parse(item.settings as string)).toEqual(withSettings.settings);
    expect(fromChannelItem(structuredClone(item))).toEqual(withSettings);
    expect(toChannelItem(channel(1))).not.toHaveProperty('settings');
    expect(toChannelItem({ ...channel(1), source: { ...channel(1).source, legacyId: 'a-7' } }).source).toMatch(
      /^\{"legacyId":"a-7",/,
    );
  });

  it('reads a channel stored in the earlier form, with settings and source as maps, as it is', () => {
    expect(fromChannelItem(structuredClone(withSettings))).toEqual(withSettings);
  });

  it('names a damaged attribute without showing its text', async () => {
    const damaged = {
      ...toChannelItem(withSettings),
      settings: '{"headerOverride":{"Authorization":"Bearer sk-stored-secret',
    };
    dynamo.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [damaged] } });

    const read = repository().getMany([withSettings.id]);

    await expect(read).rejects.toThrow(/^Channel id-12: its stored settings is not valid JSON$/);
    await read.catch((error: Error) => {
      expect(`${error.message} ${error.stack} ${String(error.cause)}`).not.toContain('sk-stored-secret');
    });
  });
});

describe('ChannelRepository.getMany', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it('reads with strongly consistent BatchGetItem calls of at most 100 distinct keys', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] } });
    const ids = Array.from({ length: 150 }, (_, i) => `id-${i}`);

    await repository().getMany([...ids, 'id-0']);

    const calls = dynamo.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.[TABLE]);
    expect(calls.map((r) => r?.Keys?.length)).toEqual([100, 50]);
    expect(calls.every((r) => r?.ConsistentRead === true)).toBe(true);
  });

  it('asks again for unprocessed keys and returns every item found by id', async () => {
    const [a, b] = channels(2);
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [a!] }, UnprocessedKeys: { [TABLE]: { Keys: [{ id: b!.id }] } } })
      .resolvesOnce({ Responses: { [TABLE]: [b!] } });

    const found = await repository().getMany([a!.id, b!.id, 'id-missing']);

    expect([...found.keys()].sort()).toEqual([a!.id, b!.id]);
    expect(found.get(b!.id)).toEqual(b);
    const second = dynamo.commandCalls(BatchGetCommand)[1]?.args[0].input.RequestItems?.[TABLE];
    expect(second).toEqual({ Keys: [{ id: b!.id }], ConsistentRead: true });
  });

  it('keeps asking while each call returns items, however many calls a page of large channels takes', async () => {
    const all = channels(12);
    let call = dynamo.on(BatchGetCommand);
    // DynamoDB stops at 16 MB a call: one item per call, more calls than the retry attempts.
    for (const [i, item] of all.entries()) {
      const rest = all.slice(i + 1).map((c) => ({ id: c.id }));
      call = call.resolvesOnce({
        Responses: { [TABLE]: [item] },
        ...(rest.length > 0 ? { UnprocessedKeys: { [TABLE]: { Keys: rest } } } : {}),
      });
    }

    const found = await new ChannelRepository(documentClient, TABLE, { baseDelayMs: 1, maxAttempts: 3 }).getMany(
      all.map((c) => c.id),
    );

    expect(found.size).toBe(12);
  });

  it('gives up when calls keep returning nothing but unprocessed keys', async () => {
    dynamo.on(BatchGetCommand).resolves({ UnprocessedKeys: { [TABLE]: { Keys: [{ id: 'id-1' }] } } });

    const read = new ChannelRepository(documentClient, TABLE, { baseDelayMs: 1, maxAttempts: 3 }).getMany(['id-1']);

    await expect(read).rejects.toThrow('BatchGetItem left keys unprocessed after every retry');
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(3);
  });

  it('retries a throttled read', async () => {
    dynamo
      .on(BatchGetCommand)
      .rejectsOnce(throttling())
      .resolves({ Responses: { [TABLE]: [channel(1)] } });

    const found = await repository().getMany(['id-1']);

    expect(found.size).toBe(1);
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});

describe('ChannelRepository.getCompared', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it('reads only the compared attributes, strongly consistent: the key never travels', async () => {
    const { key: _key, source: _s, updatedAt: _u, ...compared } = channel(1);
    dynamo.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [compared] } });

    const found = await repository().getCompared(['id-1', 'id-2']);

    const request = dynamo.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.[TABLE];
    const names = Object.values(request?.ExpressionAttributeNames ?? {}).sort();
    expect(names).toEqual([
      'baseUrl',
      'createdAt',
      'editedAt',
      'id',
      'legacyType',
      'models',
      'name',
      'provider',
      'settings',
      'status',
    ]);
    expect(request?.ProjectionExpression?.split(', ').sort()).toEqual(
      Object.keys(request?.ExpressionAttributeNames ?? {}).sort(),
    );
    expect(request?.ConsistentRead).toBe(true);
    expect(found.get('id-1')).toEqual(compared);
  });
});

describe('ChannelRepository.isEmpty', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it('scans one item for its id only, with Select SPECIFIC_ATTRIBUTES, as the import role is allowed to', async () => {
    dynamo.on(ScanCommand).resolves({ Items: [] });

    const empty = await repository().isEmpty();

    expect(empty).toBe(true);
    const calls = dynamo.commandCalls(ScanCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Limit: 1,
      Select: 'SPECIFIC_ATTRIBUTES',
      ProjectionExpression: '#id',
      ExpressionAttributeNames: { '#id': 'id' },
      ConsistentRead: true,
    });
  });

  it('says a table holding one channel is not empty', async () => {
    dynamo.on(ScanCommand).resolves({ Items: [{ id: 'id-1' }], LastEvaluatedKey: { id: 'id-1' } });

    expect(await repository().isEmpty()).toBe(false);
  });
});
