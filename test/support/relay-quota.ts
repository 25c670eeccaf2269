import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll } from 'vitest';
import { type RelayCore, type RelayReply, serveRelay } from '#functions/relay/relay-http';
import { ensureTable } from '#infra/local/dynamo-engine';
import type { RelayRequest, UsageRecord } from '#shared/relay/contract';
import {
  DynamoQuotaStore,
  DynamoRatioSource,
  QuotaMeter,
  type QuotaStore,
  RATIOS_KEY,
  ratiosFor,
  reservationFor,
} from '#shared/relay/quota';
import { type LeaseOptions, QuotaLeases } from '#shared/relay/quota-lease';
import { DynamoLeaseStore, type KeyHashes, type LeaseStore, leaseRecords } from '#shared/relay/quota-lease-store';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { type RelayKeyRecord, relayAuthorizerContext } from '#shared/relay-keys';
import { TABLES } from '#shared/tables';
import { uniqueTableName } from './dynamo-engine.ts';
import { proxyEvent } from './events.ts';
import { useTestEngine } from './test-engine.ts';

/*
 * The quota tests' world (docs/relay.md, "Quotas"): the relay keys and state tables on the test engine, keys with a
 * quota, and the `/v1` front door over a fake core that reports fixed usage and writes its record through the meter's
 * sink, as the real core does.
 */

export const USAGE = { promptTokens: 10, completionTokens: 20 };
export const RATIOS = {
  family: 'oneapi',
  modelRatio: { 'gpt-4o': 2 },
  completionRatio: { 'gpt-4o': 1.5 },
  groupRatio: { vip: 1 },
};
/** ceil((10 + 20 × 1.5) × 2 × 1) = 80, One API's formula. */
export const COST = 80;

export interface QuotaWorld {
  readonly documents: DynamoDBDocumentClient;
  readonly keysTable: string;
  readonly stateTable: string;
}

/** The test file's engine with a relay keys table and a state table holding RATIOS, ready before its tests. */
export function useQuotaWorld(): QuotaWorld {
  const db = useTestEngine();
  const tables = { keysTable: uniqueTableName('relayKeys'), stateTable: uniqueTableName('relayState') };
  beforeAll(async () => {
    await ensureTable(db.client, tables.keysTable, TABLES.relayKeys);
    await ensureTable(db.client, tables.stateTable, TABLES.relayState);
    await db.documents.send(new PutCommand({ TableName: tables.stateTable, Item: { ...RATIOS_KEY, ...RATIOS } }));
  });
  return {
    get documents() {
      return db.documents;
    },
    ...tables,
  };
}

let serial = 0;
/** A key of its own (unique hash and id) with the given quota fields. */
export async function putKey(world: QuotaWorld, fields: Partial<RelayKeyRecord>): Promise<RelayKeyRecord> {
  serial += 1;
  const tag = `${process.pid.toString(16)}${serial.toString(16).padStart(6, '0')}`;
  const record: RelayKeyRecord = {
    keyHash: tag.padStart(64, 'a'),
    id: tag.padStart(24, 'b'),
    name: `quota-${serial}`,
    groups: ['vip'],
    expiresAt: null,
    status: 'enabled',
    createdAt: '2026-11-27T00:00:00.000Z',
    usedQuota: 0,
    ...fields,
  };
  await world.documents.send(new PutCommand({ TableName: world.keysTable, Item: record }));
  return record;
}

/** The key's quota as its item holds it, with the blocks leased from it. */
export async function quotaOf(world: QuotaWorld, record: RelayKeyRecord) {
  const { Item } = await world.documents.send(
    new GetCommand({ TableName: world.keysTable, Key: { keyHash: record.keyHash } }),
  );
  return {
    remain: Item?.remainQuota as number | undefined,
    used: Item?.usedQuota as number | undefined,
    leases: leaseRecords(Item),
  };
}

/** Counts the calls made through a store (the round trips admission and metering cost). */
export function counting<T extends object>(store: T): { store: T; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

/** A meter on the test engine as the `/v1` function builds it; `leases: false` reserves per request only. */
export function quotaMeter(
  world: QuotaWorld,
  options: { leases?: false | Partial<LeaseOptions>; now?: () => number } = {},
) {
  const errors: string[] = [];
  const onError = (message: string, error: unknown) => {
    errors.push(`${message}: ${String(error)}`);
  };
  const base = new DynamoQuotaStore(world.documents, world.keysTable);
  const quota = counting<QuotaStore & KeyHashes>(base);
  const lease = counting<LeaseStore>(new DynamoLeaseStore(world.documents, world.keysTable, base));
  const leases =
    options.leases === false ? undefined : new QuotaLeases(lease.store, options.leases ?? {}, onError, options.now);
  const meter = new QuotaMeter(quota.store, new DynamoRatioSource(world.documents, world.stateTable), onError, leases);
  return { meter, leases, errors, calls: { quota: quota.calls, lease: lease.calls } };
}

/** The usage record the fake core reports for a chat request of `keyId` in group vip (One API's tokens: `usage`). */
export function usageRecord(
  requestId: string,
  keyId: string,
  usage: { promptTokens: number; completionTokens: number } = USAGE,
): UsageRecord {
  return {
    requestId,
    time: '2026-11-27T10:00:00.000Z',
    keyId,
    group: 'vip',
    endpoint: 'chat',
    requestedModel: 'gpt-4o',
    attempts: [{ channelId: 'ch-1', status: 200 }],
    status: 200,
    ...usage,
    totalTokens: usage.promptTokens + usage.completionTokens,
    durationMs: 5,
    stream: false,
    clientGone: false,
  };
}

const BODY = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 };

/** What one request of `frontDoor` reserves (its estimate, an upper bound of COST). */
export const ESTIMATE = reservationFor(
  BODY,
  Buffer.byteLength(JSON.stringify(BODY)),
  ratiosFor(RATIOS, 'gpt-4o', 'vip'),
);

/** The `/v1` front door over a fake core whose records (with `usage`) go through `meter`'s sink. */
export function frontDoor(meter: QuotaMeter, usage: { promptTokens: number; completionTokens: number } = USAGE) {
  const records = new MemoryUsageSink();
  const sink = meter.sink(records);
  const core: RelayCore = {
    async handle(request: RelayRequest) {
      const record = usageRecord(request.requestId, request.caller.keyId, usage);
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
    const event = proxyEvent('/v1/chat/completions', JSON.stringify(BODY), relayAuthorizerContext(key), '203.0.113.7');
    const reply = await serveRelay(event, {
      core,
      requestId: `req-${key.id}-${n}-${Math.random()}`,
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
