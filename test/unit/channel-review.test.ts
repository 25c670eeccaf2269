import { ConditionalCheckFailedException, DynamoDBClient, ThrottlingException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { listChannels, parseListQuery } from '#functions/list-channels/list-channels';
import { updateChannel } from '#functions/update-channel/update-channel';
import { looksMasked, maskKey, parseChannelId, toChannelView } from '#shared/channel-view';
import { adminHandler } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { ChannelChangedError, ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { reviewChannel } from '#test/integration/channel-review.helpers';
import { testLogger } from '#test/integration/import.helpers';
import { captureOutput } from '#test/support/capture-output';
import { proxyEvent } from '#test/support/events';

const TABLE = 'channels-test';
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const dynamo = mockClient(documentClient);
const repository = () => new ChannelRepository(documentClient, TABLE, { baseDelayMs: 1 });
const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => {
  dynamo.reset();
});

describe('maskKey and looksMasked', () => {
  it('shows the first 3 and last 4 characters of a key of at least 24, else ****', () => {
    expect(maskKey('sk-012345678901234567890')).toBe('sk-\u20267890');
    expect(maskKey('123456789012345678901234')).toBe('123\u20261234');
    expect(maskKey('12345678901234567890123')).toBe('****');
    expect(maskKey('sk-0123456789')).toBe('****');
    expect(maskKey('')).toBe('****');
  });

  it('counts code points, so an emoji is never split in half', () => {
    const key = `\u{1F511}\u{1F511}\u{1F511}${'4'.repeat(17)}9\u{1F510}\u{1F510}\u{1F510}`;

    expect(maskKey(key)).toBe('\u{1F511}\u{1F511}\u{1F511}\u20269\u{1F510}\u{1F510}\u{1F510}');
    expect(maskKey(key.slice(0, -2))).toBe('****');
  });

  it('knows a masked key by its ellipsis or as ****', () => {
    expect([looksMasked('sk-\u20266789'), looksMasked('****'), looksMasked('*****'), looksMasked('sk-real')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('never puts the stored key into a view', () => {
    const channel = reviewChannel(1, { key: 'sk-secret-value-that-must-stay' });

    const view = toChannelView({ ...channel, editedAt: '2026-03-02T00:00:00.000Z' });

    expect(JSON.stringify(view)).not.toContain(channel.key);
    expect(view).toMatchObject({ key: 'sk-\u2026stay', editedAt: '2026-03-02T00:00:00.000Z' });
  });
});

describe('parseChannelId', () => {
  it('lower-cases a 64-character hex id and refuses anything else, naming the field', () => {
    expect(parseChannelId('AB'.repeat(32), 'id')).toBe('ab'.repeat(32));
    for (const bad of [undefined, null, 5, 'ab', 'g'.repeat(64), ` ${'a'.repeat(64)}`]) {
      expect(() => parseChannelId(bad, 'ids[2]')).toThrow(/^ids\[2\] must be a channel id/);
    }
  });
});

describe('parseListQuery', () => {
  it('defaults to page 1 of 10 with no filter when there is no query string', () => {
    expect(parseListQuery(null)).toEqual({ page: 1, perPage: 10, filter: {} });
  });

  it('reads every filter, lower-casing the keyword', () => {
    expect(
      parseListQuery({
        page: ['3'],
        per_page: ['25'],
        provider: ['openai'],
        status: ['disabled'],
        name: ['Main'],
        legacy_id: ['17'],
        keyword: ['GPT'],
      }),
    ).toEqual({
      page: 3,
      perPage: 25,
      filter: { provider: 'openai', status: 'disabled', name: 'Main', legacyId: 17 },
      keyword: 'gpt',
    });
  });
});

describe('listChannels', () => {
  it('leaves out a channel deleted between the scan and the read of its page', async () => {
    const [a, b] = [reviewChannel(1, { name: 'a' }), reviewChannel(2, { name: 'b' })];
    const repo = {
      scanEntries: async () => [a, b].map(({ id, provider, name }) => ({ id, provider, name })),
      getMany: async () => new Map([[b.id, b]]),
    };

    const page = await listChannels(parseListQuery(null), { repo, logger: testLogger() });

    expect(page).toEqual({ channels: [toChannelView(b)], total: 2 });
  });
});

describe('updateChannel', () => {
  const now = () => new Date('2026-03-05T00:00:00.000Z');

  it('reads again and retries when another write changed the channel in between', async () => {
    const channel = reviewChannel(1);
    let updates = 0;
    const repo = {
      get: async () => channel,
      update: async (): Promise<StoredChannel> => {
        updates += 1;
        if (updates < 3) throw new ChannelChangedError();
        return { ...channel, name: 'won' };
      },
    };

    const view = await updateChannel(channel.id, { name: 'won' }, { repo, now, logger: testLogger() });

    expect([view.name, updates]).toEqual(['won', 3]);
  });

  it('answers 409 when the channel keeps changing', async () => {
    const channel = reviewChannel(1);
    const repo = {
      get: async () => channel,
      update: async (): Promise<StoredChannel> => {
        throw new ChannelChangedError();
      },
    };

    const outcome = updateChannel(channel.id, { name: 'x' }, { repo, now, logger: testLogger() });

    await expect(outcome).rejects.toMatchObject({ httpStatus: 409, message: expect.stringMatching(/kept changing/) });
  });

  it('answers 404 when the channel was deleted between the failed write and the next read', async () => {
    const channel = reviewChannel(1);
    let reads = 0;
    const repo = {
      get: async () => (reads++ === 0 ? channel : undefined),
      update: async (): Promise<StoredChannel> => {
        throw new ChannelChangedError();
      },
    };

    await expect(updateChannel(channel.id, { name: 'x' }, { repo, now, logger: testLogger() })).rejects.toMatchObject({
      httpStatus: 404,
    });
  });

  it('lets a storage failure through as itself (the envelope makes it a generic 500)', async () => {
    const repo = {
      get: async () => reviewChannel(1),
      update: async (): Promise<StoredChannel> => {
        throw new Error('socket hang up');
      },
    };

    await expect(
      updateChannel(reviewChannel(1).id, { name: 'x' }, { repo, now, logger: testLogger() }),
    ).rejects.toThrow('socket hang up');
  });
});

describe('ChannelRepository (review calls)', () => {
  it('scans with a projection and the exact filters, page after page', async () => {
    const entry = (n: number) => ({ id: `id-${n}`, provider: 'openai', name: `n${n}` });
    dynamo
      .on(ScanCommand)
      .resolvesOnce({ Items: [entry(1)], LastEvaluatedKey: { id: 'id-1' } })
      .resolvesOnce({ Items: [entry(2)] });

    const entries = await new ChannelRepository(documentClient, TABLE, { scanSegments: 1 }).scanEntries(
      { provider: 'openai', name: 'n', status: 'enabled', legacyId: 4 },
      { forKeyword: true },
    );

    expect(entries).toEqual([entry(1), entry(2)]);
    const [first, second] = dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input);
    expect(first).toMatchObject({
      TableName: TABLE,
      ProjectionExpression: '#id, #provider, #name, #baseUrl, #models',
      FilterExpression:
        '#provider = :provider AND #name = :name AND #status = :status AND ' +
        '(begins_with(#source, :legacyIdPrefix) OR #source.#legacyId = :legacyId)',
      ExpressionAttributeValues: {
        ':provider': 'openai',
        ':name': 'n',
        ':status': 'enabled',
        ':legacyIdPrefix': '{"legacyId":4,',
        ':legacyId': 4,
      },
    });
    expect(first?.ProjectionExpression).not.toMatch(/key/i);
    expect(second?.ExclusiveStartKey).toEqual({ id: 'id-1' });
  });

  it('scans in 4 parallel segments by default and returns the entries of all of them', async () => {
    dynamo.on(ScanCommand).callsFake((input: { Segment?: number }) => ({
      Items: [{ id: `id-${input.Segment}`, provider: 'p', name: 'n' }],
    }));

    const entries = await repository().scanEntries({});

    const inputs = dynamo.commandCalls(ScanCommand).map((c) => c.args[0].input);
    expect(inputs.map((i) => [i.Segment, i.TotalSegments]).sort()).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(entries.map((e) => e.id).sort()).toEqual(['id-0', 'id-1', 'id-2', 'id-3']);
  });

  it('scans without a filter expression when no filter is set, reading only id, provider and name', async () => {
    dynamo.on(ScanCommand).resolves({ Items: [] });

    await repository().scanEntries({});

    const input = dynamo.commandCalls(ScanCommand)[0]?.args[0].input;
    expect(input?.ProjectionExpression).toBe('#id, #provider, #name');
    expect(input?.FilterExpression).toBeUndefined();
    expect(input?.ExpressionAttributeValues).toBeUndefined();
  });

  it('updates conditionally on the updatedAt it read, stamps editedAt, and reports a lost race', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());

    const outcome = repository().update(
      'id-1',
      { status: 'disabled' },
      '2026-03-05T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    );

    await expect(outcome).rejects.toBeInstanceOf(ChannelChangedError);
    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.ConditionExpression).toBe('attribute_exists(#id) AND #readUpdatedAt = :readUpdatedAt');
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':readUpdatedAt': '2026-03-01T00:00:00.000Z',
      ':v0': 'disabled',
      ':v1': '2026-03-05T00:00:00.000Z',
      ':v2': '2026-03-05T00:00:00.000Z',
    });
    expect(Object.values(input?.ExpressionAttributeNames ?? {})).toEqual(
      expect.arrayContaining(['status', 'updatedAt', 'editedAt']),
    );
  });

  it('updates a channel stored without updatedAt on the condition that it still has none', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: { id: 'id-1' } });

    await repository().update('id-1', { name: 'x' }, '2026-03-05T00:00:00.000Z', undefined);

    const input = dynamo.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.ConditionExpression).toBe('attribute_exists(#id) AND attribute_not_exists(#readUpdatedAt)');
    expect(input?.ExpressionAttributeValues).not.toHaveProperty(':readUpdatedAt');
  });

  it('lets any other update failure through unchanged', async () => {
    dynamo.on(UpdateCommand).rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));

    await expect(repository().update('id-1', { name: 'x' }, 'now', 'then')).rejects.toBeInstanceOf(ThrottlingException);
  });

  it('deletes on condition that the channel exists, and answers false when it did not', async () => {
    dynamo.on(DeleteCommand).rejectsOnce(conditionFailed()).resolves({});

    const missing = await repository().delete('id-1');
    const existing = await repository().delete('id-2');

    expect([missing, existing]).toEqual([false, true]);
    expect(dynamo.commandCalls(DeleteCommand)[0]?.args[0].input.ConditionExpression).toBe('attribute_exists(#id)');
  });

  it('lets any other delete failure through', async () => {
    dynamo.on(DeleteCommand).rejects(new Error('network down'));

    await expect(repository().delete('id-1')).rejects.toThrow('network down');
  });

  it('deletes many by reading which exist, then deleting only those in batches of 25', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `id-${i}`);
    const existing = ids.slice(0, 30);
    dynamo.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: { id: string }[] }> }) => ({
      Responses: {
        [TABLE]: (input.RequestItems[TABLE]?.Keys ?? [])
          .filter((k) => existing.includes(k.id))
          .map((k) => ({ id: k.id })),
      },
    }));
    dynamo.on(BatchWriteCommand).resolves({});

    const deleted = await repository().deleteMany(ids);

    expect(deleted).toBe(30);
    const sent = dynamo.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.[TABLE] ?? []);
    expect(sent.map((batch) => batch.length)).toEqual([25, 5]);
    expect(sent.flat().map((r) => r.DeleteRequest?.Key?.id)).toEqual(existing);
  });
});

describe('adminHandler', () => {
  const run = async (authorizer: Record<string, unknown> | null, handle: () => Promise<unknown>) => {
    const output = captureOutput();
    try {
      const result = await adminHandler(testLogger('DEBUG'), handle)(proxyEvent('/api/channels', null, authorizer));
      return { result, logs: output.text() };
    } finally {
      output.restore();
    }
  };
  const admin = { scope: 'admin', teamId: '', tmbId: '', tokenId: 'admin' };

  it('answers 401 without calling the function when the authorizer context is missing or not the admin scope', async () => {
    let calls = 0;
    const handle = async () => {
      calls += 1;
      return null;
    };

    const none = await run(null, handle);
    const dataset = await run({ scope: 'dataset', teamId: 't', tmbId: 'm', tokenId: 'tok' }, handle);

    for (const { result } of [none, dataset]) {
      expect([result.statusCode, JSON.parse(result.body)]).toEqual([
        401,
        { success: false, message: 'The admin key is required for this API' },
      ]);
    }
    expect(calls).toBe(0);
  });

  it('wraps a result in the success envelope', async () => {
    const { result } = await run(admin, async () => ({ deleted: 2 }));

    expect([result.statusCode, JSON.parse(result.body)]).toEqual([200, { success: true, data: { deleted: 2 } }]);
  });

  it('answers an unexpected error with a generic 500 and logs its summary, never its stack', async () => {
    const { result, logs } = await run(admin, async () => {
      throw new Error('The table channels-prod is being updated', { cause: new Error('inner') });
    });

    expect([result.statusCode, JSON.parse(result.body)]).toEqual([500, { success: false, message: 'Internal error' }]);
    expect(result.body).not.toContain('channels-prod');
    expect(logs).toContain('Unexpected error in the channel proxy API');
    expect(logs).not.toMatch(/at .*\.ts:\d+/);
  });

  it('shows an exposed error as it is', async () => {
    const { result } = await run(admin, async () => {
      throw new ProxyApiError(404, 'No channel has this id');
    });

    expect([result.statusCode, JSON.parse(result.body)]).toEqual([
      404,
      { success: false, message: 'No channel has this id' },
    ]);
  });
});
