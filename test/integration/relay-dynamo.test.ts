import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamo-engine';
import { parseAllowList } from '#shared/allow-list';
import { DynamoChannelSource } from '#shared/relay/channel-source';
import type { UsageRecord } from '#shared/relay/contract';
import { createDynamoRelay } from '#shared/relay/dynamo-relay';
import { DynamoHealthStore, HEALTH_PARTITION } from '#shared/relay/health';
import { DynamoUsageSink } from '#shared/relay/usage-store';
import { toChannelItem } from '#shared/repositories/channels';
import { TABLES, type TableDef } from '#shared/tables';
import { uniqueTableName } from '#test/support/dynamo-engine';
import { startFakeOpenAi } from '#test/support/fake-upstreams';
import { chatRequest, complete, ManualClock } from '#test/support/relay-fixtures';
import { useTestEngine } from '#test/support/test-engine';

const db = useTestEngine();

/** The relay's tables as docs/relay.md describes them (declared here, so the test holds wherever the defs live). */
const RELAY_TABLES = {
  relayState: { logicalName: 'relayState', partitionKey: 'pk', sortKey: 'sk' },
  usage: { logicalName: 'usage', partitionKey: 'day', sortKey: 'sk' },
} as const;

async function table(def: Pick<TableDef, 'partitionKey' | 'sortKey'> & { logicalName: string }, base: string) {
  const name = uniqueTableName(base);
  await ensureTable(db.client, name, def as unknown as TableDef);
  return name;
}

async function putChannel(tableName: string, id: string, overrides: Record<string, unknown> = {}): Promise<void> {
  const item = toChannelItem({
    id,
    provider: 'openai',
    legacyType: 1,
    name: id,
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o-mini'],
    key: `sk-${id}`,
    status: 'enabled',
    source: { legacyId: 1, host: 'h', database: 'd' },
    createdAt: '2026-11-27T00:00:00.000Z',
    updatedAt: '2026-11-27T00:00:00.000Z',
    settings: { priority: 2, groups: ['default', 'vip'] },
    ...overrides,
  });
  await db.documents.send(new PutCommand({ TableName: tableName, Item: item }));
}

/** A health store over fresh tables, its channels table holding one enabled channel `id`, and its manual clock. */
async function healthWithChannel(id: string) {
  const clock = new ManualClock();
  const channelsTable = await table(TABLES.channels, 'channels');
  await putChannel(channelsTable, id);
  const store = new DynamoHealthStore({
    client: db.documents,
    tableName: await table(RELAY_TABLES.relayState, 'relayState'),
    channelsTableName: channelsTable,
    clock,
  });
  return { clock, channelsTable, store };
}

describe('relay health on DynamoDB', () => {
  it('keeps one item per failing channel in the health partition, cools it down after 3 failures and deletes it on success', async () => {
    // prepare
    const clock = new ManualClock();
    const store = new DynamoHealthStore({
      client: db.documents,
      tableName: await table(RELAY_TABLES.relayState, 'relayState'),
      channelsTableName: await table(TABLES.channels, 'channels'),
      clock,
    });
    // act
    for (let i = 0; i < 3; i++) await store.recordFailure({ channelId: 'c1', errorClass: 'server', invalidKey: false });
    await store.recordFailure({ channelId: 'c2', errorClass: 'timeout', invalidKey: false });
    clock.advance(2000);
    const view = await store.view();
    // assert
    expect(view.isCoolingDown('c1', clock.now())).toBe(true);
    expect(view.get('c1')).toMatchObject({
      failures: 3,
      coolDownUntil: clock.now() - 2000 + 60_000,
      lastErrorClass: 'server',
    });
    expect(view.isCoolingDown('c2', clock.now())).toBe(false);
    // act: the first success resets the channel
    await store.recordSuccess('c1');
    clock.advance(2000);
    const after = await store.view();
    // assert
    expect(after.get('c1')).toBeUndefined();
    expect(after.get('c2')?.failures).toBe(1);
  });

  it('shares failures between instances: two instances failing a channel in turn cool it down for both', async () => {
    // prepare
    const clock = new ManualClock();
    const tableName = await table(RELAY_TABLES.relayState, 'relayState');
    const instance = () =>
      new DynamoHealthStore({ client: db.documents, tableName, channelsTableName: 'unused', clock });
    const a = instance();
    const b = instance();
    await a.view();
    // act
    await a.recordFailure({ channelId: 'shared', errorClass: 'server', invalidKey: false });
    await b.recordFailure({ channelId: 'shared', errorClass: 'timeout', invalidKey: false });
    await a.recordFailure({ channelId: 'shared', errorClass: 'rate-limited', invalidKey: false });
    clock.advance(1000);
    const [viewA, viewB] = await Promise.all([a.view(), b.view()]);
    // assert
    expect(viewA.get('shared')?.failures).toBe(3);
    expect(viewA.isCoolingDown('shared', clock.now())).toBe(true);
    expect(viewB.isCoolingDown('shared', clock.now())).toBe(true);
  });

  it('doubles the cool-down while failures continue, up to 15 minutes', async () => {
    // prepare
    const clock = new ManualClock();
    const tableName = await table(RELAY_TABLES.relayState, 'relayState');
    const store = new DynamoHealthStore({ client: db.documents, tableName, channelsTableName: 'unused', clock });
    // act
    for (let i = 0; i < 10; i++) await store.recordFailure({ channelId: 'c', errorClass: 'server', invalidKey: false });
    const { Item } = await db.documents.send(
      new GetCommand({ TableName: tableName, Key: { pk: HEALTH_PARTITION, sk: 'c' } }),
    );
    // assert
    expect(Item?.coolDownUntil).toBe(clock.now() + 15 * 60_000);
  });

  it('reads all health with one cached Query per second', async () => {
    // prepare
    const clock = new ManualClock();
    let queries = 0;
    const counting = DynamoDBDocumentClient.from(db.client);
    counting.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queries++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const store = new DynamoHealthStore({
      client: counting,
      tableName: await table(RELAY_TABLES.relayState, 'relayState'),
      channelsTableName: 'unused',
      clock,
    });
    // act
    await Promise.all([store.view(), store.view()]);
    clock.advance(500);
    await store.view();
    clock.advance(600);
    await store.view();
    // assert
    expect(queries).toBe(2);
  });

  it('auto-disables a channel after 3 invalid-key failures in a row, not after 1, with a reason and time', async () => {
    // prepare
    const { clock, channelsTable, store } = await healthWithChannel('bad');
    const statusOf = async () =>
      (await db.documents.send(new GetCommand({ TableName: channelsTable, Key: { id: 'bad' } }))).Item;
    // act
    await store.recordFailure({ channelId: 'bad', errorClass: 'auth', invalidKey: true });
    const afterOne = (await statusOf())?.status;
    await store.recordFailure({ channelId: 'bad', errorClass: 'auth', invalidKey: true });
    await store.recordFailure({ channelId: 'bad', errorClass: 'auth', invalidKey: true });
    const after = await statusOf();
    // assert
    expect(afterOne).toBe('enabled');
    expect(after).toMatchObject({ status: 'auto-disabled', statusChangedAt: new Date(clock.now()).toISOString() });
    expect(after?.statusReason).toContain('invalid');
  });

  it('does not auto-disable when a non-auth failure breaks the run of invalid-key failures', async () => {
    // prepare
    const { channelsTable, store } = await healthWithChannel('mixed');
    // act
    await store.recordFailure({ channelId: 'mixed', errorClass: 'auth', invalidKey: true });
    await store.recordFailure({ channelId: 'mixed', errorClass: 'auth', invalidKey: true });
    await store.recordFailure({ channelId: 'mixed', errorClass: 'server', invalidKey: false });
    await store.recordFailure({ channelId: 'mixed', errorClass: 'auth', invalidKey: true });
    // assert
    const { Item } = await db.documents.send(new GetCommand({ TableName: channelsTable, Key: { id: 'mixed' } }));
    expect(Item?.status).toBe('enabled');
  });
});

describe('relay channel source on DynamoDB', () => {
  it('scans and decodes every channel, then serves the snapshot while rescanning in the background', async () => {
    // prepare
    const clock = new ManualClock();
    const channelsTable = await table(TABLES.channels, 'channels');
    await putChannel(channelsTable, 'a');
    await putChannel(channelsTable, 'b', { status: 'disabled' });
    const source = new DynamoChannelSource({ client: db.documents, tableName: channelsTable, clock, maxAgeMs: 5000 });
    // act
    const first = await source.snapshot();
    await putChannel(channelsTable, 'c', { models: ['new-model'] });
    clock.advance(1000);
    const warm = await source.snapshot();
    clock.advance(5000);
    const stale = await source.snapshot();
    await source.settled();
    const fresh = await source.snapshot();
    // assert
    expect(first.byId.get('a')).toMatchObject({ status: 'enabled', key: 'sk-a', settings: { priority: 2 } });
    expect(
      first.index
        .get('vip')
        ?.get('gpt-4o-mini')?.[0]
        ?.channels.map((c) => c.id),
    ).toEqual(['a']);
    expect(warm).toBe(first);
    expect(stale).toBe(first);
    expect(fresh.byId.has('c')).toBe(true);
    expect(source.scans).toBe(2);
  });
});

describe('relay usage records on DynamoDB', () => {
  it('writes one record per request under its day, in time order, with a TTL after the retention', async () => {
    // prepare
    const tableName = await table(RELAY_TABLES.usage, 'usage');
    const sink = new DynamoUsageSink(db.documents, tableName, 90);
    const record: UsageRecord = {
      requestId: 'req-1',
      time: '2026-11-27T12:00:00.000Z',
      keyId: 'key-1',
      group: 'default',
      endpoint: 'chat',
      requestedModel: 'alias',
      upstreamModel: 'gpt-4o',
      channelId: 'c1',
      attempts: [
        { channelId: 'c0', status: 500, errorClass: 'server' },
        { channelId: 'c1', status: 200 },
      ],
      status: 200,
      promptTokens: 3,
      durationMs: 40,
      stream: false,
      clientGone: false,
    };
    // act
    await sink.write(record);
    const { Items } = await db.documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#d = :d',
        ExpressionAttributeNames: { '#d': 'day' },
        ExpressionAttributeValues: { ':d': '2026-11-27' },
      }),
    );
    // assert
    expect(Items).toEqual([
      {
        ...record,
        day: '2026-11-27',
        sk: '2026-11-27T12:00:00.000Z#req-1',
        expiresAt: Date.parse('2026-11-27T12:00:00.000Z') / 1000 + 90 * 86_400,
      },
    ]);
    const all = await db.documents.send(new ScanCommand({ TableName: tableName }));
    expect(all.Items?.[0]).not.toHaveProperty('completionTokens');
  });

  it('writes the records of concurrent requests together, a lone one at once, each caller told when its own is stored', async () => {
    // prepare: a client that counts its calls
    const tableName = await table(RELAY_TABLES.usage, 'usage');
    const documents = DynamoDBDocumentClient.from(db.client);
    const calls: string[] = [];
    documents.middlewareStack.add(
      (next, context) => (args) => {
        calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countCalls' },
    );
    const sink = new DynamoUsageSink(documents, tableName, 90);
    const record = (n: number): UsageRecord => ({
      requestId: `req-${n}`,
      time: `2026-11-27T12:00:${String(n % 60).padStart(2, '0')}.000Z`,
      keyId: 'key-1',
      group: 'default',
      endpoint: 'embeddings',
      requestedModel: 'text-embedding-3-small',
      upstreamModel: 'text-embedding-3-small',
      channelId: 'c1',
      attempts: [{ channelId: 'c1', status: 200 }],
      status: 200,
      durationMs: 5,
      stream: false,
      clientGone: false,
    });
    const stored = async () =>
      (await db.documents.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }))).Items ?? [];
    // act: one alone, then 60 at once
    await sink.write(record(0));
    const lone = [...calls];
    const stages = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        await sink.write(record(i + 1));
        // Each caller's record is stored when its promise settles.
        return (await stored()).some((item) => item.requestId === `req-${i + 1}`);
      }),
    );
    // assert
    expect(lone).toEqual(['BatchWriteItemCommand']);
    expect(stages.every(Boolean)).toBe(true);
    expect((await stored()).map((i) => i.requestId).sort()).toEqual(
      Array.from({ length: 61 }, (_, i) => `req-${i}`).sort(),
    );
    // The first of the 60 goes alone; the 59 that arrive meanwhile go together, 25 per call.
    expect(calls.filter((c) => c === 'BatchWriteItemCommand').length).toBeLessThanOrEqual(1 + 1 + 3);
  });
});

describe('the relay wired to DynamoDB', () => {
  it('serves from the channels table, records usage, and stops routing to a channel it auto-disabled', async () => {
    // prepare
    const fake = await startFakeOpenAi({ key: 'sk-good' });
    const clock = new ManualClock();
    const tables = {
      channels: await table(TABLES.channels, 'channels'),
      relayState: await table(RELAY_TABLES.relayState, 'relayState'),
      usage: await table(RELAY_TABLES.usage, 'usage'),
    };
    await putChannel(tables.channels, 'bad', { baseUrl: fake.url, key: 'sk-revoked', settings: { priority: 5 } });
    await putChannel(tables.channels, 'good', { baseUrl: fake.url, key: 'sk-good', settings: { priority: 0 } });
    const relay = createDynamoRelay({
      client: db.documents,
      tables,
      allowedHosts: parseAllowList(['127.0.0.1']),
      clock,
      random: () => 0.5,
    });
    try {
      // act: three requests, each failing over from the revoked key to the good one (no cool-down before the third)
      const records = [];
      for (let i = 0; i < 3; i++) {
        const { record } = await complete(await relay.handle(chatRequest({})));
        records.push(record);
      }
      clock.advance(200_000); // past the cool-down and the snapshot's age: this request still sees the old snapshot
      const { record: stale } = await complete(await relay.handle(chatRequest({})));
      await relay.channels.settled();
      clock.advance(1_000_000); // past any cool-down: only the snapshot keeps the bad channel out now
      const before = fake.requests.length;
      const { record: last } = await complete(await relay.handle(chatRequest({})));
      // assert
      expect(records.map((r) => r.attempts.map((a) => `${a.channelId}:${a.status}`))).toEqual([
        ['bad:401', 'good:200'],
        ['bad:401', 'good:200'],
        ['bad:401', 'good:200'],
      ]);
      const stored = await db.documents.send(new GetCommand({ TableName: tables.channels, Key: { id: 'bad' } }));
      expect(stored.Item?.status).toBe('auto-disabled');
      expect(stale.attempts.map((a) => a.channelId)).toEqual(['bad', 'good']);
      expect(last.attempts).toEqual([{ channelId: 'good', status: 200 }]);
      expect(fake.requests.length - before).toBe(1);
      const usage = await db.documents.send(new ScanCommand({ TableName: tables.usage }));
      expect(usage.Items).toHaveLength(5);
      expect(JSON.stringify(usage.Items)).not.toContain('sk-revoked');
    } finally {
      relay.close();
      await fake.close();
    }
  });
});
