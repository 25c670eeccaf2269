import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalBackend } from '#infra/local/backend';
import { EXTERNAL_ENGINE_CREDENTIALS } from '#infra/local/dynamo-engine';
import { type GatewayExchange, type LocalGateway, startGateway } from '#infra/local/gateway';
import { APIS } from '#shared/routes';
import { committedDocuments, contractChecker } from '#test/support/contract';
import {
  failOnContractViolations,
  recordContractViolations,
  takeContractViolations,
} from '#test/support/contract-violations';
import { startTestServer, type TestServer } from '#test/support/local-server';

const CREATE = '/api/core/dataset/create';
const IMPORT = '/api/channels/import/legacygw';
const CHAT = '/v1/chat/completions';

/** A backend whose functions answer whatever the test puts in `reply`, behind an authorizer that allows everything. */
function fakeBackend(reply: { current: APIGatewayProxyResult }): LocalBackend {
  return {
    dynamoEndpoint: 'http://127.0.0.1:9',
    dynamo: { endpoint: 'http://127.0.0.1:9', credentials: EXTERNAL_ENGINE_CREDENTIALS },
    embeddedEngine: false,
    tableNames: {
      datasets: 'datasets',
      channels: 'channels',
      relayKeys: 'relayKeys',
      relayState: 'relayState',
      usage: 'usage',
      kbContent: 'kbContent',
    },
    credentialsFile: '/nonexistent',
    credentials: { adminKey: 'x'.repeat(32), accessTokens: [] },
    createdCredentials: false,
    authorizer: async (event) => ({
      principalId: 'fake',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: event.methodArn }],
      },
    }),
    handlerFor: () => async () => reply.current,
    close: async () => {},
  };
}

const json = (statusCode: number, body: unknown, contentType = 'application/json; charset=utf-8') => ({
  statusCode,
  headers: { 'Content-Type': contentType },
  body: JSON.stringify(body),
});

describe('the contract check of the local gateway', () => {
  const reply: { current: APIGatewayProxyResult } = { current: json(200, {}) };
  const seen: string[][] = [];
  let gateway: LocalGateway;
  beforeAll(async () => {
    const check = contractChecker();
    gateway = await startGateway(fakeBackend(reply), {
      port: 0,
      onResponse: (exchange: GatewayExchange) => seen.push(check(exchange)),
    });
  });
  afterAll(() => gateway.close());

  async function violationsOf(path: string, answer: APIGatewayProxyResult, method = 'POST'): Promise<string[]> {
    reply.current = answer;
    seen.length = 0;
    await (await fetch(`${gateway.url}${path}`, { method, headers: { Authorization: 'Bearer any' } })).arrayBuffer();
    expect(seen).toHaveLength(1);
    return seen[0] ?? [];
  }

  it('passes a create response that matches the knowledge-base document', async () => {
    const ok = json(200, { code: 200, statusText: '', message: '', data: '6740a1f2c3d4e5f6a7b8c9d0' });

    expect(await violationsOf(CREATE, ok)).toEqual([]);
  });

  it('catches a success whose data is not an id', async () => {
    const broken = json(200, { code: 200, statusText: '', message: '', data: 'NOT-AN-ID' });

    const violations = await violationsOf(CREATE, broken);

    expect(violations).toEqual([expect.stringMatching(/POST \/api\/core\/dataset\/create -> 200 .*body\/data/)]);
  });

  it('catches an error body with a key the envelope does not have', async () => {
    const broken = json(400, { code: 507000, statusText: 'invalidParams', message: 'm', data: null, stack: 'at x' });

    expect(await violationsOf(CREATE, broken)).toEqual([expect.stringMatching(/-> 400 .*additional properties/)]);
  });

  it('catches an error code that does not belong to its HTTP status', async () => {
    const broken = json(404, { code: 507000, statusText: 'invalidParams', message: 'm', data: null });

    expect(await violationsOf(CREATE, broken)).toEqual([expect.stringMatching(/-> 404 /)]);
  });

  it('catches a status the route does not document', async () => {
    const broken = json(418, { success: false, message: 'teapot' });

    expect(await violationsOf(IMPORT, broken)).toEqual([expect.stringMatching(/status 418 is not documented/)]);
  });

  it('catches a content type the route does not document', async () => {
    const broken = { statusCode: 200, headers: { 'Content-Type': 'text/html' }, body: '<p>hi</p>' };

    expect(await violationsOf(IMPORT, broken)).toEqual([expect.stringMatching(/content type "text\/html"/)]);
  });

  it('catches an import report missing a count', async () => {
    const report = {
      dryRun: true,
      source: { host: 'h', port: 3306, database: 'd', rows: 0 },
      rows: { imported: 0, skipped: 0 },
      channels: { created: 0, updated: 0 },
      items: [],
      itemsTruncated: false,
      routes: { total: 0, kept: 0, changed: 0, lost: 0, items: [], itemsTruncated: false, complete: true },
    };

    const violations = await violationsOf(IMPORT, json(200, { success: true, data: report }));

    expect(violations).toEqual([expect.stringMatching(/body\/data\/channels must have required property 'unchanged'/)]);
  });

  it('tells how to fix a route the document does not have: its contract and `npm run openapi`', () => {
    const documents = committedDocuments();
    delete (documents.dataset.paths as Record<string, unknown>)[CREATE];
    const route = APIS.dataset.routes.find((r) => r.path === CREATE)!;
    const exchange = { api: 'dataset' as const, route, method: 'POST', path: CREATE, statusCode: 200 };

    const violations = contractChecker(documents)({ ...exchange, headers: {}, body: Buffer.from('{}') });

    expect(violations).toEqual([
      expect.stringMatching(/not in the document; add its contract to openapi\/contracts.ts and run `npm run openapi`/),
    ]);
  });

  it("takes a relay status the route does not list as its `default` response: an upstream's error in the envelope", async () => {
    const upstream = json(418, { error: { message: 'teapot', type: 'upstream_error', code: 'upstream_418', x: 1 } });

    expect(await violationsOf(CHAT, upstream)).toEqual([]);
  });

  it('still checks the body of a status that falls under `default`', async () => {
    const broken = json(418, { message: 'not the envelope' });

    expect(await violationsOf(CHAT, broken)).toEqual([expect.stringMatching(/-> 418 .*required property 'error'/)]);
  });

  it('checks a listed relay status against its own schema, not the default', async () => {
    const broken = json(503, { error: 'no channel' });

    expect(await violationsOf(CHAT, broken)).toEqual([expect.stringMatching(/-> 503 /)]);
  });

  it("passes a relay stream as text/event-stream and refuses a model list with a field OpenAI's has not", async () => {
    const stream = { statusCode: 200, headers: { 'Content-Type': 'text/event-stream' }, body: 'data: [DONE]\n\n' };
    const models = json(200, { object: 'list', data: [], total: 0 });

    expect(await violationsOf(CHAT, stream)).toEqual([]);
    expect(await violationsOf('/v1/models', models, 'GET')).toEqual([
      expect.stringMatching(/GET \/v1\/models -> 200 .*additional properties/),
    ]);
  });

  it("accepts the gateway's own 404 for a path no route has", async () => {
    expect(await violationsOf('/api/core/dataset/nothing', json(200, {}))).toEqual([]);
  });
});

describe('the test server', () => {
  let server: TestServer;
  beforeAll(async () => {
    vi.stubEnv('LOG_LEVEL', 'SILENT');
    // The committed document, except that a create's `data` must now be an upper-case id: a real create breaks it.
    const documents = committedDocuments();
    const altered = JSON.parse(
      JSON.stringify(documents.dataset).replace('"pattern":"^[0-9a-f]{24}$"', '"pattern":"^[0-9A-F]{24}$"'),
    );
    expect(JSON.stringify(altered)).not.toEqual(JSON.stringify(documents.dataset));
    server = await startTestServer({ contractDocuments: { ...documents, dataset: altered } });
  });
  afterAll(async () => {
    await server?.close();
    vi.unstubAllEnvs();
  });

  it('records a violation when a real handler answers what the document does not allow', async () => {
    const token = server.credentials.accessTokens[0]?.token;

    const response = await fetch(`${server.url}${CREATE}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'contract check' }),
    });

    expect(response.status).toBe(200);
    // Taken here, so that this test's own afterEach does not fail on what it set out to provoke.
    expect(takeContractViolations()).toEqual([
      expect.stringMatching(/POST \/api\/core\/dataset\/create -> 200 .*pattern/),
    ]);
  });
});

describe('failing the test that caused a violation', () => {
  it('throws, naming the response and `npm run openapi`, when a violation was recorded', () => {
    recordContractViolations(['POST /x -> 200 (dataset API): body/data must match pattern']);

    expect(failOnContractViolations).toThrow(/1 response\(s\) did not match.*npm run openapi.*POST \/x -> 200/s);
    expect(takeContractViolations()).toEqual([]);
  });

  it('does nothing when no violation was recorded', () => {
    expect(failOnContractViolations).not.toThrow();
  });

  // The setup file's afterEach turns this test's violation into its failure; `fails` expects exactly that.
  it.fails('fails a test during which the server sent a response that breaks its contract', () => {
    recordContractViolations(['POST /x -> 200 (dataset API): provoked']);
  });
});
