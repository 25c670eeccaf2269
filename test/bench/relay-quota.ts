import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { serveRelay } from '#functions/relay/relay-http';
import { ensureTable, localDynamoClient, startDynamoEngine } from '#infra/local/dynamo-engine';
import { parseAllowList } from '#shared/allow-list';
import { staticChannelSource } from '#shared/relay/channel-source';
import type { RelayChannel, UsageSink } from '#shared/relay/contract';
import { MemoryHealthStore } from '#shared/relay/health';
import {
  DynamoQuotaStore,
  DynamoRatioSource,
  QuotaMeter,
  type QuotaStore,
  RATIOS_KEY,
  type RatioConfig,
} from '#shared/relay/quota';
import { QuotaLeases } from '#shared/relay/quota-lease';
import { DynamoLeaseStore } from '#shared/relay/quota-lease-store';
import { createRelay, type Relay } from '#shared/relay/relay';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { TABLES } from '#shared/tables';
import { proxyEvent } from '#test/support/events';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { type Figure, figure, median, quantile } from './figures.ts';

/*
 * Part of `relay`: what quota admission and metering add to a relayed request in-process (docs/performance.md,
 * "Quotas"), against the same relay without quotas in the same run, alternating request by request. Twice: with the
 * quota calls answered in memory (the cost of the code: pricing, the reservation's bookkeeping, the metered sink), and
 * with the quota store on the local DynamoDB engine (dynalite): as the `/v1` function runs it, with the per-instance
 * lease (a block of the key's quota reserved ahead, so admission makes no round trip; the target), and reserving per
 * request (admission waits for one conditional UpdateItem; for comparison). Settlement runs after the response (the
 * record's sink), so it is not in the request's time.
 */

export interface QuotaBenchOptions {
  requests: number;
  warmup: number;
  log: (line: string) => void;
}

const TARGET_P50_MS = 1;
const BODY = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };
const KEY = 'sk-bench-upstream-key-000000000000000000000000';
const KEY_ID = 'b'.repeat(24);
const RATIOS: RatioConfig = {
  family: 'oneapi',
  modelRatio: { 'gpt-4o-mini': 0.075 },
  completionRatio: { 'gpt-4o-mini': 4 },
  groupRatio: { default: 1 },
};

function event(limited: boolean): APIGatewayProxyEvent {
  const authorizer = {
    scope: 'relay',
    keyId: KEY_ID,
    groups: '["default"]',
    models: '',
    ips: '',
    expiresAt: '',
    ...(limited ? { quota: 'limited' } : {}),
  };
  return proxyEvent('/v1/chat/completions', JSON.stringify(BODY), authorizer, '127.0.0.1');
}

function relayOver(upstream: FakeUpstream, usage: UsageSink): Relay {
  const clock = { now: () => Date.now() };
  const channel: RelayChannel = {
    id: 'c'.repeat(64),
    provider: 'openai',
    name: 'bench',
    baseUrl: upstream.url,
    key: KEY,
    models: ['gpt-4o-mini'],
    status: 'enabled',
    settings: {},
  };
  return createRelay({
    channels: staticChannelSource([channel]),
    health: new MemoryHealthStore(clock),
    usage,
    clock,
    random: Math.random,
    allowedHosts: parseAllowList(['127.0.0.1']),
  });
}

/** One request through the front door: its time to the end of the body (settlement happens after, in `done`). */
async function call(relay: Relay, limited: boolean, meter?: QuotaMeter): Promise<number> {
  const started = performance.now();
  const reply = await serveRelay(event(limited), {
    core: relay,
    requestId: `bench-${Math.random()}`,
    signal: new AbortController().signal,
    ...(meter ? { quota: meter } : {}),
  });
  for await (const _chunk of reply.body) {
    // Read to the end, as a client does.
  }
  const total = performance.now() - started;
  await reply.done;
  if (reply.status !== 200) throw new Error(`the relay answered ${reply.status}`);
  return total;
}

/** A quota store answering from memory: the cost of the code without a round trip. */
class MemoryQuotaStore implements QuotaStore {
  remain = Number.MAX_SAFE_INTEGER / 2;
  async reserve(_keyId: string, amount: number) {
    if (this.remain <= 0) return 'exhausted' as const;
    this.remain -= amount;
    return 'reserved' as const;
  }
  async settle(_keyId: string, delta: number) {
    this.remain += delta;
  }
}

/** The lease calls on dynalite, counted. */
class CountingLeaseStore extends DynamoLeaseStore {
  readonly calls = { take: 0, refill: 0, charge: 0 };
  override take(...args: Parameters<DynamoLeaseStore['take']>) {
    this.calls.take += 1;
    return super.take(...args);
  }
  override refill(...args: Parameters<DynamoLeaseStore['refill']>) {
    this.calls.refill += 1;
    return super.refill(...args);
  }
  override charge(...args: Parameters<DynamoLeaseStore['charge']>) {
    this.calls.charge += 1;
    return super.charge(...args);
  }
}

async function added(
  options: QuotaBenchOptions,
  name: string,
  plain: () => Promise<number>,
  metered: () => Promise<number>,
  target: number | null = TARGET_P50_MS,
): Promise<Figure[]> {
  for (let i = 0; i < options.warmup; i++) {
    await plain();
    await metered();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < options.requests; i++) {
    if (i % 2 === 0) {
      a.push(await metered());
      b.push(await plain());
    } else {
      b.push(await plain());
      a.push(await metered());
    }
  }
  options.log(`${name}: p50 ${median(a).toFixed(3)} ms vs without quotas ${median(b).toFixed(3)} ms`);
  return [
    figure(
      `${name}: added latency p50 (vs no quotas)`,
      median(a) - median(b),
      'ms',
      null,
      target === null ? undefined : { of: 'value', max: target },
    ),
    figure(`${name}: added latency p99 (vs no quotas)`, quantile(a, 0.99) - quantile(b, 0.99), 'ms', null),
  ];
}

/** Quota admission and metering in-process: in memory, then on dynalite. */
export async function benchRelayQuota(options: QuotaBenchOptions): Promise<Figure[]> {
  const upstream = await startFakeOpenAi();
  const engine = await startDynamoEngine({ port: 0 });
  const client = localDynamoClient(engine);
  const documents = DynamoDBDocumentClient.from(client);
  try {
    const plain = relayOver(upstream, new MemoryUsageSink());
    const relays = [plain];
    /** The relay metered by `meter` against the plain one, alternating request by request. */
    const versus = (store: string, meter: QuotaMeter, target: number | null = TARGET_P50_MS) => {
      const metered = relayOver(upstream, meter.sink(new MemoryUsageSink()));
      relays.push(metered);
      options.log(`relay quotas in-process, ${store}: ${options.requests} requests each side`);
      const name = `relay quotas in-process (${store})`;
      return added(
        options,
        name,
        () => call(plain, false),
        () => call(metered, true, meter),
        target,
      );
    };
    const figures = await versus(
      'store in memory',
      new QuotaMeter(new MemoryQuotaStore(), { ratios: async () => RATIOS }),
    );

    await ensureTable(client, 'relayKeys', TABLES.relayKeys);
    await ensureTable(client, 'relayState', TABLES.relayState);
    await documents.send(new PutCommand({ TableName: 'relayState', Item: { ...RATIOS_KEY, ...RATIOS } }));
    await documents.send(
      new PutCommand({
        TableName: 'relayKeys',
        Item: {
          keyHash: 'a'.repeat(64),
          id: KEY_ID,
          name: 'bench',
          groups: ['default'],
          status: 'enabled',
          createdAt: new Date().toISOString(),
          remainQuota: Number.MAX_SAFE_INTEGER / 2,
          usedQuota: 0,
          unlimitedQuota: false,
        },
      }),
    );
    // As the `/v1` function builds it (shared/relay/runtime.ts): per-request store, ratios, and the lease over both.
    const store = new DynamoQuotaStore(documents, 'relayKeys');
    const ratios = new DynamoRatioSource(documents, 'relayState');
    const leaseStore = new CountingLeaseStore(documents, 'relayKeys', store);
    const leaseCalls = leaseStore.calls;
    const leases = new QuotaLeases(leaseStore);
    const leaseMeter = new QuotaMeter(store, ratios, undefined, leases);
    figures.push(...(await versus('store on dynalite, lease', leaseMeter)));
    // Blocks taken or refilled are the only round trips an admission can wait for (a refill usually runs in the
    // background); every request's charge is one UpdateItem after its response.
    options.log(
      `relay quotas with the lease: ${leaseCalls.take} block(s) taken, ${leaseCalls.refill} refill(s), ` +
        `${leaseCalls.charge} charges, for ${options.requests + options.warmup} metered requests`,
    );
    await leaseMeter.close();
    figures.push(...(await versus('store on dynalite, per-request reservation', new QuotaMeter(store, ratios), null)));
    // Where the time goes: admission waits for one conditional UpdateItem; this is that call alone.
    const reservations: number[] = [];
    for (let i = 0; i < options.requests; i++) {
      const started = performance.now();
      await store.reserve(KEY_ID, 1);
      reservations.push(performance.now() - started);
    }
    figures.push(figure('relay quotas: one reservation (UpdateItem ADD) on dynalite p50', median(reservations), 'ms'));
    for (const relay of relays) relay.close();
    return figures;
  } finally {
    client.destroy();
    await engine.close();
    await upstream.close();
  }
}
