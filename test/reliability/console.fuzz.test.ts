import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import { useTestServer } from '#test/support/local-server';
import { authorizationHeaders, contentTypeHeaders, extraHeaders, TRICKY_KEYS } from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawRequest, sampleFuzz } from './harness.ts';

const NOT_FOUND = {
  proxy: JSON.stringify(GATEWAY_RESPONSES.proxy.MISSING_AUTHENTICATION_TOKEN.body),
  // Locally a near-miss path may be guessed as the other API's (in AWS the host decides).
  dataset: JSON.stringify(GATEWAY_RESPONSES.dataset.MISSING_AUTHENTICATION_TOKEN.body),
};

const server = useTestServer();
let page: string;

beforeAll(async () => {
  page = await (await fetch(`${server.url}/console`)).text();
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
  it(`answers ${FUZZ_RUNS} requests with the one page or the 404 envelope, never a 5xx (seed ${FUZZ_SEED})`, async () => {
    const requests = sampleFuzz(consoleRequests());

    const { failures, statuses } = await fuzzThrough(server.url, requests, (reply, i) => {
      const request = requests[i]!;
      const ok =
        (reply.status === 200 && request.method === 'GET' && reply.body === page) ||
        (request.method === 'HEAD' && [200, 404].includes(reply.status) && reply.body === '') ||
        (reply.status === 404 && (reply.body === NOT_FOUND.proxy || reply.body === NOT_FOUND.dataset));
      return ok ? [] : [`${reply.status} ${reply.body.slice(0, 120)}`];
    });

    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses).toEqual([200, 404]);
  });
});
