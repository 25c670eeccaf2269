import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { USAGE_PARAMETERS } from '#functions/usage/schema';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import type { StoredChannel } from '#shared/repositories/channels';
import { usageKeys } from '#shared/repositories/usage';
import { channelPath, reviewChannel, seedChannels } from '#test/integration/channel-review.helpers';
import { useTestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  encodedBody,
  jsonText,
  malformedRequest,
  proxyEnvelopeProblems,
  TRICKY_KEYS,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawRequest, type RawResponse, sampleFuzz } from './harness.ts';

// GET /api/usage and POST /api/channel/{id}/test under malformed requests. The channels are of a provider the relay
// cannot serve, so the test route answers without a tester (relay-core's is wired at merge; then add servable
// channels at a fake upstream here).

const OTHER_API_NOT_FOUND = JSON.stringify(GATEWAY_RESPONSES.dataset.MISSING_AUTHENTICATION_TOKEN.body);

const server = useTestServer();
const seeded: StoredChannel[] = Array.from({ length: 4 }, (_, i) =>
  reviewChannel(i + 1, { provider: 'tencent', key: `sk-fuzz-ops-${i}-0123456789abcdef` }),
);

beforeAll(async () => {
  await seedChannels(server, seeded);
  const items = Array.from({ length: 20 }, (_, i) => {
    const record = {
      requestId: `fuzz-${i}`,
      time: new Date(Date.now() - i * 3_600_000).toISOString(),
      keyId: `key-${i % 3}`,
      group: 'default',
      endpoint: 'chat',
      requestedModel: i % 2 === 0 ? 'gpt-4o' : 'claude',
      channelId: seeded[i % seeded.length]?.id,
      attempts: [{ channelId: seeded[i % seeded.length]?.id, status: 200 }],
      status: 200,
      durationMs: 10,
      stream: false,
      clientGone: false,
    };
    return { PutRequest: { Item: { ...record, ...usageKeys(record), expiresAt: 1_900_000_000 } } };
  });
  await server.documents.send(new BatchWriteCommand({ RequestItems: { [server.tables.usage]: items } }));
});

function envelopeProblems(reply: RawResponse): string[] {
  if (reply.status === 404 && reply.body === OTHER_API_NOT_FOUND) return [];
  return proxyEnvelopeProblems(reply, { successAllowed: true });
}

const usageQuery = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...USAGE_PARAMETERS) },
        fc.constantFrom(...TRICKY_KEYS, 'status', 'FROM', 'from[]'),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(
        fc.constantFrom(
          '',
          '0',
          '1',
          '100',
          '101',
          '-1',
          '2026-11-27',
          '2026-11-27T10:00:00Z',
          '2026-02-30',
          '9999-12-31T23:59:59Z',
          '0000-01-01',
          '99999999999',
          '1e9',
          'gpt-4o',
          '9'.repeat(30),
        ),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.integer({ min: 0, max: 4_000_000_000 }).map(String),
        fc.string({ maxLength: 300 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
      ),
    ),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs.length === 0
      ? ''
      : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
  );

const idSegment = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...seeded.map((c) => c.id), ...seeded.map((c) => c.id.toUpperCase())) },
    fc.stringMatching(/^[0-9a-f]{64}$/),
    fc.string({ maxLength: 80 }).map(encodeURIComponent),
    fc.constantFrom('%00', '..', '%2F', '%E2%80%A6', '%ZZ', '{id}', '*', 'a'.repeat(5_000), '0'),
  );

describe('usage and channel test routes under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} malformed requests below 500, in the proxy envelope, never with a whole key (seed ${FUZZ_SEED})`, async () => {
    const auth = authorizationHeaders(server.credentials.adminKey, server.credentials.accessTokens[0]!.token);
    const perRoute = Math.max(20, Math.ceil(FUZZ_RUNS / 2));
    const anyBody = encodedBody(fc.oneof(fc.constant(''), jsonText(['model'])));
    const sample = (arbitrary: fc.Arbitrary<RawRequest>) => sampleFuzz(arbitrary, perRoute);
    const withPath = (path: fc.Arbitrary<string>, method: string) =>
      path.chain((p) => malformedRequest({ path: p, method, body: anyBody, authorization: auth }));
    const requests = [
      ...sample(
        withPath(
          usageQuery.map((q) => `/api/usage${q}`),
          'GET',
        ),
      ),
      ...sample(
        withPath(
          idSegment().map((id) => `${channelPath(id)}/test`),
          'POST',
        ),
      ),
    ];

    const { replies, failures, statuses } = await fuzzThrough(server.url, requests, envelopeProblems);

    expect(failures.slice(0, 5)).toEqual([]);
    const leaks = replies.filter((reply) => seeded.some((c) => reply.body.includes(c.key)));
    expect(leaks.map((r) => r.body.slice(0, 200))).toEqual([]);
    expect(statuses.filter((s) => [200, 400, 401, 404].includes(s))).toEqual([200, 400, 401, 404]);
  }, 120_000);
});
