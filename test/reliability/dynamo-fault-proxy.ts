import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { LocalTableNames } from '#infra/local/backend';
import { type EngineAccess, ensureTables, localDynamoClient } from '#infra/local/dynamo-engine';
import { startTestEngine, uniqueTableNames } from '#test/support/dynamo-engine';
import { signedEngineHeaders } from '#test/support/engine-signing';
import { loadHandler } from '#test/support/handler';

/** What the proxy does with one DynamoDB call. */
export type FaultAction =
  | { kind: 'forward' }
  /** Forwards the call (so it takes effect) but answers the client with this error: an ambiguous failure. */
  | { kind: 'forward-then-fail'; status: number; errorType: string }
  /** Answers with this error without forwarding: the call has no effect. */
  | { kind: 'fail'; status: number; errorType: string }
  /** BatchWriteItem only: forwards the first `keep` requests per table and hands the rest back as UnprocessedItems. */
  | { kind: 'partial-batch'; keep: number };

/** Decides per call; `operation` is the X-Amz-Target action (PutItem, GetItem, ...), `n` counts that operation from 1. */
export type FaultScript = (operation: string, n: number) => FaultAction;

export interface FaultProxy {
  readonly endpoint: string;
  /** Calls seen per operation. */
  readonly calls: Map<string, number>;
  script: FaultScript;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Sends the call on to the engine signed anew with the engine's credential, as a client of its own: the
 * embedded engine checks every signature, and the proxy may have rewritten the body.
 */
async function forward(
  upstream: EngineAccess,
  req: IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const url = new URL(`${upstream.endpoint}${req.url ?? '/'}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && (name === 'content-type' || name.startsWith('x-amz-'))) headers[name] = value;
  }
  delete headers['x-amz-date'];
  delete headers['x-amz-content-sha256'];
  const signed = await signedEngineHeaders(upstream, { method: req.method ?? 'POST', url, headers, body });
  const { host: _host, ...sent } = signed;
  const reply = await fetch(url, { method: req.method, headers: sent, body });
  return { status: reply.status, headers: reply.headers, body: Buffer.from(await reply.arrayBuffer()) };
}

function splitBatch(body: Buffer, keep: number): { body: Buffer; withheld: Record<string, unknown[]> } {
  const request = JSON.parse(body.toString('utf8')) as { RequestItems: Record<string, unknown[]> };
  const withheld: Record<string, unknown[]> = {};
  for (const [table, items] of Object.entries(request.RequestItems)) {
    if (items.length > keep) withheld[table] = items.slice(keep);
    request.RequestItems[table] = items.slice(0, keep);
  }
  return { body: Buffer.from(JSON.stringify(request)), withheld };
}

function errorBody(errorType: string): string {
  return JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${errorType}`, message: `injected ${errorType}` });
}

/**
 * An HTTP proxy in front of a DynamoDB-compatible engine that injects the failures DynamoDB really
 * produces (throttling, 500, 503, a lost response), so the SDK's own retries run against them.
 */
export async function startFaultProxy(upstream: EngineAccess): Promise<FaultProxy> {
  const calls = new Map<string, number>();
  const proxy: FaultProxy = {
    endpoint: '',
    calls,
    script: () => ({ kind: 'forward' }),
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    try {
      const body = await readAll(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const n = (calls.get(operation) ?? 0) + 1;
      calls.set(operation, n);
      const action = proxy.script(operation, n);
      if (action.kind === 'fail') {
        res.writeHead(action.status, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(errorBody(action.errorType));
        return;
      }
      let sent: Buffer = body;
      let withheld: Record<string, unknown[]> = {};
      if (action.kind === 'partial-batch') {
        ({ body: sent, withheld } = splitBatch(body, action.keep));
      }
      const forwarded = await forward(upstream, req, sent);
      let text = forwarded.body;
      if (action.kind === 'partial-batch' && forwarded.status === 200) {
        const reply = JSON.parse(text.toString('utf8')) as { UnprocessedItems?: Record<string, unknown[]> };
        reply.UnprocessedItems = { ...reply.UnprocessedItems, ...withheld };
        text = Buffer.from(JSON.stringify(reply));
      }
      if (action.kind === 'forward-then-fail') {
        res.writeHead(action.status, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(errorBody(action.errorType));
        return;
      }
      const out: Record<string, string> = {};
      forwarded.headers.forEach((value, key) => {
        // The checksum no longer matches a rewritten body.
        if (!['content-length', 'transfer-encoding', 'connection', 'x-amz-crc32'].includes(key)) out[key] = value;
      });
      res.writeHead(forwarded.status, out);
      res.end(text);
    } catch {
      res.writeHead(502);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/**
 * This file's test engine with tables of its own, a fault proxy in front of it, and a Document client
 * straight on the engine (for preparing and checking data). Point the function under test at
 * `proxy.endpoint` and `tables`.
 */
export async function startEngineBehindFaultProxy(): Promise<{
  proxy: FaultProxy;
  documents: DynamoDBDocumentClient;
  tables: LocalTableNames;
  close(): Promise<void>;
}> {
  const engine = await startTestEngine();
  const tables = uniqueTableNames();
  const client = localDynamoClient(engine);
  await ensureTables(client, tables);
  const documents = DynamoDBDocumentClient.from(client);
  const proxy = await startFaultProxy(engine);
  return {
    proxy,
    documents,
    tables,
    close: async () => {
      documents.destroy();
      await proxy.close();
      await engine.close();
    },
  };
}

/**
 * A handler test file's set-up: the engine behind a fault proxy (started before the file's tests, closed
 * after them), the function `entry` loaded as a cold start with its client going through the proxy to its
 * own datasets table (with the SDK's default retries), and the proxy forwarding everything again before
 * each test. The fields are set once the file's tests run.
 */
export function useHandlerBehindFaultProxy<H>(
  entry: string,
  env: Readonly<Record<string, string>> = {},
): { readonly proxy: FaultProxy; readonly documents: DynamoDBDocumentClient; readonly handler: H } {
  const setup = {} as { proxy: FaultProxy; documents: DynamoDBDocumentClient; handler: H };
  let faulty: Awaited<ReturnType<typeof startEngineBehindFaultProxy>> | undefined;
  beforeAll(async () => {
    faulty = await startEngineBehindFaultProxy();
    const { handler } = await loadHandler<{ handler: H }>(entry, {
      AWS_ENDPOINT_URL_DYNAMODB: faulty.proxy.endpoint,
      DATASETS_TABLE: faulty.tables.datasets,
      LOG_LEVEL: 'SILENT',
      ...env,
    });
    Object.assign(setup, { proxy: faulty.proxy, documents: faulty.documents, handler });
  });
  afterAll(() => faulty?.close());
  beforeEach(() => {
    setup.proxy.calls.clear();
    setup.proxy.script = () => ({ kind: 'forward' });
  });
  return setup;
}
