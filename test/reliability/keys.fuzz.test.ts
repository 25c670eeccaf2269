import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  encodedBody,
  idSegments,
  malformedBody,
  malformedRequest,
  proxyReplyProblems,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, jsonRequest, type RawRequest, sampleFuzz } from './harness.ts';

// The key API (`/api/keys`, `/api/key/{id}`) under malformed requests: never a 5xx, always the proxy envelope, and no
// whole key in any answer but a create's.

const WHOLE_KEY = /sk-[A-Za-z0-9]{48}|[A-Za-z0-9]{48}/;
const FIELDS = ['name', 'status', 'groups', 'models', 'ips', 'expiresAt', 'remainQuota', 'unlimitedQuota'];

const server = useTestServer();
const seededIds: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < 3; i += 1) {
    const reply = await jsonRequest(server.url, {
      path: '/api/keys',
      bearer: server.credentials.adminKey,
      body: JSON.stringify({ name: `fuzz-${i}`, remainQuota: 100 }),
    });
    seededIds.push((JSON.parse(reply.body) as { data: { id: string } }).data.id);
  }
});

const objects = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null)),
    status: fc.oneof(fc.constantFrom('enabled', 'disabled', 'ENABLED', ''), fc.integer()),
    groups: fc.oneof(fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), fc.string()),
    models: fc.oneof(fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), fc.constant(null)),
    ips: fc.oneof(
      fc.array(fc.constantFrom('10.0.0.0/8', '::1', '1.2.3.4/33', 'fe80::1%eth0', 'x', ''), { maxLength: 4 }),
      fc.constant(null),
    ),
    expiresAt: fc.oneof(fc.constantFrom('2099-01-01', '2001-01-01', '2099-13-01', 'tomorrow'), fc.constant(null)),
    remainQuota: fc.oneof(fc.integer(), fc.double(), fc.constant(1e300), fc.string()),
    unlimitedQuota: fc.oneof(fc.boolean(), fc.constant('true')),
  },
  { requiredKeys: [] },
);

const idSegment = () => idSegments(seededIds, 24);

describe('key API under malformed requests (fuzz through the local server)', () => {
  it(`answers malformed requests below 500, in the proxy envelope, with a whole key in a create's answer only (seed ${FUZZ_SEED})`, async () => {
    const auth = authorizationHeaders(server.credentials.adminKey, server.credentials.accessTokens[0]!.token);
    const perRoute = Math.max(20, Math.ceil(FUZZ_RUNS / 8));
    const body = encodedBody(malformedBody(objects, FIELDS));
    const sample = (arbitrary: fc.Arbitrary<RawRequest>, offset: number) => sampleFuzz(arbitrary, perRoute, offset);
    const withPath = (path: fc.Arbitrary<string>, method: string) =>
      path.chain((p) => malformedRequest({ path: p, method, body, authorization: auth }));
    const keyPath = idSegment().map((id) => `/api/key/${id}`);
    const creates = sample(withPath(fc.constant('/api/keys'), 'POST'), 1);
    const others = [
      ...sample(withPath(fc.constant('/api/keys'), 'GET'), 2),
      ...sample(withPath(keyPath, 'GET'), 3),
      ...sample(withPath(keyPath, 'PUT'), 4),
      ...sample(withPath(keyPath, 'DELETE'), 5),
    ];

    const created = await fuzzThrough(server.url, creates, (reply) =>
      proxyReplyProblems(reply, { successAllowed: true }),
    );
    const rest = await fuzzThrough(server.url, others, (reply) => proxyReplyProblems(reply, { successAllowed: true }));

    expect([...created.failures, ...rest.failures].slice(0, 5)).toEqual([]);
    // The fuzzer may send a list's request with another method (target() in fuzz-requests.ts): as POST it is a create,
    // and its answer a create's.
    const isCreate = (r: RawRequest) => r.method === 'POST' && /^\/api\/keys\/?(\?|$)/.test(r.path);
    const leaks = rest.replies.filter((r, i) => !isCreate(others[i] as RawRequest) && WHOLE_KEY.test(r.body));
    expect(leaks.map((r) => r.body.slice(0, 200))).toEqual([]);
    expect(created.statuses.filter((s) => s >= 500)).toEqual([]);
    expect(rest.statuses.filter((s) => [200, 400, 401, 404].includes(s))).toEqual([200, 400, 401, 404]);
  }, 180_000);
});
