import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type RelayReply, serveRelay } from '#functions/relay/relay-http';
import { parseAllowList } from '#shared/allow-list';
import { staticChannelSource } from '#shared/relay/channel-source';
import type { RelayChannel } from '#shared/relay/contract';
import { MemoryHealthStore } from '#shared/relay/health';
import { isServable } from '#shared/relay/providers/index';
import { createRelay, type Relay } from '#shared/relay/relay';
import { buildSnapshot, ChannelPicker, resolveGroup } from '#shared/relay/routing';
import { MemoryUsageSink } from '#shared/relay/usage-store';
import { toChannelItem } from '#shared/repositories/channels';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { runTokensCli } from '../../scripts/tokens/cli.ts';
import { startServerChild } from './create.ts';
import { type Figure, figure, median, quantile } from './figures.ts';

/*
 * Part: the relay (docs/performance.md, "Relay"). Every figure is measured against a direct call to the same local
 * fake upstream in the same run, alternating call by call: in-process (the `/v1` front door and the routing core called
 * as the function calls them, no HTTP in front), through the local server (what `npm start` serves: gateway,
 * authorizer, function, DynamoDB for keys, health and usage), time to the first streamed byte, memory over a 20 MB
 * stream, selection among 10,000 channels.
 */

export interface RelayBenchOptions {
  /** Timed requests per side. */
  requests: number;
  warmup: number;
  log: (line: string) => void;
}

const TARGETS = {
  inProcessP50: 1,
  inProcessP99: 3,
  localServerP50: 2,
  firstByte: 1,
  streamRssMb: 16,
  selectionMs: 0.1,
} as const;

const BODY = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };
const STREAM_BODY = { ...BODY, stream: true };
const KEY = 'sk-bench-upstream-key-000000000000000000000000';

/** A relay caller's event as API Gateway hands it to the function. */
export function relayEvent(body: unknown): APIGatewayProxyEvent {
  return {
    resource: '/v1/chat/completions',
    path: '/v1/chat/completions',
    httpMethod: 'POST',
    headers: {},
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      requestId: 'bench',
      authorizer: { scope: 'relay', keyId: 'bench', groups: '["default"]', models: '', ips: '', expiresAt: '' },
      identity: { sourceIp: '127.0.0.1' },
    },
  } as unknown as APIGatewayProxyEvent;
}

function channel(url: string, id = 'c'.repeat(64)): RelayChannel {
  return {
    id,
    provider: 'openai',
    name: 'bench',
    baseUrl: url,
    key: KEY,
    models: ['gpt-4o-mini'],
    status: 'enabled',
    settings: {},
  };
}

function inProcessRelay(upstream: FakeUpstream): Relay {
  const clock = { now: () => Date.now() };
  return createRelay({
    channels: staticChannelSource([channel(upstream.url)]),
    health: new MemoryHealthStore(clock),
    usage: new MemoryUsageSink(),
    clock,
    random: Math.random,
    allowedHosts: parseAllowList(['127.0.0.1']),
  });
}

/** Milliseconds until the first body byte and until the end, of one direct POST to `url`. */
function directCall(agent: Agent, url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return new Promise<{ first: number; total: number; bytes: number }>((resolve, reject) => {
    const started = performance.now();
    const text = JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers },
      },
      (res) => {
        let first = -1;
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          if (first < 0) first = performance.now() - started;
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ first, total: performance.now() - started, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** The same through the front door and the core, in-process: the reply's body read to its end, usage written. */
async function relayCall(relay: Relay, body: unknown, onChunk?: () => void) {
  const started = performance.now();
  const reply: RelayReply = await serveRelay(relayEvent(body), {
    core: relay,
    requestId: 'bench',
    signal: new AbortController().signal,
  });
  let first = -1;
  let bytes = 0;
  for await (const chunk of reply.body) {
    if (first < 0) first = performance.now() - started;
    bytes += chunk.length;
    onChunk?.();
  }
  const total = performance.now() - started;
  await reply.done;
  if (reply.status !== 200) throw new Error(`the relay answered ${reply.status}`);
  return { first, total, bytes };
}

/** Alternates `a` and `b` call by call after a warm-up; returns each side's samples. */
async function alternate<T>(options: RelayBenchOptions, a: () => Promise<T>, b: () => Promise<T>) {
  for (let i = 0; i < options.warmup; i++) {
    await a();
    await b();
  }
  const first: T[] = [];
  const second: T[] = [];
  for (let i = 0; i < options.requests; i++) {
    if (i % 2 === 0) {
      first.push(await a());
      second.push(await b());
    } else {
      second.push(await b());
      first.push(await a());
    }
  }
  return { a: first, b: second };
}

export async function benchRelay(options: RelayBenchOptions): Promise<Figure[]> {
  const figures: Figure[] = [];
  const upstream = await startFakeOpenAi();
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const relay = inProcessRelay(upstream);
    const direct = () =>
      directCall(agent, upstream.url, '/v1/chat/completions', BODY, { authorization: `Bearer ${KEY}` });

    options.log(`relay in-process: ${options.requests} chat requests, each against a direct call`);
    const plain = await alternate(options, () => relayCall(relay, BODY), direct);
    const relayTimes = plain.a.map((r) => r.total);
    const directTimes = plain.b.map((r) => r.total);
    const addedP50 = median(relayTimes) - median(directTimes);
    const addedP99 = quantile(relayTimes, 0.99) - quantile(directTimes, 0.99);
    options.log(
      `relay in-process: p50 ${median(relayTimes).toFixed(3)} ms vs direct ${median(directTimes).toFixed(3)} ms`,
    );
    figures.push(
      figure('relay in-process: added latency p50 (vs direct call)', addedP50, 'ms', null, {
        of: 'value',
        max: TARGETS.inProcessP50,
      }),
      figure('relay in-process: added latency p99 (vs direct call)', addedP99, 'ms', null, {
        of: 'value',
        max: TARGETS.inProcessP99,
      }),
      figure('relay in-process: p50 latency (vs direct call)', median(relayTimes), 'ms', median(directTimes)),
    );

    options.log('relay in-process: time to the first streamed byte');
    const streamDirect = () =>
      directCall(agent, upstream.url, '/v1/chat/completions', STREAM_BODY, { authorization: `Bearer ${KEY}` });
    const streams = await alternate(options, () => relayCall(relay, STREAM_BODY), streamDirect);
    const firstRelay = median(streams.a.map((r) => r.first));
    const firstDirect = median(streams.b.map((r) => r.first));
    figures.push(
      figure(
        'relay in-process: added time to first byte p50 (vs direct stream)',
        firstRelay - firstDirect,
        'ms',
        null,
        {
          of: 'value',
          max: TARGETS.firstByte,
        },
      ),
    );

    options.log('relay in-process: a 20 MB stream, peak RSS growth against the same stream read directly');
    figures.push(...(await bigStream(relay, upstream, agent)));
  } finally {
    agent.destroy();
    await upstream.close();
  }

  options.log('relay routing: selection among 10,000 channels');
  figures.push(selection());

  options.log('relay through the local server: gateway, authorizer, function, DynamoDB');
  figures.push(...(await throughLocalServer(options)));
  return figures;
}

/** Peak RSS growth while 20 MB stream through the relay, and while the same stream is read directly. */
async function bigStream(relay: Relay, upstream: FakeUpstream, agent: Agent): Promise<Figure[]> {
  const bytes = 20 * 1024 * 1024;
  upstream.faultAlways({ kind: 'big-stream', bytes });
  const measure = async (run: () => Promise<{ bytes: number }>) => {
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    try {
      const out = await run();
      if (out.bytes < bytes) throw new Error(`the stream ended after ${out.bytes} bytes`);
    } finally {
      clearInterval(sampler);
    }
    return (Math.max(peak, process.memoryUsage.rss()) - before) / (1024 * 1024);
  };
  try {
    const direct = await measure(() =>
      directCall(agent, upstream.url, '/v1/chat/completions', STREAM_BODY, { authorization: `Bearer ${KEY}` }),
    );
    const relayed = await measure(() => relayCall(relay, STREAM_BODY));
    return [
      figure('relay in-process: peak RSS growth over a 20 MB stream (vs direct)', relayed, 'MB', direct, {
        of: 'value',
        max: TARGETS.streamRssMb,
      }),
    ];
  } finally {
    upstream.clearFaults();
  }
}

/** Mean time of one selection (resolve the group's tiers, pick two channels) among 10,000 channels. */
function selection(): Figure {
  const channels = Array.from({ length: 10_000 }, (_, i) => ({
    ...channel('http://127.0.0.1:1', `${i}`.padStart(64, '0')),
    models: [`model-${i % 50}`, 'shared'],
    settings: { priority: i % 3, weight: i % 7, groups: ['default', `g${i % 5}`] },
  }));
  const snapshot = buildSnapshot(channels, isServable);
  const runs = 100_000;
  const pick = (i: number) => {
    const resolved = resolveGroup(snapshot, ['g9', 'default'], i % 2 ? 'shared' : `model-${i % 50}`);
    const picker = new ChannelPicker(resolved?.tiers ?? [], Math.random);
    picker.next();
    picker.next();
  };
  for (let i = 0; i < 10_000; i++) pick(i);
  const started = performance.now();
  for (let i = 0; i < runs; i++) pick(i);
  const perSelection = (performance.now() - started) / runs;
  return figure('relay routing: one selection among 10,000 channels', perSelection, 'ms', null, {
    of: 'value',
    max: TARGETS.selectionMs,
  });
}

/** Added latency through the local server, as `npm start` serves it, against a direct call to the same upstream. */
async function throughLocalServer(options: RelayBenchOptions): Promise<Figure[]> {
  const upstream = await startFakeOpenAi();
  const server = await startServerChild({ RELAY_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'WARN' });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    const dynamo = new DynamoDBClient({
      endpoint: server.ready.dynamoEndpoint,
      region: 'us-east-1',
      credentials: server.ready.dynamoCredentials,
    });
    const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
    const now = new Date().toISOString();
    await documents.send(
      new PutCommand({
        TableName: 'channels',
        Item: toChannelItem({
          ...channel(upstream.url),
          legacyType: 1,
          models: ['gpt-4o-mini'],
          source: { legacyId: 1, host: 'bench', database: 'bench' },
          createdAt: now,
          updatedAt: now,
        }),
      }),
    );
    dynamo.destroy();
    const lines: string[] = [];
    const code = await runTokensCli(['relay', 'create', '--name', 'bench'], {
      stdout: (line) => lines.push(line),
      stderr: () => {},
      env: { DATA_DIR: server.ready.dataDir },
    });
    if (code !== 0) throw new Error('could not create a relay key');
    const key = (JSON.parse(lines.at(-1) ?? '{}') as { key: string }).key;
    const viaServer = () =>
      directCall(agent, server.ready.url, '/v1/chat/completions', BODY, { authorization: `Bearer ${key}` });
    const direct = () =>
      directCall(agent, upstream.url, '/v1/chat/completions', BODY, { authorization: `Bearer ${KEY}` });
    const first = await viaServer();
    if (first.bytes === 0) throw new Error('the local server answered nothing');
    const runs = await alternate(options, viaServer, direct);
    const served = runs.a.map((r) => r.total);
    const raw = runs.b.map((r) => r.total);
    options.log(
      `relay through the local server: p50 ${median(served).toFixed(3)} ms vs direct ${median(raw).toFixed(3)} ms`,
    );
    return [
      figure(
        'relay through the local server: added latency p50 (vs direct call)',
        median(served) - median(raw),
        'ms',
        null,
        {
          of: 'value',
          max: TARGETS.localServerP50,
        },
      ),
      figure('relay through the local server: p50 latency (vs direct call)', median(served), 'ms', median(raw)),
    ];
  } finally {
    agent.destroy();
    await server.stop();
    await upstream.close();
  }
}
