import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequest, expectCreated } from '../integration/create-dataset.helpers.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough } from './harness.ts';
import { datasetReplyProblems, useFuzzServer } from './route-fuzz.ts';

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

const { server, token, datasetRequests } = useFuzzServer();
let datasetId: string;

beforeAll(async () => {
  datasetId = expectCreated(await createRequest(server, { name: 'fuzzed' }, `Bearer ${token().token}`));
});

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
    const requests = datasetRequests({ path: PATH }, { objects: bodyObjects(), fields: BODY_FIELDS }, RUNS);
    const { failures, statuses } = await fuzzThrough(server.url, requests, datasetReplyProblems(token), 4);

    expect(failures.slice(0, 5)).toEqual([]);
    // The mix reaches the function: some requests pass, others fail validation or the gateway.
    expect([...new Set(statuses.filter((s) => [200, 400, 401].includes(s)))].sort()).toEqual([200, 400, 401]);
  }, 120_000);
});
