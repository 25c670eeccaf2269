import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '#test/support/local-server';
import { createRequest, expectCreated } from '../integration/create-dataset.helpers.ts';
import {
  authorizationHeaders,
  datasetEnvelopeProblems,
  encodedBody,
  malformedBody,
  malformedRequest,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawResponse, sampleFuzz } from './harness.ts';

const RUNS = Math.max(30, Math.ceil(FUZZ_RUNS / 4));
const PATH = '/api/core/dataset/searchTest';
const BODY_FIELDS = [
  'datasetId',
  'text',
  'limit',
  'similarity',
  'searchMode',
  'embeddingWeight',
  'usingReRank',
  'rerankModel',
  'rerankWeight',
  'datasetSearchUsingExtensionQuery',
  'datasetSearchExtensionModel',
  'datasetSearchExtensionBg',
];

const server = useTestServer();
let token: { token: string; teamId: string };
let datasetId: string;

beforeAll(async () => {
  const first = server.credentials.accessTokens[0];
  if (!first) throw new Error('the local server made no access token');
  token = first;
  datasetId = expectCreated(await createRequest(server, { name: 'fuzzed' }, `Bearer ${token.token}`));
});

function envelopeProblems(reply: RawResponse): string[] {
  const { problems, body } = datasetEnvelopeProblems(reply);
  if (reply.status === 200 && body !== undefined && body.code !== 200) problems.push('200 without code 200');
  if (reply.body.includes(token.token)) problems.push('the token is echoed');
  return problems;
}

function bodyObjects(): fc.Arbitrary<Record<string, unknown>> {
  const plausible = fc.record(
    {
      datasetId: fc.oneof(fc.constant(datasetId), fc.constant('ffffffffffffffffffffffff')),
      text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('大熊猫', 'ＡＰＩ key', '\ud800', 'the the the')),
      searchMode: fc.constantFrom('fullTextRecall', 'mixedRecall', 'embedding', 'x', null),
      limit: fc.oneof(fc.integer({ min: -5, max: 30_000 }), fc.constant(null)),
      similarity: fc.double({ min: -2, max: 2, noNaN: true }),
      embeddingWeight: fc.double({ min: -1, max: 2, noNaN: true }),
      usingReRank: fc.boolean(),
    },
    { requiredKeys: ['datasetId', 'text'] },
  );
  const any = fc.record(
    Object.fromEntries(
      BODY_FIELDS.map((f) => [
        f,
        fc.oneof(
          fc.constantFrom(null, datasetId, 'fullTextRecall', '', 'a\u202eb', '\ud800'),
          fc.integer(),
          fc.double(),
          fc.boolean(),
          fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
          fc.object({ maxDepth: 1, maxKeys: 2 }),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 2, arbitrary: plausible }, any);
}

describe(`POST ${PATH} under malformed requests (fuzz through the local server)`, () => {
  it(`answers ${RUNS} requests below 500, in the envelope, never echoing the token (seed ${FUZZ_SEED})`, async () => {
    const requests = sampleFuzz(
      malformedRequest({
        path: PATH,
        method: 'POST',
        body: encodedBody(malformedBody(bodyObjects(), BODY_FIELDS)),
        authorization: authorizationHeaders(token.token, server.credentials.adminKey),
      }),
      RUNS,
    );
    const { failures, statuses } = await fuzzThrough(server.url, requests, envelopeProblems, 4);

    expect(failures.slice(0, 5)).toEqual([]);
    // The mix reaches the function: some requests pass, others fail validation or the gateway.
    expect([...new Set(statuses.filter((s) => [200, 400, 401].includes(s)))].sort()).toEqual([200, 400, 401]);
  }, 120_000);
});
