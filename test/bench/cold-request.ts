import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, localDynamoClient, startDynamoEngine } from '#infra/local/dynamo-engine';
import { ENV } from '#shared/config';
import { toChannelItem } from '#shared/repositories/channels';
import { TABLES } from '#shared/tables';
import { startFakeOpenAi } from '#test/support/fake-upstreams';
import { type Figure, figure, median } from './figures.ts';
import { relayEvent } from './relay.ts';

const run = promisify(execFile);

/*
 * The relay's cold request (docs/performance.md, "The relay's module load"): module load plus the first request to its
 * first byte, in a fresh `node` per sample, against its SDK floor doing the same work with the SDK alone. What the
 * function leaves out of its module load counts here if the first request needs it before its first byte, so this is
 * what shows whether a cut of the module load is a real one or only work moved to the first request.
 */

const BODY = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] };
const UPSTREAM_KEY = 'sk-bench-upstream-key-000000000000000000000000';

// One cold request in a fresh process. `relay`: imports the function's bundle and calls its handler with a relay
// caller's event, as the local server does (a response stream taking the head, then the body). `floor`: imports the
// SDK floor's bundle and, with its document client and keep-alive agent, sends what the relay sends before its first
// byte: the routing options' Query, the channels' projected Scan, the health partition's Query (one after the other, as
// the relay awaits them), then the upstream POST, timed to the first byte of its answer. Both then read to the end.
const CHILD = `import { Writable } from 'node:stream';
import { request } from 'node:http';
const [mode, url, argsJson] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const cpuMs = () => { const c = process.cpuUsage(cpuBefore); return (c.user + c.system) / 1000; };
const module = await import(url);
const loadMs = performance.now() - started;
let first;
const mark = () => { first ??= { ms: performance.now() - started, cpuMs: cpuMs() }; };
if (mode === 'relay') {
  const stream = Object.assign(new Writable({ write(chunk, _e, callback) { mark(); callback(); } }), { setResponseHead() {} });
  await module.handler(args.event, stream, args.context);
} else {
  const { documentClient, QueryCommand, ScanCommand, agents } = module;
  await documentClient.send(new QueryCommand({ TableName: args.relayState, KeyConditionExpression: 'pk = :pk AND sk = :sk',
    ExpressionAttributeValues: { ':pk': 'config', ':sk': 'routing' } }));
  await documentClient.send(new ScanCommand({ TableName: args.channels, ProjectionExpression: args.projection.join(', '),
    ExpressionAttributeNames: Object.fromEntries(args.projection.map((name, i) => ['#a' + i, args.attributes[i]])) }));
  await documentClient.send(new QueryCommand({ TableName: args.relayState, KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': 'health' } }));
  const text = JSON.stringify(args.body);
  await new Promise((resolve, reject) => {
    const req = request(args.upstream + '/v1/chat/completions', { method: 'POST', agent: agents[0], headers: {
      'content-type': 'application/json', 'content-length': Buffer.byteLength(text), authorization: 'Bearer ' + args.key } },
      (res) => { res.on('data', mark); res.on('end', resolve); res.on('error', reject); });
    req.on('error', reject);
    req.end(text);
  });
}
if (!first) throw new Error('no byte was answered');
// The function writes its own lines (metrics) to stdout too: the figures are the last line.
process.stdout.write('\\n' + JSON.stringify({ loadMs, ms: first.ms, cpuMs: first.cpuMs }));
process.exit(0);
`;

/** The projected attributes of the relay's channel Scan (shared/relay/channel-source.ts). */
const PROJECTED = ['id', 'provider', 'name', 'baseUrl', 'key', 'models', 'status', 'settings'];

export interface ColdRequestOptions {
  workDir: string;
  /** Fresh processes per module. */
  processes: number;
  /** What the functions read at cold start (cold-start.ts, BENCH_FUNCTION_ENV): its table names are used here. */
  functionEnv: Readonly<Record<string, string>> & {
    CHANNELS_TABLE: string;
    RELAY_STATE_TABLE: string;
    USAGE_TABLE: string;
  };
  /** The relay bundles to time (name → index.mjs), and the SDK floor's. */
  relays: Readonly<Record<string, string>>;
  floor: string;
  log: (line: string) => void;
}

interface Sample {
  loadMs: number;
  ms: number;
  cpuMs: number;
}

/** Medians of each relay bundle's cold request and of its floor's, processes interleaved one at a time. */
export async function measureColdRequests(options: ColdRequestOptions): Promise<Map<string, Sample>> {
  const engine = await startDynamoEngine({ port: 0 });
  const upstream = await startFakeOpenAi();
  try {
    const client = localDynamoClient(engine);
    const tables = {
      channels: options.functionEnv.CHANNELS_TABLE,
      relayState: options.functionEnv.RELAY_STATE_TABLE,
      usage: options.functionEnv.USAGE_TABLE,
    };
    await ensureTable(client, tables.channels, TABLES.channels);
    await ensureTable(client, tables.relayState, TABLES.relayState);
    await ensureTable(client, tables.usage, TABLES.usage);
    const now = new Date().toISOString();
    await DynamoDBDocumentClient.from(client).send(
      new PutCommand({
        TableName: tables.channels,
        Item: toChannelItem({
          id: 'c'.repeat(64),
          provider: 'openai',
          legacyType: 1,
          name: 'bench',
          baseUrl: upstream.url,
          key: UPSTREAM_KEY,
          models: ['gpt-4o-mini'],
          status: 'enabled',
          source: { legacyId: 1, host: 'bench', database: 'bench' },
          createdAt: now,
          updatedAt: now,
          settings: {},
        }),
      }),
    );
    client.destroy();

    const child = join(options.workDir, 'cold-request.mjs');
    await writeFile(child, CHILD);
    const env = {
      PATH: process.env.PATH ?? '',
      ...options.functionEnv,
      [ENV.dynamodbEndpoint]: engine.endpoint,
      AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
      [ENV.relayAllowedHosts]: '127.0.0.1',
    };
    const args = {
      relayState: tables.relayState,
      channels: tables.channels,
      projection: PROJECTED.map((_, i) => `#a${i}`),
      attributes: PROJECTED,
      upstream: upstream.url,
      key: UPSTREAM_KEY,
      body: BODY,
      event: relayEvent(BODY),
      context: { awsRequestId: 'bench', functionName: 'relay', functionVersion: '$LATEST', memoryLimitInMB: '512' },
    };
    const modules: [string, 'relay' | 'floor', string][] = [
      ...Object.entries(options.relays).map(([name, file]): [string, 'relay', string] => [name, 'relay', file]),
      ['floor', 'floor', options.floor],
    ];
    const samples = new Map<string, Sample[]>(modules.map(([name]) => [name, []]));
    // One discarded round warms the file cache, as the module-load figures do.
    for (let round = -1; round < options.processes; round++) {
      for (const [name, mode, file] of modules) {
        const { stdout } = await run(process.execPath, [child, mode, pathToFileURL(file).href, JSON.stringify(args)], {
          env,
          timeout: 30_000,
        });
        if (round >= 0) samples.get(name)!.push(JSON.parse(stdout.split('\n').at(-1) ?? '') as Sample);
        if (round === -1 && process.env.BENCH_SHOW_OUTPUT) options.log(stdout);
      }
    }
    return new Map(
      [...samples].map(([name, values]) => [
        name,
        {
          loadMs: median(values.map((v) => v.loadMs)),
          ms: median(values.map((v) => v.ms)),
          cpuMs: median(values.map((v) => v.cpuMs)),
        },
      ]),
    );
  } finally {
    await upstream.close();
    await engine.close();
  }
}

/** The relay's cold request against its SDK floor's (no target: it tells a real cut from a moved one). */
export async function benchColdRequest(
  options: Omit<ColdRequestOptions, 'relays'> & { relay: string },
): Promise<Figure[]> {
  const times = await measureColdRequests({ ...options, relays: { relay: options.relay } });
  const relay = times.get('relay')!;
  const floor = times.get('floor')!;
  options.log(
    `cold start: relay cold request, first byte at ${relay.ms.toFixed(2)} ms (${relay.cpuMs.toFixed(2)} ms CPU), ` +
      `its SDK floor's at ${floor.ms.toFixed(2)} ms (${floor.cpuMs.toFixed(2)} ms CPU)`,
  );
  return [
    figure(
      'relay: cold request, module load + first request to its first byte (vs SDK floor)',
      relay.ms,
      'ms',
      floor.ms,
    ),
    figure('relay: cold request, CPU time to its first byte (vs SDK floor)', relay.cpuMs, 'ms', floor.cpuMs),
  ];
}
