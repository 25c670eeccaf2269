import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayCore, type RelayReply, serveRelay } from '#functions/relay/relay-http';
import { ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import type { RelayRequest, UsageRecord } from '#shared/relay/contract';
import {
  DynamoQuotaStore,
  DynamoRatioSource,
  QUOTA_EXHAUSTED_MESSAGE,
  QuotaMeter,
  RATIOS_KEY,
  ratiosFor,
  requestCost,
} from '#shared/relay/quota';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { type RelayKeyRecord, relayAuthorizerContext } from '#shared/relay-keys';
import { TABLES } from '#shared/tables';
import { startTestEngine, TEST_ENGINE_NAME, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';

// docs/relay.md, "Quotas": admission and metering through the `/v1` front door with the real quota store on the test
// engine (dynalite, or DYNAMODB_ENDPOINT's engine). The routing core is a fake that reports fixed usage and writes its
// record through the meter's sink, as the real core does.

let engine: TestEngine;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;
let keysTable: string;
let stateTable: string;

const USAGE = { promptTokens: 10, completionTokens: 20 };
const RATIOS = {
  family: 'oneapi',
  modelRatio: { 'gpt-4o': 2 },
  completionRatio: { 'gpt-4o': 1.5 },
  groupRatio: { vip: 1 },
};
// ceil((10 + 20 × 1.5) × 2 × 1) = 80, One API's formula.
const COST = 80;

beforeAll(async () => {
  engine = await startTestEngine();
  client = localDynamoClient(engine);
  documents = DynamoDBDocumentClient.from(client);
  keysTable = uniqueTableName('relayKeys');
  stateTable = uniqueTableName('relayState');
  await ensureTable(client, keysTable, TABLES.relayKeys);
  await ensureTable(client, stateTable, TABLES.relayState);
  await documents.send(new PutCommand({ TableName: stateTable, Item: { ...RATIOS_KEY, ...RATIOS } }));
});
afterAll(async () => {
  client?.destroy();
  await engine?.close();
});

let serial = 0;
async function putKey(fields: Partial<RelayKeyRecord>): Promise<RelayKeyRecord> {
  serial += 1;
  const record: RelayKeyRecord = {
    keyHash: serial.toString(16).padStart(64, 'a'),
    id: serial.toString(16).padStart(24, 'b'),
    name: `quota-${serial}`,
    groups: ['vip'],
    expiresAt: null,
    status: 'enabled',
    createdAt: '2026-11-27T00:00:00.000Z',
    usedQuota: 0,
    ...fields,
  };
  await documents.send(new PutCommand({ TableName: keysTable, Item: record }));
  return record;
}

async function quotaOf(record: RelayKeyRecord) {
  const { Item } = await documents.send(new GetCommand({ TableName: keysTable, Key: { keyHash: record.keyHash } }));
  return { remain: Item?.remainQuota as number | undefined, used: Item?.usedQuota as number | undefined };
}

/** The front door over a fake core, metered by a QuotaMeter on the test engine. */
function frontDoor() {
  const records = new MemoryUsageSink();
  const meter = new QuotaMeter(
    new DynamoQuotaStore(documents, keysTable),
    new DynamoRatioSource(documents, stateTable),
  );
  const sink = meter.sink(records);
  const core: RelayCore = {
    async handle(request: RelayRequest) {
      const record: UsageRecord = {
        requestId: request.requestId,
        time: '2026-11-27T10:00:00.000Z',
        keyId: request.caller.keyId,
        group: request.caller.groups[0] ?? 'default',
        endpoint: request.endpoint,
        requestedModel: String(request.body.model),
        attempts: [{ channelId: 'ch-1', status: 200 }],
        status: 200,
        ...USAGE,
        totalTokens: 30,
        durationMs: 5,
        stream: false,
        clientGone: false,
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': request.requestId },
        body: (async function* () {
          yield Buffer.from('{"ok":true}');
        })(),
        done: sink.write(record).then(() => record),
      };
    },
    async listModels() {
      return [];
    },
  };
  let n = 0;
  const send = async (key: RelayKeyRecord): Promise<RelayReply & { text: string }> => {
    n += 1;
    const event = {
      resource: '/v1/chat/completions',
      path: '/v1/chat/completions',
      httpMethod: 'POST',
      headers: {},
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 }),
      isBase64Encoded: false,
      requestContext: { authorizer: relayAuthorizerContext(key), identity: { sourceIp: '203.0.113.7' } },
    } as unknown as APIGatewayProxyEvent;
    const reply = await serveRelay(event, {
      core,
      requestId: `req-${key.id}-${n}`,
      signal: new AbortController().signal,
      quota: meter,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of reply.body) chunks.push(Buffer.from(chunk));
    await reply.done;
    return { ...reply, text: Buffer.concat(chunks).toString('utf8') };
  };
  return { send, records };
}

describe(`quotas on ${TEST_ENGINE_NAME}`, () => {
  it("prices a request with One API's formula and the imported ratios", () => {
    expect(requestCost(USAGE, ratiosFor(RATIOS, 'gpt-4o', 'vip'))).toBe(COST);
    // A model without a ratio: One API's 30, completions at 1 (30 × 30 = 900); a group without one: 1; no tokens: free.
    expect(requestCost(USAGE, ratiosFor(RATIOS, 'other', 'default'))).toBe(900);
    expect(requestCost({}, ratiosFor(RATIOS, 'gpt-4o', 'vip'))).toBe(0);
  });

  it("exhausts a small quota after the predicted number of requests, then answers 429 with One API's message", async () => {
    const key = await putKey({ unlimitedQuota: false, remainQuota: 200 });
    const { send, records } = frontDoor();
    const predicted = Math.ceil(200 / COST);

    const statuses: number[] = [];
    let refusal = '';
    for (let i = 0; i < predicted + 2; i += 1) {
      const reply = await send(key);
      statuses.push(reply.status);
      if (reply.status === 429) refusal = reply.text;
    }

    expect(predicted).toBe(3);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(JSON.parse(refusal)).toMatchObject({
      error: { message: QUOTA_EXHAUSTED_MESSAGE, code: 'insufficient_quota' },
    });
    expect(await quotaOf(key)).toEqual({ remain: 200 - 3 * COST, used: 3 * COST });
    expect(records.records.map((r) => r.cost)).toEqual([COST, COST, COST]);
  });

  it('never lets 50 concurrent requests overspend by more than one request’s cost', async () => {
    const initial = 1000;
    const key = await putKey({ unlimitedQuota: false, remainQuota: initial });
    const { send, records } = frontDoor();

    const replies = await Promise.all(Array.from({ length: 50 }, () => send(key)));

    const admitted = replies.filter((r) => r.status === 200).length;
    const refused = replies.filter((r) => r.status === 429).length;
    const { remain, used } = await quotaOf(key);
    expect(admitted + refused).toBe(50);
    expect(admitted).toBeGreaterThan(0);
    expect(used).toBe(admitted * COST);
    expect(remain).toBe(initial - admitted * COST);
    expect(remain).toBeGreaterThan(-COST);
    expect(records.records).toHaveLength(admitted);
    // Once settled, every admitted request left room for the next sequential one until the quota ran out.
    while ((await send(key)).status === 200) {}
    const final = await quotaOf(key);
    expect(final.remain).toBeLessThanOrEqual(0);
    expect(final.remain).toBeGreaterThan(-COST);
  });

  it('never meters an unlimited key, but prices its requests in the usage record', async () => {
    const key = await putKey({ unlimitedQuota: true, remainQuota: 0 });
    const { send, records } = frontDoor();

    const reply = await send(key);

    expect(reply.status).toBe(200);
    expect(await quotaOf(key)).toEqual({ remain: 0, used: 0 });
    expect(records.records.map((r) => r.cost)).toEqual([COST]);
  });
});

describe('a limited key not yet in the byId index', () => {
  it('is admitted with nothing reserved and charged its cost once the record is written', async () => {
    const settled: [string, number][] = [];
    const meter = new QuotaMeter(
      {
        reserve: async () => 'unindexed',
        settle: async (keyId, delta) => {
          settled.push([keyId, delta]);
        },
      },
      { ratios: async () => RATIOS },
    );
    const records = new MemoryUsageSink();

    await meter.admit({
      requestId: 'r-1',
      keyId: 'k-1',
      limitedQuota: true,
      group: 'vip',
      model: 'gpt-4o',
      body: {},
      bodyBytes: 10,
      endpoint: 'chat',
    });
    await meter.sink(records).write({
      requestId: 'r-1',
      time: '2026-11-27T10:00:00.000Z',
      keyId: 'k-1',
      group: 'vip',
      endpoint: 'chat',
      requestedModel: 'gpt-4o',
      attempts: [],
      status: 200,
      ...USAGE,
      durationMs: 1,
      stream: false,
      clientGone: false,
    });

    expect(settled).toEqual([['k-1', -COST]]);
    expect(records.records[0]?.cost).toBe(COST);
  });
});
