import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIST_PARAMETERS } from '#functions/list-channels/list-channels';
import { UPDATABLE_FIELDS } from '#functions/update-channel/update-channel';
import type { StoredChannel } from '#shared/repositories/channels';
import { channelPath, reviewChannel, seedChannels } from '#test/integration/channel-review.helpers';
import { channelsTable } from '#test/integration/import-http.helpers';
import { useTestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  encodedBody,
  idSegments,
  jsonText,
  malformedBody,
  malformedRequest,
  proxyReplyProblems,
  queryStrings,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawRequest, sampleFuzz } from './harness.ts';

const server = useTestServer();
const seeded: StoredChannel[] = Array.from({ length: 6 }, (_, i) =>
  reviewChannel(i + 1, { key: `sk-fuzz-${i}-0123456789abcdef` }),
);

beforeAll(async () => {
  await seedChannels(server, seeded);
});

const idSegment = () =>
  idSegments(
    seeded.map((c) => c.id),
    64,
  );

/** List query strings: the parameters, repeats, unknown and tricky names, odd and huge values. */
const listQuery = queryStrings(
  {
    known: LIST_PARAMETERS,
    oddNames: ['model', 'PAGE', 'page[]'],
    values: ['2', '1e3', 'enabled', 'disabled', 'auto-disabled', 'openai'],
  },
  fc.string({ maxLength: 120 }),
);

const updateObjects = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom(null, '', 1, [], 'n'.repeat(65))),
    baseUrl: fc.oneof(
      fc.webUrl(),
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', 'ftp://x', 'https://u:p@x.example', 'javascript:alert(1)', null),
    ),
    models: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 8 }), fc.constantFrom(null, 'm', [1], [])),
    status: fc.oneof(fc.constantFrom('enabled', 'disabled', 'auto-disabled', 'on', '', null, true)),
    key: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('****', 'sk-\u2026abcd', '', null, 'k'.repeat(4_097), 'sk-\n-line-0123456789'),
    ),
  },
  { requiredKeys: [] },
);

const batchBodies = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 70 })), { maxLength: 20 })
      .map((a) => JSON.stringify(a)),
  },
  fc.array(fc.stringMatching(/^[0-9a-f]{64}$/), { minLength: 995, maxLength: 1_010 }).map((a) => JSON.stringify(a)),
  jsonText(['ids']),
  fc.constantFrom('[', '[]', '{}', 'null', '[null]', '[[]]', `["${'f'.repeat(64)}",]`),
);

describe('channel review routes under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} malformed requests below 500, in the proxy envelope, never with a whole key (seed ${FUZZ_SEED})`, async () => {
    const auth = authorizationHeaders(server.credentials.adminKey, server.credentials.accessTokens[0]!.token);
    const perRoute = Math.max(20, Math.ceil(FUZZ_RUNS / 5));
    const anyBody = encodedBody(fc.oneof(fc.constant(''), jsonText(['name'])));
    const sample = (arbitrary: fc.Arbitrary<RawRequest>) => sampleFuzz(arbitrary, perRoute);
    const withPath = (path: fc.Arbitrary<string>, method: string, body: fc.Arbitrary<Buffer>) =>
      path.chain((p) => malformedRequest({ path: p, method, body, authorization: auth }));
    const requests = [
      ...sample(
        withPath(
          listQuery.map((q) => `/api/channels/${q}`),
          'GET',
          anyBody,
        ),
      ),
      ...sample(withPath(idSegment().map(channelPath), 'GET', anyBody)),
      ...sample(
        withPath(idSegment().map(channelPath), 'PUT', encodedBody(malformedBody(updateObjects, [...UPDATABLE_FIELDS]))),
      ),
      ...sample(withPath(fc.constant('/api/channels/batch_delete'), 'POST', encodedBody(batchBodies))),
      // Deletes last and few: they remove what the other requests read and update.
      ...sample(withPath(idSegment().map(channelPath), 'DELETE', anyBody)).slice(0, Math.ceil(perRoute / 4)),
    ];

    const { replies, failures, statuses } = await fuzzThrough(server.url, requests, (reply) =>
      proxyReplyProblems(reply, { successAllowed: true }),
    );

    expect(failures.slice(0, 5)).toEqual([]);
    const stored = channelsTable(server);
    const keys = [...seeded.map((c) => c.key), ...(await stored.scan()).map((c) => c.key)].filter(
      (k) => k.length >= 12,
    );
    stored.close();
    const leaks = replies.filter((reply) => keys.some((key) => reply.body.includes(key)));
    expect(leaks.map((r) => r.body.slice(0, 200))).toEqual([]);
    expect(statuses.filter((s) => [200, 400, 401, 404].includes(s))).toEqual([200, 400, 401, 404]);
  }, 120_000);
});
