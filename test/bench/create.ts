import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables, localDynamoClient, startDynamoEngine } from '#infra/local/dynamo-engine';
import { bundleFunction, REPO_ROOT } from './bundle.ts';
import type { InProcessRun } from './create-child.ts';
import { CREATE_CONDITION, createBody, createdItem } from './create-item.ts';
import { type Figure, figure, median, quantile } from './figures.ts';
import type { LocalServerReady } from './local-server-child.ts';

export interface CreateOptions {
  /** Requests per round and per side at each concurrency. */
  requests: Readonly<Record<number, number>>;
  /** Rounds; each runs the raw side and the server side once, in alternating order. */
  rounds: number;
  /** Requests per side before measuring (JIT, connections, table warm-up). */
  warmup: number;
  log: (line: string) => void;
}

const CONCURRENCIES = [1, 16] as const;
/** Target: create through the server at c=16, median latency at most this multiple of raw PutItem. */
const C16_MEDIAN_RATIO_TARGET = 1.3;
/** Target: one warm create-dataset invocation in-process, median latency at most this multiple of raw PutItem. */
const IN_PROCESS_MEDIAN_RATIO_TARGET = 1.15;

interface Side {
  latencies: number[];
  requests: number;
  elapsedMs: number;
}

type Call = (i: number) => Promise<void>;

/**
 * Part 2: `POST /api/core/dataset/create` through the local server (a child process: gateway,
 * authorizer, handler; dynalite in a process of its own) against a raw PutItem of the same item,
 * with the same condition, to the same dynalite, at the same concurrency, from this process over
 * keep-alive connections.
 */
export async function benchCreate(options: CreateOptions): Promise<Figure[]> {
  const server = await startServerChild();
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const dynamo = new DynamoDBClient({
    endpoint: server.ready.dynamoEndpoint,
    region: 'us-east-1',
    credentials: server.ready.dynamoCredentials,
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 32 }) },
  });
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  try {
    const viaServer = serverCall(server.ready, agent);
    const raw = rawPutCall(server.ready, documents);
    await runSide(raw, options.warmup, 16);
    await runSide(viaServer, options.warmup, 16);

    const figures: Figure[] = [];
    for (const concurrency of CONCURRENCIES) {
      const n = options.requests[concurrency] ?? 0;
      const sides = { server: emptySide(), raw: emptySide() };
      for (let round = 0; round < options.rounds; round++) {
        // Alternating order, so drift in machine load does not favour one side.
        const order = round % 2 === 0 ? (['raw', 'server'] as const) : (['server', 'raw'] as const);
        for (const which of order) {
          merge(sides[which], await runSide(which === 'server' ? viaServer : raw, n, concurrency));
        }
      }
      figures.push(...sideFigures(concurrency, sides.server, sides.raw));
      options.log(
        `create c=${concurrency}: server p50 ${median(sides.server.latencies).toFixed(2)} ms, ` +
          `raw p50 ${median(sides.raw.latencies).toFixed(2)} ms`,
      );
    }
    return figures;
  } finally {
    agent.destroy();
    dynamo.destroy();
    await server.stop();
  }
}

function sideFigures(concurrency: number, server: Side, raw: Side): Figure[] {
  const prefix = `create through the local server c=${concurrency}`;
  const rps = (s: Side) => (s.requests / s.elapsedMs) * 1000;
  return [
    figure(
      `${prefix}: p50 latency (vs raw PutItem)`,
      median(server.latencies),
      'ms',
      median(raw.latencies),
      concurrency === 16 ? { of: 'ratio', max: C16_MEDIAN_RATIO_TARGET } : undefined,
    ),
    figure(
      `${prefix}: p99 latency (vs raw PutItem)`,
      quantile(server.latencies, 0.99),
      'ms',
      quantile(raw.latencies, 0.99),
    ),
    figure(`${prefix}: throughput (vs raw PutItem)`, rps(server), 'req/s', rps(raw)),
  ];
}

function emptySide(): Side {
  return { latencies: [], requests: 0, elapsedMs: 0 };
}

function merge(into: Side, from: Side): void {
  into.latencies.push(...from.latencies);
  into.requests += from.requests;
  into.elapsedMs += from.elapsedMs;
}

/** Runs `total` calls with `concurrency` workers; each call's latency is recorded. */
async function runSide(call: Call, total: number, concurrency: number): Promise<Side> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const started = performance.now();
      await call(i);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latencies, requests: total, elapsedMs: performance.now() - started };
}

function serverCall(ready: LocalServerReady, agent: Agent): Call {
  const url = new URL('/api/core/dataset/create', ready.url);
  const headers = { Authorization: `Bearer ${ready.token}`, 'Content-Type': 'application/json' };
  return (i) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify(createBody(i));
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode === 200) resolve();
          // The response body is the API's envelope: no token or secret in it.
          else reject(new Error(`create answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8')}`));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
}

/** The item the handler stores for the same body, written with the handler's condition. */
function rawPutCall(ready: LocalServerReady, documents: DynamoDBDocumentClient): Call {
  return async (i) => {
    await documents.send(
      new PutCommand({ TableName: 'datasets', Item: createdItem(i, ready), ConditionExpression: CREATE_CONDITION }),
    );
  };
}

/** Starts the local server in a child process (see local-server-child.ts), with `env` on top of this one's. */
export async function startServerChild(
  env: NodeJS.ProcessEnv = {},
): Promise<{ ready: LocalServerReady; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'local-server-child.ts')],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_EC2_METADATA_DISABLED: 'true',
        ...env,
      },
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<LocalServerReady>((resolve, reject) => {
    child.once('message', (m) => resolve(m as LocalServerReady));
    child.once('exit', (code) => reject(new Error(`the local server exited early (code ${code})`)));
  });
  return {
    ready,
    async stop() {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface InProcessOptions {
  workDir: string;
  /** Calls per side, interleaved call by call. */
  requests: number;
  /** Calls per side before measuring (JIT, connections, table warm-up). */
  warmup: number;
  log: (line: string) => void;
}

/**
 * Part 2b: one warm create-dataset invocation in-process, what a deployed function costs per request: the
 * handler bundled as the stack bundles it and called directly in a child process with a REST proxy event,
 * against a raw PutItem of the same item through the same client, one call at a time; dynalite runs in a
 * process of its own. No gateway, no authorizer (API Gateway's work in AWS), no HTTP in front of the handler.
 */
export async function benchCreateInProcess(options: InProcessOptions): Promise<Figure[]> {
  const child = await bundleFunction('test/bench/create-child.ts', join(options.workDir, 'create-child'));
  const engine = await startDynamoEngine({ port: 0 });
  const client = localDynamoClient(engine);
  try {
    const names = {
      datasets: 'bench-datasets',
      channels: 'bench-channels',
      relayKeys: 'bench-relay-keys',
      relayState: 'bench-relay-state',
      usage: 'bench-usage',
      kbContent: 'bench-kb-content',
    };
    await ensureTables(client, names);
    const run = await runInProcessChild(child.file, {
      DATASETS_TABLE: names.datasets,
      AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
      AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
      BENCH_REQUESTS: String(options.requests),
      BENCH_WARMUP: String(options.warmup),
    });
    const p50 = { handler: median(run.handler), raw: median(run.raw) };
    options.log(
      `create in-process: handler p50 ${p50.handler.toFixed(3)} ms, raw PutItem p50 ${p50.raw.toFixed(3)} ms`,
    );
    return [
      figure('create in-process: p50 latency (vs raw PutItem)', p50.handler, 'ms', p50.raw, {
        of: 'ratio',
        max: IN_PROCESS_MEDIAN_RATIO_TARGET,
      }),
      figure(
        'create in-process: p99 latency (vs raw PutItem)',
        quantile(run.handler, 0.99),
        'ms',
        quantile(run.raw, 0.99),
      ),
      // Each handler call minus the raw call next to it: the handler's own cost, load drift cancelled out.
      figure(
        "create in-process: the handler's own time, p50 of paired differences",
        median(run.handler.map((ms, i) => ms - (run.raw[i] ?? ms))),
        'ms',
      ),
    ];
  } finally {
    client.destroy();
    await engine.close();
  }
}

async function runInProcessChild(file: string, env: Record<string, string>): Promise<InProcessRun> {
  const child = spawn(process.execPath, [file], {
    // Stdout carries the handler's metric lines (EMF), as in Lambda: nobody reads them here.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: {
      PATH: process.env.PATH ?? '',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      ...env,
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'INFO',
    },
  });
  return new Promise<InProcessRun>((resolve, reject) => {
    let result: InProcessRun | undefined;
    child.once('message', (m) => {
      result = m as InProcessRun;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the in-process create child exited with code ${code}`)),
    );
  });
}
