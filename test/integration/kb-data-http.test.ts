import { beforeEach, describe, expect, it } from 'vitest';
import { useTestServer } from '#test/support/local-server';
import { expectError } from './create-dataset.helpers.ts';
import { type contentClient, newContentClient, CONTENT_PATHS as P } from './kb-content.helpers.ts';

// docs/knowledge-base-api.md, "Data": each error row of the data calls through the local server. No channel serves
// the vector model here: pushed items are stored and found by full text only (vectorMissing).

const UNKNOWN_ID = '65a0c0ffee0000000000beef';
const server = useTestServer();
let api: ReturnType<typeof contentClient>;
let other: ReturnType<typeof contentClient>;
let collectionId: string;

beforeEach(async () => {
  api = await newContentClient(server);
  other = await newContentClient(server);
  const datasetId = await api.dataset();
  collectionId = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Manual' }));
});

async function pushedData(): Promise<{ _id: string }[]> {
  await api.ok(api.post(P.pushData, { collectionId, data: [{ q: 'alpha', a: 'beta' }, { q: 'gamma' }] }));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { list } = await api.ok<{ list: { _id: string }[] }>(api.post(P.dataV2, { collectionId }));
    if (list.length === 2 || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('data/pushData', () => {
  it('reports an item over the vector model’s token limit instead of storing it', async () => {
    const long = 'token '.repeat(9000);

    const result = await api.ok<{ insertLen: number; overToken: { q: string }[] }>(
      api.post(P.pushData, { collectionId, data: [{ q: long }, { q: 'short' }] }),
    );

    expect(result.insertLen).toBe(1);
    expect(result.overToken).toHaveLength(1);
  });

  it('answers 507000 for more than 200 items and 507004 without data', async () => {
    const data = Array.from({ length: 201 }, (_, i) => ({ q: `q${i}` }));

    expectError(await api.post(P.pushData, { collectionId, data }), 400, 507000);
    expectError(await api.post(P.pushData, { collectionId }), 400, 507004);
  });

  it("answers 501003 for another team's collection and 507000 for a folder", async () => {
    const datasetId = await api.dataset();
    const folder = await api.ok<string>(api.post(P.createCollection, { datasetId, name: 'Dir', type: 'folder' }));

    expectError(await other.post(P.pushData, { collectionId, data: [{ q: 'x' }] }), 404, 501003);
    expectError(await api.post(P.pushData, { collectionId: folder, data: [{ q: 'x' }] }), 400, 507000);
  });
});

describe('data/insertData', () => {
  it('stores one item and answers its id; the chunk is listed with it', async () => {
    const id = await api.ok<string>(api.post(P.insertData, { collectionId, q: 'What is FastGPT?', a: 'A platform.' }));

    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const deadline = Date.now() + 10_000;
    let list: { _id: string; q: string; a: string }[] = [];
    while (list.length === 0 && Date.now() < deadline) {
      ({ list } = await api.ok<{ list: typeof list }>(api.post(P.dataV2, { collectionId })));
      if (list.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(list).toMatchObject([{ _id: id, q: 'What is FastGPT?', a: 'A platform.' }]);
  });

  it('answers 507004 without q, 507000 for a repeat or too many tokens, and stores none of them', async () => {
    await api.ok(api.post(P.insertData, { collectionId, q: 'alpha', a: 'beta' }));

    expectError(await api.post(P.insertData, { collectionId, a: 'no question' }), 400, 507004);
    expectError(await api.post(P.insertData, { collectionId, q: ' alpha ', a: 'beta' }), 400, 507000);
    expectError(await api.post(P.insertData, { collectionId, q: 'token '.repeat(9000) }), 400, 507000);
    const { dataAmount, trainingAmount } = await api.ok<{ dataAmount: number; trainingAmount: number }>(
      api.get(P.detail, { id: collectionId }),
    );
    expect(dataAmount + trainingAmount).toBe(1);
  });

  it("answers 501003 for another team's collection and for an unknown one", async () => {
    expectError(await other.post(P.insertData, { collectionId, q: 'q' }), 404, 501003);
    expectError(await api.post(P.insertData, { collectionId: UNKNOWN_ID, q: 'q' }), 404, 501003);
  });
});

describe('data/v2/list and the deprecated data/list', () => {
  it('lists pushed data in chunk order, marked vectorMissing without a channel; the old call answers the old shape', async () => {
    await pushedData();

    const v2 = await api.ok<{ list: Record<string, unknown>[]; total: number }>(
      api.post(P.dataV2, { collectionId, pageSize: 1, offset: 1 }),
    );
    const old = await api.ok<{ data: Record<string, unknown>[]; total: number; pageNum: number }>(
      api.post(P.dataOld, { collectionId, pageNum: 1, pageSize: 10, searchText: 'ALPHA' }),
    );

    expect(v2).toMatchObject({ total: 2, list: [{ q: 'gamma', a: '', chunkIndex: 1, vectorMissing: true }] });
    expect(old).toMatchObject({ pageNum: 1, total: 1, data: [{ q: 'alpha', a: 'beta' }] });
  });

  it("answers 501003 for another team's collection", async () => {
    expectError(await other.post(P.dataV2, { collectionId }), 404, 501003);
  });
});

describe('data/detail, update and delete', () => {
  it("answers 501006 for another team's data and for unknown data", async () => {
    const [first] = await pushedData();
    const id = first?._id as string;

    expectError(await other.get(P.dataDetail, { id }), 404, 501006);
    expectError(await other.put(P.dataUpdate, { dataId: id, q: 'x' }), 404, 501006);
    expectError(await other.del(P.dataDelete, { id }), 404, 501006);
    expectError(await api.get(P.dataDetail, { id: UNKNOWN_ID }), 404, 501006);
    expectError(await api.get(P.dataDetail, {}), 400, 507004);
  });

  it('shows a chunk with its indexes and its collection’s name, and deletes it', async () => {
    const [first] = await pushedData();
    const id = first?._id as string;

    const detail = await api.ok(api.get(P.dataDetail, { id }));
    expect(detail).toMatchObject({
      id,
      q: 'alpha',
      a: 'beta',
      sourceName: 'Manual',
      indexes: [{ type: 'default', text: 'alpha\nbeta' }],
    });
    expect(await api.ok(api.del(P.dataDelete, { id }))).toBe('success');
    expect(await api.ok(api.get(P.detail, { id: collectionId }))).toMatchObject({ dataAmount: 1 });
  });
});
