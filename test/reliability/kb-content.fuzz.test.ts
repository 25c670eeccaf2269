import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequest, expectCreated } from '../integration/create-dataset.helpers.ts';
import { CONTENT_PATHS as P } from '../integration/kb-content.helpers.ts';
import { kbRequest } from '../integration/knowledge-base.helpers.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, type RawResponse } from './harness.ts';
import { datasetReplyProblems, useFuzzServer } from './route-fuzz.ts';

// The knowledge base's content calls (docs/knowledge-base-api.md, "Collections, data and training") under malformed
// requests through the local server: never a 5xx, always FastGPT's envelope, never the token echoed.

const ROUTES = [
  ['POST', P.createCollection, false],
  ['POST', P.createText, false],
  ['POST', P.retrain, false],
  ['POST', P.listV2, false],
  ['POST', P.listOld, false],
  ['GET', P.detail, true],
  ['GET', P.paths, true],
  ['PUT', P.update, false],
  ['DELETE', P.delete, true],
  ['POST', P.delete, true],
  ['GET', P.trainingDetail, true],
  ['POST', P.export, false],
  ['POST', P.pushData, false],
  ['POST', P.insertData, false],
  ['POST', P.dataV2, false],
  ['POST', P.dataOld, false],
  ['GET', P.dataDetail, true],
  ['PUT', P.dataUpdate, false],
  ['DELETE', P.dataDelete, true],
  ['GET', P.trainingQueue, true],
  ['POST', P.trainingError, false],
  ['POST', P.trainingDataDetail, false],
  ['PUT', P.updateTrainingData, false],
  ['POST', P.deleteTrainingData, false],
  ['POST', P.datasetTrainingError, false],
  ['PUT', P.retryErrorCollections, false],
] as const;
const RUNS_PER_ROUTE = Math.max(20, Math.ceil(FUZZ_RUNS / ROUTES.length));
const BODY_FIELDS = [
  'datasetId',
  'collectionId',
  'dataId',
  'id',
  'parentId',
  'name',
  'type',
  'text',
  'trainingType',
  'chunkSize',
  'chunkSplitter',
  'searchText',
  'offset',
  'pageNum',
  'pageSize',
  'data',
  'q',
  'a',
  'indexes',
  'collectionIds',
  'tags',
  'chunkIndex',
  'itemOffset',
  'itemPageSize',
];

const { server, token, datasetRequests } = useFuzzServer();
const seeded = { datasets: [] as string[], collections: [] as string[], data: [] as string[] };

beforeAll(async () => {
  const bearer = `Bearer ${token().token}`;
  const ok = async (path: string, body: unknown) => {
    const reply = await kbRequest(server, 'POST', path, { bearer, body });
    expect(reply.status).toBe(200);
    return reply.body.data;
  };
  const datasetId = expectCreated(await createRequest(server, { name: 'fuzz' }, bearer));
  seeded.datasets.push(datasetId);
  const folder = (await ok(P.createCollection, { datasetId, name: 'Dir', type: 'folder' })) as string;
  const manual = (await ok(P.createCollection, { datasetId, name: 'Manual', parentId: folder })) as string;
  seeded.collections.push(folder, manual);
  await ok(P.pushData, { collectionId: manual, data: [{ q: 'alpha', a: 'beta' }, { q: 'gamma' }] });
  const list = (await ok(P.dataV2, { collectionId: manual })) as { list: { _id: string }[] };
  seeded.data.push(...list.list.map((d) => d._id));
});

const ids = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...seeded.datasets, ...seeded.collections) },
    fc.constantFrom('', 'ffffffffffffffffffffffff', '0'.repeat(25), 'zz'.repeat(12), ' '.repeat(24), '\u0000'),
    fc.string({ maxLength: 30 }),
  );

function bodyObjects(): fc.Arbitrary<Record<string, unknown>> {
  const plausible = fc.record(
    {
      datasetId: fc.constantFrom(...seeded.datasets),
      collectionId: fc.constantFrom(...seeded.collections),
      id: fc.constantFrom(...seeded.collections),
      dataId: fc.constantFrom(...(seeded.data.length > 0 ? seeded.data : seeded.collections)),
      name: fc.constantFrom('renamed', 'alpha'),
      text: fc.constantFrom('Some text.', '一些文字。'),
      q: fc.constantFrom('delta', 'alpha'),
      data: fc.array(fc.record({ q: fc.constantFrom('x', 'y', ''), a: fc.constantFrom('', 'z') }), { maxLength: 3 }),
      pageSize: fc.constantFrom(1, 10, 30, 31, 0),
      offset: fc.constantFrom(0, 1, -1),
    },
    { requiredKeys: [] },
  );
  const any = fc.record(
    Object.fromEntries(
      BODY_FIELDS.map((f) => [
        f,
        fc.oneof(
          { weight: 3, arbitrary: ids() },
          fc.constantFrom(null, 'folder', 'virtual', 'qa', 'chunk', 'a\u202eb', '\ud800'),
          fc.integer(),
          fc.boolean(),
          fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
          fc.object({ maxDepth: 1, maxKeys: 2 }),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );
  return fc.oneof(plausible, any);
}

function queries(): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.constantFrom('id', 'datasetId', 'collectionId', 'sourceId', 'parentId', 'id[]', '__proto__', 'x'),
    fc.oneof(ids(), fc.constantFrom(...seeded.data, '')),
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(pair, { maxLength: 3 })
        .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
    },
    fc.constantFrom(
      'id=%ZZ',
      'id=%00',
      '%',
      '&&&',
      'id',
      'id=a&id=b',
      'parentId=a&parentId=b',
      `id=${'a'.repeat(5000)}`,
    ),
  );
}

/**
 * The envelope's problems, but a collection's export answers its CSV (collection/export): a 200 of text/csv that
 * begins with FastGPT's header and does not echo the token.
 */
const replyProblems = (reply: RawResponse): string[] => {
  if (reply.status === 200 && reply.headers['content-type']?.startsWith('text/csv')) {
    const problems = reply.body.startsWith('\uFEFFindex,content') ? [] : ['a CSV without its header'];
    return reply.body.includes(token().token) ? [...problems, 'the token is echoed'] : problems;
  }
  return datasetReplyProblems(token)(reply);
};

describe.each(ROUTES)('%s %s under malformed requests (fuzz through the local server)', (method, path, withQuery) => {
  it(`answers ${RUNS_PER_ROUTE} requests below 500, in the envelope, never echoing the token (seed ${FUZZ_SEED})`, async () => {
    const target = { path, method, query: withQuery ? queries() : undefined };
    const requests = datasetRequests(target, { objects: bodyObjects(), fields: BODY_FIELDS }, RUNS_PER_ROUTE);

    const { failures, statuses } = await fuzzThrough(server.url, requests, replyProblems, 8);

    expect(failures.slice(0, 5)).toEqual([]);
    // The mix must reach the function: some requests fail its validation, others the gateway's authorizer.
    expect(statuses).toEqual(expect.arrayContaining([400, 401]));
  }, 120_000);
});
