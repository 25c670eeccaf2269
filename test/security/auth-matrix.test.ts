import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/gateway-responses';
import {
  type LocalAccessToken,
  newAccessTokenValue,
  readLocalCredentials,
  writeLocalCredentials,
} from '#shared/local-credentials';
import { newRelayKey, newRelayKeyId, type RelayKeyRecord, relayKeyHash } from '#shared/relay-keys';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { APIS, findRoute, requiresAuthorizer } from '#shared/routes';
import { type RawResponse, rawRequest } from '#test/reliability/harness';
import { startTestServer, type TestServer } from '#test/support/local-server';

const PATHS = {
  dataset: '/api/core/dataset/create',
  proxy: '/api/channels/import/legacygw',
  relay: '/v1/chat/completions',
} as const;
type Api = keyof typeof PATHS;
const METHODS = ['POST', 'GET', 'PUT', 'DELETE', 'PATCH'] as const;
// The dataset body is valid; the proxy body lacks its DSN, so reaching the import function shows as its own 400.
const BODIES: Readonly<Record<Api, string>> = {
  dataset: '{"name":"matrix"}',
  proxy: '{}',
  relay: '{"model":"matrix-model","messages":[{"role":"user","content":"hi"}]}',
};

/** What a request gets back: enough to tell the gateway's answers from the functions'. */
type Outcome =
  | 'reached' // the function answered: 200, its own 404 for an id that does not exist, or the import's DSN 400
  | 'unauthorized' // gateway 401: missing or malformed header (dataset code 403)
  | 'denied' // gateway 401: well-formed but unknown, expired, revoked or wrong-kind (dataset code 514)
  | 'no-route' // gateway 404: no such method on the resource, whatever the credential
  | 'fail-closed'; // gateway 500: the authorizer could not verify anything

let server: TestServer;
let tokens: Record<'live' | 'expired' | 'future' | 'revoked' | 'otherTeam', LocalAccessToken>;
/** Relay keys in the server's relayKeys table; `unknown` is never stored. */
let relayKeys: Record<'live' | 'expired' | 'disabled' | 'unknown', string>;

function newToken(extra: Partial<LocalAccessToken> = {}): LocalAccessToken {
  return {
    id: randomUUID(),
    token: newAccessTokenValue(),
    teamId: randomBytes(12).toString('hex'),
    tmbId: randomBytes(12).toString('hex'),
    ...extra,
  };
}

beforeAll(async () => {
  vi.stubEnv('LOG_LEVEL', 'SILENT');
  server = await startTestServer();
  tokens = {
    live: newToken(),
    expired: newToken({ expiresAt: '2020-01-01T00:00:00Z' }),
    future: newToken({ expiresAt: '2999-01-01T00:00:00Z' }),
    revoked: newToken(),
    otherTeam: newToken(),
  };
  const credentials = await readLocalCredentials(server.credentialsFile);
  // `revoked` is never written: it stands for a token removed by `npm run tokens -- revoke`, tested live below.
  const { revoked: _revoked, ...stored } = tokens;
  await writeLocalCredentials(server.credentialsFile, {
    ...credentials,
    accessTokens: [...credentials.accessTokens, ...Object.values(stored)],
  });

  relayKeys = { live: newRelayKey(), expired: newRelayKey(), disabled: newRelayKey(), unknown: newRelayKey() };
  const hmacKey = Buffer.from(credentials.channelIdKey ?? '', 'utf8');
  const repository = new RelayKeysRepository(server.documents, server.tables.relayKeys);
  const record = (key: string, extra: Partial<RelayKeyRecord> = {}): RelayKeyRecord => ({
    keyHash: relayKeyHash(hmacKey, key),
    id: newRelayKeyId(),
    name: 'matrix',
    groups: ['default'],
    status: 'enabled',
    createdAt: new Date().toISOString(),
    ...extra,
  });
  await repository.create(record(relayKeys.live));
  await repository.create(record(relayKeys.expired, { expiresAt: '2020-01-01T00:00:00Z' }));
  await repository.create(record(relayKeys.disabled, { status: 'disabled', statusReason: 'revoked' }));
});

afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
});

/** Each credential kind: the Authorization header lines it sends (none, one, or two). */
function credentialKinds(): ReadonlyArray<readonly [string, ReadonlyArray<string>]> {
  const admin = server.credentials.adminKey;
  const { live, expired, future, revoked, otherTeam } = tokens;
  return [
    ['no Authorization header', []],
    ['an empty Authorization header', ['']],
    ['the Bearer scheme without a token', ['Bearer']],
    ['an access token without a scheme', [live.token]],
    ['an access token in a Basic header', [`Basic ${Buffer.from(`x:${live.token}`).toString('base64')}`]],
    ['an access token followed by another word', [`Bearer ${live.token} extra`]],
    ['an access token', [`Bearer ${live.token}`]],
    ['an access token, scheme in lower case', [`bearer ${live.token}`]],
    ['an access token, Bearer with two spaces', [`Bearer  ${live.token}`]],
    ['an access token expiring in the future', [`Bearer ${future.token}`]],
    ['an access token of another team', [`Bearer ${otherTeam.token}`]],
    ['an expired access token', [`Bearer ${expired.token}`]],
    ['a revoked access token', [`Bearer ${revoked.token}`]],
    ['an unknown token', [`Bearer ${newAccessTokenValue()}`]],
    ['an access token with one character more', [`Bearer ${live.token}x`]],
    ['an access token in upper case', [`Bearer ${live.token.toUpperCase()}`]],
    ['the SHA-256 of an access token', [`Bearer ${randomBytes(32).toString('hex')}`]],
    ['the admin key', [`Bearer ${admin}`]],
    ['the admin key with surrounding spaces', [`   Bearer ${admin}   `]],
    ['the admin key, Bearer with two spaces', [`Bearer  ${admin}`]],
    ['the admin key without its last character', [`Bearer ${admin.slice(0, -1)}`]],
    ['the admin key with a space inside', [`Bearer ${admin.slice(0, 10)} ${admin.slice(10)}`]],
    ['a relay key', [`Bearer ${relayKeys.live}`]],
    ['a relay key without sk-', [`Bearer ${relayKeys.live.slice(3)}`]],
    ['a relay key, scheme in lower case', [`bearer ${relayKeys.live}`]],
    ['a relay key without a scheme', [relayKeys.live]],
    ['an expired relay key', [`Bearer ${relayKeys.expired}`]],
    ['a disabled relay key', [`Bearer ${relayKeys.disabled}`]],
    ['an unknown relay key', [`Bearer ${relayKeys.unknown}`]],
    ['a relay key with one character more', [`Bearer ${relayKeys.live}x`]],
    ['a relay key in upper case', [`Bearer ${relayKeys.live.toUpperCase()}`]],
  ];
}

/**
 * The expected outcome of each credential kind on each route of each API (with the route's method).
 * Every other method gets `no-route` before any authorizer runs, whatever the credential.
 */
const EXPECTED: Readonly<Record<string, Readonly<Record<Api, Outcome>>>> = {
  'no Authorization header': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an empty Authorization header': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'the Bearer scheme without a token': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an access token without a scheme': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an access token in a Basic header': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an access token followed by another word': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an access token': { dataset: 'reached', proxy: 'denied', relay: 'denied' },
  'an access token, scheme in lower case': { dataset: 'reached', proxy: 'denied', relay: 'denied' },
  'an access token, Bearer with two spaces': { dataset: 'reached', proxy: 'denied', relay: 'denied' },
  'an access token expiring in the future': { dataset: 'reached', proxy: 'denied', relay: 'denied' },
  'an access token of another team': { dataset: 'reached', proxy: 'denied', relay: 'denied' },
  'an expired access token': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'a revoked access token': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'an unknown token': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'an access token with one character more': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'an access token in upper case': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'the SHA-256 of an access token': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'the admin key': { dataset: 'denied', proxy: 'reached', relay: 'denied' },
  'the admin key with surrounding spaces': { dataset: 'denied', proxy: 'reached', relay: 'denied' },
  'the admin key, Bearer with two spaces': { dataset: 'denied', proxy: 'reached', relay: 'denied' },
  'the admin key without its last character': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'the admin key with a space inside': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'a relay key': { dataset: 'denied', proxy: 'denied', relay: 'reached' },
  'a relay key without sk-': { dataset: 'denied', proxy: 'denied', relay: 'reached' },
  'a relay key, scheme in lower case': { dataset: 'denied', proxy: 'denied', relay: 'reached' },
  'a relay key without a scheme': { dataset: 'unauthorized', proxy: 'unauthorized', relay: 'unauthorized' },
  'an expired relay key': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'a disabled relay key': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'an unknown relay key': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'a relay key with one character more': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
  'a relay key in upper case': { dataset: 'denied', proxy: 'denied', relay: 'denied' },
};

// A request each route's function answers without an error of its own making (200, or 404 for an unknown id).
const UNKNOWN_ID = 'ffffffffffffffffffffffff';
const MATRIX_BOUNDARY = 'matrix-boundary';
/** A multipart upload of one file to an unknown knowledge base (404, 501002 once the file is checked). */
function matrixUpload(filename: string, type: string, lines: readonly string[]) {
  return {
    contentType: `multipart/form-data; boundary=${MATRIX_BOUNDARY}`,
    body: [
      `--${MATRIX_BOUNDARY}`,
      'Content-Disposition: form-data; name="data"',
      '',
      JSON.stringify({ datasetId: UNKNOWN_ID }),
      `--${MATRIX_BOUNDARY}`,
      `Content-Disposition: form-data; name="file"; filename="${filename}"`,
      `Content-Type: ${type}`,
      '',
      ...lines,
      `--${MATRIX_BOUNDARY}--`,
      '',
    ].join('\r\n'),
  };
}

const ROUTE_REQUESTS: Readonly<Record<string, { query?: string; body?: string; contentType?: string }>> = {
  [PATHS.dataset]: { body: BODIES.dataset },
  // The knowledge base's source calls: an unknown knowledge base (404, 501002), an unknown collection (404, 501003).
  '/api/core/dataset/collection/create/link': {
    body: JSON.stringify({ datasetId: UNKNOWN_ID, link: 'https://example.com/' }),
  },
  '/api/core/dataset/collection/sync': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/collection/create/localFile': matrixUpload('matrix.txt', 'text/plain', ['matrix']),
  '/api/core/dataset/collection/create/backup': matrixUpload('matrix.csv', 'text/csv', ['q,a,indexes', 'matrix,,']),
  '/api/core/dataset/collection/create/template': matrixUpload('matrix.csv', 'text/csv', ['q,a', 'matrix,']),
  '/api/core/dataset/collection/read': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/presignDatasetFilePostUrl': { body: JSON.stringify({ datasetId: UNKNOWN_ID, filename: 'a.md' }) },
  '/api/core/dataset/file/presignDatasetFilePostUrl': {
    body: JSON.stringify({ datasetId: UNKNOWN_ID, filename: 'a.md' }),
  },
  // An upload key that names nothing: 404 fileNotFound (507002) once the knowledge base is the caller's, else 501002.
  '/api/core/dataset/file/getPreviewChunks': {
    body: JSON.stringify({ datasetId: UNKNOWN_ID, type: 'fileLocal', sourceId: `dataset/${UNKNOWN_ID}/${UNKNOWN_ID}` }),
  },
  '/api/core/dataset/collection/create/fileId': {
    body: JSON.stringify({ datasetId: UNKNOWN_ID, fileId: `dataset/${UNKNOWN_ID}/${UNKNOWN_ID}` }),
  },
  '/api/core/dataset/collection/export': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/folder/create': { body: '{"name":"matrix"}' },
  // One path, two methods: the POST reads the body, the GET its (empty) query; both list the team.
  '/api/core/dataset/list': { body: '{}' },
  '/api/core/dataset/detail': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/update': { body: JSON.stringify({ id: UNKNOWN_ID, name: 'matrix' }) },
  '/api/core/dataset/delete': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/paths': {},
  '/api/core/dataset/searchTest': { body: JSON.stringify({ datasetId: UNKNOWN_ID, text: 'matrix' }) },
  // The knowledge base's content (docs/knowledge-base-api.md): an unknown knowledge base, collection or chunk, 404.
  '/api/core/dataset/collection/create': { body: JSON.stringify({ datasetId: UNKNOWN_ID, name: 'matrix' }) },
  '/api/core/dataset/collection/create/text': {
    body: JSON.stringify({ datasetId: UNKNOWN_ID, name: 'matrix', text: 'matrix' }),
  },
  '/api/core/dataset/collection/create/reTrainingCollection': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/collection/listV2': { body: JSON.stringify({ datasetId: UNKNOWN_ID }) },
  '/api/core/dataset/collection/list': { body: JSON.stringify({ datasetId: UNKNOWN_ID }) },
  '/api/core/dataset/collection/detail': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/collection/paths': { query: `sourceId=${UNKNOWN_ID}` },
  '/api/core/dataset/collection/update': { body: JSON.stringify({ id: UNKNOWN_ID, name: 'matrix' }) },
  '/api/core/dataset/collection/delete': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/collection/trainingDetail': { query: `collectionId=${UNKNOWN_ID}` },
  '/api/core/dataset/data/pushData': { body: JSON.stringify({ collectionId: UNKNOWN_ID, data: [{ q: 'q' }] }) },
  '/api/core/dataset/data/insertData': { body: JSON.stringify({ collectionId: UNKNOWN_ID, q: 'q' }) },
  '/api/core/dataset/data/v2/list': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/data/list': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/data/detail': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/data/update': { body: JSON.stringify({ dataId: UNKNOWN_ID, q: 'matrix' }) },
  '/api/core/dataset/data/delete': { query: `id=${UNKNOWN_ID}` },
  '/api/core/dataset/training/getDatasetTrainingQueue': { query: `datasetId=${UNKNOWN_ID}` },
  '/api/core/dataset/training/hasDatasetTrainingError': { query: `datasetId=${UNKNOWN_ID}` },
  // The training dialog's error tab: an unknown collection (404, 501003), an unknown item (404, 501006).
  '/api/core/dataset/training/getTrainingError': { body: JSON.stringify({ collectionId: UNKNOWN_ID }) },
  '/api/core/dataset/training/getTrainingDataDetail': {
    body: JSON.stringify({ collectionId: UNKNOWN_ID, dataId: UNKNOWN_ID }),
  },
  '/api/core/dataset/training/updateTrainingData': { body: JSON.stringify({ dataId: UNKNOWN_ID }) },
  '/api/core/dataset/training/deleteTrainingData': { body: JSON.stringify({ dataId: UNKNOWN_ID }) },
  // The knowledge base's error list and its retry: an unknown knowledge base (404, 501002).
  '/api/core/dataset/training/getDatasetTrainingError': { body: JSON.stringify({ datasetId: UNKNOWN_ID }) },
  '/api/core/dataset/training/retryErrorCollections': { body: JSON.stringify({ datasetId: UNKNOWN_ID }) },
  [PATHS.proxy]: { body: BODIES.proxy },
  // An empty One API table, previewed: the rows import answers 200 and writes nothing.
  '/api/channels/import/rows': {
    body: JSON.stringify({ columns: ['id', 'type', 'key', 'status', 'base_url', 'models'], rows: [], dryRun: true }),
  },
  '/api/channels': {},
  '/api/channels/batch_delete': { body: '[]' },
  // One path, three methods: GET and DELETE answer 404 for the unknown id, PUT too (its body is valid).
  '/api/channel/{id}': { body: '{"name":"matrix"}' },
  // The default period (the last 24 hours) of an empty usage table: 200.
  '/api/usage': {},
  // GET lists the keys; POST creates one (200); the unknown key id: GET and DELETE 404, PUT too (its body is valid).
  '/api/keys': { body: '{"name":"matrix"}' },
  '/api/key/{id}': { body: '{"name":"matrix"}' },
  // The unknown id: 404 before any tester runs.
  '/api/channel/{id}/test': {},
  [PATHS.relay]: { body: BODIES.relay },
  '/v1/embeddings': { body: '{"model":"matrix-model","input":"hi"}' },
  '/v1/models': {},
  '/v1/messages': { body: '{"model":"matrix-model","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' },
  '/v1/responses': { body: '{"model":"matrix-model","input":"hi"}' },
  '/v1/messages/count_tokens': { body: '{"model":"matrix-model","messages":[{"role":"user","content":"hi"}]}' },
};
const UNKNOWN_CHANNEL_ID = 'f'.repeat(64);
/** Every route of both APIs behind the authorizer, from the shared route table (the public ones: below). */
const ROUTES = Object.values(APIS).flatMap((api) =>
  api.routes.filter(requiresAuthorizer).map((route) => ({ api: api.name as Api, route })),
);
/** Each path once (a path may have several methods), with the methods the route table gives it. */
const PATH_TARGETS = [...new Map(ROUTES.map((target) => [target.route.path, target])).values()].map((target) => ({
  ...target,
  methods: ROUTES.filter((r) => r.route.path === target.route.path).map((r) => r.route.method as string),
}));

function sendRoute(
  target: (typeof ROUTES)[number],
  method: string,
  authorization: ReadonlyArray<string>,
): Promise<RawResponse> {
  const request = ROUTE_REQUESTS[target.route.path] ?? {};
  // A relay key's id is 24 hex characters, a channel's 64.
  const path = target.route.path.replace(
    '{id}',
    target.route.path === '/api/key/{id}' ? UNKNOWN_ID : UNKNOWN_CHANNEL_ID,
  );
  return rawRequest(server.url, {
    method,
    path: request.query ? `${path}?${request.query}` : path,
    headers: [
      ['Content-Type', request.contentType ?? 'application/json'],
      ...authorization.map((a) => ['Authorization', a] as const),
    ],
    body: method === 'GET' ? '' : (request.body ?? ''),
  });
}

function send(api: Api, method: string, authorization: ReadonlyArray<string>): Promise<RawResponse> {
  return rawRequest(server.url, {
    method,
    path: PATHS[api],
    headers: [['Content-Type', 'application/json'], ...authorization.map((a) => ['Authorization', a] as const)],
    body: method === 'GET' ? '' : BODIES[api],
  });
}

const GATEWAY_OUTCOMES: Readonly<Partial<Record<GatewayResponseType, Outcome>>> = {
  UNAUTHORIZED: 'unauthorized',
  ACCESS_DENIED: 'denied',
  MISSING_AUTHENTICATION_TOKEN: 'no-route',
  AUTHORIZER_FAILURE: 'fail-closed',
};

/**
 * The relay API: a gateway response is recognised by its exact body (OpenAI's envelope) and must carry x-request-id;
 * anything else is the relay function's own answer, whatever it is (no channel serves the model: 503, ...).
 */
function classifyRelay(reply: RawResponse): Outcome | string {
  const body = JSON.parse(reply.body) as unknown;
  for (const [type, response] of Object.entries(GATEWAY_RESPONSES.relay)) {
    if (response.statusCode !== reply.status || JSON.stringify(response.body) !== JSON.stringify(body)) continue;
    if (!reply.headers['x-request-id']) return `gateway ${type} without x-request-id`;
    return GATEWAY_OUTCOMES[type as GatewayResponseType] ?? `unexpected gateway ${type}`;
  }
  return 'reached';
}

/** Classifies a reply, asserting that its body is in the API's own envelope. */
function classify(api: Api, reply: RawResponse): Outcome | string {
  if (api === 'relay') return classifyRelay(reply);
  const body = JSON.parse(reply.body) as Record<string, unknown>;
  const envelope =
    api === 'dataset'
      ? Object.keys(body).sort().join() === 'code,data,message,statusText'
      : body.success === (reply.status === 200) &&
        (reply.status === 200 ? 'data' in body : typeof body.message === 'string');
  if (!envelope) return `not in the ${api} envelope: ${reply.status} ${reply.body}`;
  const code = api === 'dataset' ? body.code : undefined;
  if (reply.status === 200 && api === 'dataset' && code === 200) return 'reached';
  // An unknown knowledge base, collection, chunk or upload (the content calls: 501003, 501006; create/fileId: 507002).
  if (reply.status === 404 && api === 'dataset' && [501002, 501003, 501006, 507002].includes(code as number))
    return 'reached';
  if (reply.status === 200 && api === 'proxy' && body.success === true) return 'reached';
  if (reply.status === 404 && api === 'proxy' && body.message === 'No channel has this id') return 'reached';
  if (reply.status === 404 && api === 'proxy' && body.message === 'No key has this id') return 'reached';
  if (reply.status === 400 && api === 'proxy' && /dsn/i.test(String(body.message))) return 'reached';
  if (reply.status === 401 && (api === 'proxy' || code === 403) && /malformed/i.test(String(body.message)))
    return 'unauthorized';
  if (reply.status === 401 && (api === 'proxy' || code === 514)) return 'denied';
  if (reply.status === 404) return 'no-route';
  if (reply.status === 500) return 'fail-closed';
  return `unexpected: ${reply.status} ${reply.body}`;
}

describe('security matrix: credential kind x API x method through the local server', () => {
  it('gives every pair exactly the outcome of the table, in the API envelope', async () => {
    const kinds = credentialKinds();
    expect(kinds.map(([kind]) => kind).sort()).toEqual(Object.keys(EXPECTED).sort());

    expect(PATH_TARGETS.map(({ route }) => route.path).sort()).toEqual(Object.keys(ROUTE_REQUESTS).sort());

    const actual: string[] = [];
    const expected: string[] = [];
    for (const [kind, headers] of kinds) {
      const pairs = PATH_TARGETS.flatMap((target) => METHODS.map((method) => ({ target, method })));
      const replies = await Promise.all(pairs.map(({ target, method }) => sendRoute(target, method, headers)));
      pairs.forEach(({ target: { api, route, methods }, method }, i) => {
        const where = `${kind} | ${api} | ${method} ${route.path}`;
        actual.push(`${where} -> ${classify(api, replies[i] as RawResponse)}`);
        expected.push(`${where} -> ${methods.includes(method) ? EXPECTED[kind]?.[api] : 'no-route'}`);
      });
    }

    expect(actual).toEqual(expected);
    // Hundreds of requests through the real authorizer and handlers: far longer than a single call on a loaded machine.
  }, 180_000);

  it('answers the gateway 404 for a method a channel proxy path does not have, whatever the credential', async () => {
    const id = 'f'.repeat(64);
    const misses = [
      ['POST', `/api/channel/${id}`],
      ['PATCH', `/api/channel/${id}`],
      ['GET', '/api/channels/batch_delete'],
      ['DELETE', '/api/channels/'],
      ['PUT', '/api/channels'],
      ['GET', '/api/channel/'],
      ['GET', `/api/channel/${id}/extra`],
      ['GET', `/api/channel/${id}/test`],
      ['POST', '/api/usage'],
      ['PUT', '/api/keys'],
      ['DELETE', '/api/keys'],
      ['POST', `/api/key/${'f'.repeat(24)}`],
    ];

    const outcomes = [];
    for (const [method, path] of misses) {
      const reply = await rawRequest(server.url, {
        method: method as string,
        path: path as string,
        headers: [['Authorization', `Bearer ${server.credentials.adminKey}`]],
      });
      outcomes.push(classify('proxy', reply));
    }

    expect(outcomes).toEqual(misses.map(() => 'no-route'));
  });

  it('serves the public console page, the same document, to every credential kind on GET only', async () => {
    const actual: string[] = [];
    const expected: string[] = [];
    const pages = new Set<string>();
    for (const [kind, headers] of credentialKinds()) {
      for (const method of METHODS) {
        const reply = await rawRequest(server.url, {
          method,
          path: '/console',
          headers: headers.map((a) => ['Authorization', a] as const),
          body: '',
        });
        if (method === 'GET' && reply.status === 200) pages.add(reply.body);
        const outcome =
          reply.status === 200 && /^<!doctype html>/.test(reply.body)
            ? 'page'
            : reply.status === 404 && reply.body === '{"success":false,"message":"No such route"}'
              ? 'no-route'
              : `unexpected: ${reply.status} ${reply.body}`;
        actual.push(`${kind} | ${method} /console -> ${outcome}`);
        expected.push(`${kind} | ${method} /console -> ${method === 'GET' ? 'page' : 'no-route'}`);
      }
    }

    expect(actual).toEqual(expected);
    // The page carries nothing of the caller: one document whatever the credential.
    expect(pages.size).toBe(1);
  });

  it("serves the console's SQLite worker, the same bytes, to every credential kind on GET only", async () => {
    const page = await rawRequest(server.url, { method: 'GET', path: '/console', headers: [], body: '' });
    const worker = /sqlite-worker-[0-9a-f]{16}\.js/.exec(page.body)?.[0];
    if (worker === undefined) throw new Error('the console page names no SQLite worker');
    const path = `/console/assets/${worker}`;
    const actual: string[] = [];
    const expected: string[] = [];
    const bodies = new Set<string>();
    for (const [kind, headers] of credentialKinds()) {
      for (const method of METHODS) {
        const reply = await rawRequest(server.url, {
          method,
          path,
          headers: headers.map((a) => ['Authorization', a] as const),
          body: '',
        });
        if (method === 'GET' && reply.status === 200) bodies.add(reply.body);
        const outcome =
          reply.status === 200 && reply.body.length > 0
            ? 'asset'
            : reply.status === 404 && reply.body === '{"success":false,"message":"No such route"}'
              ? 'no-route'
              : `unexpected: ${reply.status} ${reply.body.slice(0, 80)}`;
        actual.push(`${kind} | ${method} ${path} -> ${outcome}`);
        expected.push(`${kind} | ${method} ${path} -> ${method === 'GET' ? 'asset' : 'no-route'}`);
      }
    }

    expect(actual).toEqual(expected);
    expect(bodies.size).toBe(1);
  });

  it('serves the public OpenAPI documents alike to every credential kind, and only to GET', async () => {
    // Locally both APIs share one host: a path both have is answered by the one findRoute picks.
    const publicRoutes = Object.values(APIS).flatMap((api) =>
      api.routes
        .filter((route) => route.function === 'openapi')
        .map((route) => ({ api: findRoute(route.method, route.path)?.api.name, route })),
    );
    expect(publicRoutes.length).toBeGreaterThan(0);

    const actual: string[] = [];
    const expected: string[] = [];
    for (const [kind, headers] of credentialKinds()) {
      for (const { api, route } of publicRoutes) {
        for (const method of METHODS) {
          const reply = await rawRequest(server.url, {
            method,
            path: route.path,
            headers: headers.map((a) => ['Authorization', a] as const),
            body: '',
          });
          const title =
            reply.status === 200 ? (JSON.parse(reply.body) as { info?: { title?: string } }).info?.title : '';
          actual.push(`${kind} | ${method} ${route.path} -> ${reply.status} ${title}`);
          const documentTitle = {
            dataset: 'Knowledge-base API',
            proxy: 'Channel proxy API',
            relay: 'OpenAI-compatible relay API',
          }[api ?? 'dataset'];
          expected.push(
            `${kind} | ${method} ${route.path} -> ${method === route.method ? `200 ${documentTitle}` : '404 '}`,
          );
        }
      }
    }

    expect(actual).toEqual(expected);
  });

  it('stores a create under the team and member of the token, never those named in the body', async () => {
    const { otherTeam, live } = tokens;

    const reply = await rawRequest(server.url, {
      method: 'POST',
      path: PATHS.dataset,
      headers: [['Authorization', `Bearer ${otherTeam.token}`]],
      body: JSON.stringify({ name: 'mine', teamId: live.teamId, tmbId: live.tmbId }),
    });

    const id = JSON.parse(reply.body).data as string;
    const own = await server.documents.send(
      new GetCommand({ TableName: server.tables.datasets, Key: { teamId: otherTeam.teamId, id } }),
    );
    const theirs = await server.documents.send(
      new GetCommand({ TableName: server.tables.datasets, Key: { teamId: live.teamId, id } }),
    );
    expect(own.Item).toMatchObject({ teamId: otherTeam.teamId, tmbId: otherTeam.tmbId, name: 'mine' });
    expect(theirs.Item).toBeUndefined();
  });

  it("answers another team's folder exactly like a folder that does not exist, and writes nothing", async () => {
    const { otherTeam, live } = tokens;
    const folder = await rawRequest(server.url, {
      method: 'POST',
      path: PATHS.dataset,
      headers: [['Authorization', `Bearer ${live.token}`]],
      body: '{"name":"private","type":"folder"}',
    });
    const folderId = JSON.parse(folder.body).data as string;
    const before = await server.countItems('datasets');

    const foreign = await rawRequest(server.url, {
      method: 'POST',
      path: PATHS.dataset,
      headers: [['Authorization', `Bearer ${otherTeam.token}`]],
      body: JSON.stringify({ name: 'intruder', parentId: folderId }),
    });
    const missing = await rawRequest(server.url, {
      method: 'POST',
      path: PATHS.dataset,
      headers: [['Authorization', `Bearer ${otherTeam.token}`]],
      body: JSON.stringify({ name: 'intruder', parentId: 'ffffffffffffffffffffffff' }),
    });

    expect([foreign.status, foreign.body]).toEqual([404, missing.body]);
    expect(JSON.parse(foreign.body)).toMatchObject({ code: 501002, statusText: 'unExistDataset' });
    expect(await server.countItems('datasets')).toBe(before);
  });

  it('stops a token the moment it is revoked, and lets it in until then', async () => {
    const token = newToken();
    const credentials = await readLocalCredentials(server.credentialsFile);
    await writeLocalCredentials(server.credentialsFile, {
      ...credentials,
      accessTokens: [...credentials.accessTokens, token],
    });
    const before = classify('dataset', await send('dataset', 'POST', [`Bearer ${token.token}`]));

    const current = await readLocalCredentials(server.credentialsFile);
    await writeLocalCredentials(server.credentialsFile, {
      ...current,
      accessTokens: current.accessTokens.filter((t) => t.id !== token.id),
    });
    const after = classify('dataset', await send('dataset', 'POST', [`Bearer ${token.token}`]));

    expect([before, after]).toEqual(['reached', 'denied']);
  });

  it('never lets a duplicated Authorization header open more than one of its credentials would', async () => {
    const access = `Bearer ${tokens.live.token}`;
    const admin = `Bearer ${server.credentials.adminKey}`;
    const relay = `Bearer ${relayKeys.live}`;
    const alone = async (api: Api, header: string) => classify(api, await send(api, 'POST', [header]));

    for (const api of ['dataset', 'proxy', 'relay'] as const) {
      for (const pair of [
        [access, admin],
        [admin, access],
        [relay, admin],
        [access, relay],
      ]) {
        const outcome = classify(api, await send(api, 'POST', pair));
        const single = await Promise.all(pair.map((h) => alone(api, h)));
        expect(single).toContain(outcome);
      }
    }
  });

  describe('when the credentials cannot be read', () => {
    it('answers 500 in each envelope on the three APIs, lets no one in and writes nothing (fails closed)', async () => {
      const original = await readFile(server.credentialsFile, 'utf8');
      const before = { datasets: await server.countItems('datasets'), channels: await server.countItems('channels') };
      const outcomes: string[] = [];
      const attempt = async () => {
        for (const [api, header] of [
          ['dataset', `Bearer ${tokens.live.token}`],
          ['proxy', `Bearer ${server.credentials.adminKey}`],
          ['relay', `Bearer ${relayKeys.live}`],
        ] as const) {
          outcomes.push(`${api}:${classify(api, await send(api, 'POST', [header]))}`);
        }
      };

      try {
        await writeFile(server.credentialsFile, '{"adminKey": "truncated', { mode: 0o600 });
        await attempt();
        await writeFile(server.credentialsFile, JSON.stringify({ adminKey: 'short', accessTokens: [] }), {
          mode: 0o600,
        });
        await attempt();
        await rm(server.credentialsFile);
        await attempt();
      } finally {
        await writeFile(server.credentialsFile, original, { mode: 0o600 });
      }

      expect(outcomes).toEqual(
        Array.from({ length: 3 }, () => ['dataset:fail-closed', 'proxy:fail-closed', 'relay:fail-closed']).flat(),
      );
      expect({ datasets: await server.countItems('datasets'), channels: await server.countItems('channels') }).toEqual(
        before,
      );
    });
  });
});
