import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import { startTestServer, type TestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  contentTypeHeaders,
  describeRequest,
  extraHeaders,
  TRICKY_KEYS,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, mapConcurrent, type RawRequest, rawRequest } from './harness.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const NOT_FOUND = {
  proxy: JSON.stringify(GATEWAY_RESPONSES.proxy.MISSING_AUTHENTICATION_TOKEN.body),
  // Locally a near-miss path may be guessed as the other API's (in AWS the host decides).
  dataset: JSON.stringify(GATEWAY_RESPONSES.dataset.MISSING_AUTHENTICATION_TOKEN.body),
};

let server: TestServer;
let page: string;

beforeAll(async () => {
  vi.stubEnv('LOG_LEVEL', 'SILENT');
  server = await startTestServer();
  page = await (await fetch(`${server.url}/console`)).text();
});

afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
});

/** Requests around GET /console: odd methods, near-miss paths, query strings, headers and bodies. */
function consoleRequests(): fc.Arbitrary<RawRequest> {
  const query = fc
    .array(fc.tuple(fc.constantFrom(...TRICKY_KEYS, 'key', 'dsn'), fc.string({ maxLength: 20 })), { maxLength: 3 })
    .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs)}`));
  const path = fc.oneof(
    { weight: 10, arbitrary: query.map((q) => `/console${q}`) },
    fc.constantFrom('/console/', '/CONSOLE', '/console%00', '//console', '/console/..', '/console.html'),
  );
  return fc
    .record({
      method: fc.oneof({ weight: 10, arbitrary: fc.constant('GET') }, fc.constantFrom('POST', 'PUT', 'DELETE', 'HEAD')),
      path,
      authorization: authorizationHeaders(server.credentials.adminKey, server.credentials.accessTokens[0]!.token),
      contentType: contentTypeHeaders,
      extra: extraHeaders,
      body: fc.string({ maxLength: 200 }),
    })
    .map(({ method, path: p, authorization, contentType, extra, body }) => ({
      method,
      path: p,
      headers: [...authorization, ...contentType, ...extra],
      body: method === 'GET' || method === 'HEAD' ? '' : body,
    }));
}

describe('GET /console under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} requests with the one page or the 404 envelope, never a 5xx (seed ${SEED})`, async () => {
    const requests = fc.sample(consoleRequests(), { numRuns: FUZZ_RUNS, seed: SEED });

    const replies = await mapConcurrent(requests, 8, (request) => rawRequest(server.url, request));

    const failures = replies.flatMap((reply, i) => {
      const request = requests[i]!;
      const ok =
        (reply.status === 200 && request.method === 'GET' && reply.body === page) ||
        (request.method === 'HEAD' && [200, 404].includes(reply.status) && reply.body === '') ||
        (reply.status === 404 && (reply.body === NOT_FOUND.proxy || reply.body === NOT_FOUND.dataset));
      return ok ? [] : [`${reply.status} ${reply.body.slice(0, 120)} <- ${describeRequest(request)}`];
    });
    expect(failures.slice(0, 5)).toEqual([]);
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200, 404]));
  });
});
