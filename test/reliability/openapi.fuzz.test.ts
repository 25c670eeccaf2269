import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APIS, findRoute } from '#shared/routes';
import { useTestServer } from '#test/support/local-server';
import { authorizationHeaders, malformedRequest } from './fuzz-requests.ts';
import { FUZZ_SEED, fuzzThrough, PROPERTY_RUNS, sampleFuzz } from './harness.ts';

// Locally both APIs share one host: a path both have is answered by the API findRoute picks.
const PUBLIC_ROUTES = Object.values(APIS).flatMap((api) =>
  api.routes
    .filter((route) => route.function === 'openapi')
    .map((route) => ({ api: findRoute(route.method, route.path)?.api.name ?? api.name, route })),
);
const TITLES: Readonly<Record<string, string>> = {
  dataset: 'Knowledge-base API',
  proxy: 'Channel proxy API',
  relay: 'OpenAI-compatible relay API',
};

const server = useTestServer();

describe('the public OpenAPI routes under malformed requests (fuzz through the local server)', () => {
  it(`answer ${PROPERTY_RUNS} malformed requests below 500: the document to a GET of the route, a 404 otherwise (seed ${FUZZ_SEED})`, async () => {
    const requests = sampleFuzz(
      fc
        .record({
          target: fc.constantFrom(...PUBLIC_ROUTES),
          // Mostly a GET, the route's method; the generator's near-miss paths and other methods otherwise.
          get: fc.boolean(),
          seed: fc.integer(),
        })
        .chain(({ target, get }) =>
          malformedRequest({
            path: target.route.path,
            body: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
            authorization: authorizationHeaders(server.credentials.adminKey, 'kb-not-a-token'),
          }).map((request) => ({ target, request: get ? { ...request, method: 'GET' } : request })),
        ),
      PROPERTY_RUNS,
    ).filter(({ target, request }) => {
      // A near miss that resolves (dot segments, one trailing slash) to another route, such as
      // `/api/channels/openapi.json/..` to the channel list, gets that route's answer: not this test's subject.
      const resolved = findRoute(request.method, new URL(`http://local${request.path}`).pathname)?.route;
      return resolved === undefined || resolved.path === target.route.path;
    });

    const { failures, statuses } = await fuzzThrough(
      server.url,
      requests.map(({ request }) => request),
      (reply, i) => {
        const { target, request } = requests[i]!;
        // One trailing slash reaches the same route, as in API Gateway (shared/routes.ts, findRoute).
        const path = request.path.split('?')[0] ?? '';
        const onRoute = request.method === 'GET' && [target.route.path, `${target.route.path}/`].includes(path);
        // The knowledge-base API answers a CORS preflight (OPTIONS) as FastGPT does: 200 and no body (shared/cors.ts).
        const preflight = request.method === 'OPTIONS' && reply.status === 200 && reply.body === '';
        const title =
          reply.status === 200 && !preflight
            ? (JSON.parse(reply.body) as { info?: { title?: string } }).info?.title
            : '';
        const ok = onRoute
          ? reply.status === 200 && title === TITLES[target.api]
          : reply.status === 404 || (preflight && target.api === 'dataset');
        return ok ? [] : [`${reply.status} ${reply.body.slice(0, 120)}`];
      },
    );

    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses).toEqual([200, 404]);
  });
});
