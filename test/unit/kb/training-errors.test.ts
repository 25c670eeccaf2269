import { describe, expect, it } from 'vitest';
import { datasetTrainingErrors } from '#functions/kb-collections/dataset-training-errors';
import { collectionTrainingDetail } from '#functions/kb-collections/training-detail';
import {
  deleteTrainingData,
  retryErrorCollections,
  updateTrainingData,
} from '#functions/kb-collections/training-error-fixes';
import { trainingDataDetail, trainingErrorList } from '#functions/kb-collections/training-errors';
import { deleteData } from '#functions/kb-data/delete-data';
import type { CallerContext } from '#shared/http';
import { newObjectId } from '#shared/ids';
import type { ChunkRecord } from '#shared/kb/contract';
import { train } from '#shared/kb/training';
import type { TrainingMessage } from '#shared/kb/training-queue';
import type { DatasetRecord } from '#shared/repositories/datasets';
import type { StoredCollection } from '#shared/repositories/kb-content';
import {
  chunkOf,
  memoryFileStore,
  recordingIndexWriter,
  refusal,
  scriptedEmbedder,
  storeKnowledgeBase,
  storeTextCollection,
  trainingDepsOn,
  useKbContentTables,
} from '#test/support/kb-content';

const world = useKbContentTables();
const TEAM = 'team-training-errors';
const caller = { scope: 'dataset', teamId: TEAM, tmbId: 'member-1', tokenId: 't' } as const;
const stranger = { ...caller, teamId: 'team-stranger' } as const;
const ERROR = 'no channel serves text-embedding-3-small for group default';

/**
 * A trained collection (generation 1) of `TEAM` whose chunks at `failedAt` have no vector, `error` with ERROR as the
 * training core leaves it; and the deps of the calls, recording what they queue and remove from the index.
 */
async function failedCollection(
  options: { chunks?: number; failedAt?: number[]; qa?: boolean; team?: string; dataset?: DatasetRecord } = {},
) {
  const team = options.team ?? TEAM;
  const dataset = options.dataset ?? (await storeKnowledgeBase(world, team));
  const stored = await storeTextCollection(world, dataset, {
    fileId: newObjectId(),
    ...(options.qa ? { trainingType: 'qa' as const } : {}),
  });
  const failedAt = new Set(options.failedAt ?? [1, 2]);
  const count = options.chunks ?? 3;
  await world.content.updateCollection(team, dataset.id, stored.id, {
    generation: 1,
    status: failedAt.size > 0 ? 'error' : 'ready',
    ...(failedAt.size > 0 ? { error: ERROR, failedChunks: failedAt.size } : {}),
    dataAmount: count,
  });
  const collection = (await world.content.getCollection(team, dataset.id, stored.id)) as StoredCollection;
  const chunks: ChunkRecord[] = [];
  for (let i = 0; i < count; i++) {
    chunks.push(chunkOf(collection, i, `chunk ${i}`, '', failedAt.has(i) ? { vectorMissing: true } : {}));
  }
  await world.content.putChunks(chunks);
  const sent: TrainingMessage[] = [];
  const index = recordingIndexWriter();
  const deps = {
    datasets: world.datasets,
    content: world.content,
    queue: { send: async (m: TrainingMessage) => void sent.push(m) },
    index,
    now: () => new Date(),
  };
  return { dataset, collection, chunks, sent, index, deps };
}

const reread = (c: StoredCollection) => world.content.getCollection(c.teamId, c.datasetId, c.id);

describe('getTrainingError', () => {
  it("lists the chunks without a vector in chunk order as FastGPT's training items, with the collection's error", async () => {
    const { collection, chunks, deps } = await failedCollection({ chunks: 4, failedAt: [3, 1] });

    const page = await trainingErrorList({ body: { collectionId: collection.id }, caller }, deps);

    expect(page.total).toBe(2);
    expect(page.list.map((i) => i._id)).toEqual([chunks[1]?.id, chunks[3]?.id]);
    expect(page.list[0]).toEqual({
      _id: chunks[1]?.id,
      teamId: TEAM,
      tmbId: 'member-1',
      datasetId: collection.datasetId,
      collectionId: collection.id,
      mode: 'chunk',
      dataId: chunks[1]?.id,
      q: 'chunk 1',
      a: '',
      chunkIndex: 1,
      weight: 0,
      indexes: [{ type: 'default', text: 'chunk 1' }],
      retryCount: 0,
      expireAt: chunks[1]?.updateTime,
      lockTime: chunks[1]?.updateTime,
      errorMsg: ERROR,
    });
  });

  it('pages with offset or pageNum and pageSize', async () => {
    const { collection, chunks, deps } = await failedCollection({ chunks: 5, failedAt: [0, 1, 2, 3, 4] });

    const byOffset = await trainingErrorList(
      { body: { collectionId: collection.id, offset: 3, pageSize: 2 }, caller },
      deps,
    );
    const byPage = await trainingErrorList(
      { body: { collectionId: collection.id, pageNum: 2, pageSize: 2 }, caller },
      deps,
    );

    expect(byOffset).toMatchObject({ total: 5 });
    expect(byOffset.list.map((i) => i.chunkIndex)).toEqual([3, 4]);
    expect(byPage.list.map((i) => i._id)).toEqual([chunks[2]?.id, chunks[3]?.id]);
  });

  it('cuts a larger page to 30, counting pageNum in pages of the size asked for, as FastGPT', async () => {
    const failedAt = [...Array(40).keys()];
    const { collection, deps } = await failedCollection({ chunks: 40, failedAt });
    const ask = (page: { pageSize: number; pageNum?: number }) =>
      trainingErrorList({ body: { collectionId: collection.id, ...page }, caller }, deps);

    const first = await ask({ pageSize: 100 });
    const second = await ask({ pageSize: 35, pageNum: 2 });

    expect(first.total).toBe(40);
    expect(first.list.map((i) => i.chunkIndex)).toEqual(failedAt.slice(0, 30));
    expect(second.list.map((i) => i.chunkIndex)).toEqual(failedAt.slice(35, 40));
  });

  it("shows a failed collection without such chunks as one parse item whose id is the collection's (qa for Q&A)", async () => {
    for (const qa of [false, true]) {
      const { collection, deps } = await failedCollection({ failedAt: [], qa });
      await world.content.updateCollection(TEAM, collection.datasetId, collection.id, {
        status: 'error',
        error: 'the source could not be read',
      });

      const page = await trainingErrorList({ body: { collectionId: collection.id }, caller }, deps);

      expect(page).toMatchObject({
        total: 1,
        list: [
          {
            _id: collection.id,
            mode: qa ? 'qa' : 'parse',
            chunkIndex: 0,
            q: '',
            errorMsg: 'the source could not be read',
          },
        ],
      });
      expect(page.list[0]).not.toHaveProperty('dataId');
    }
  });

  it('lists nothing for a collection trained without error', async () => {
    const { collection, deps } = await failedCollection({ failedAt: [] });

    expect(await trainingErrorList({ body: { collectionId: collection.id }, caller }, deps)).toEqual({
      list: [],
      total: 0,
    });
  });

  it("answers another team's collection as an unknown one (404/501003)", async () => {
    const { collection, deps } = await failedCollection();

    expect(await refusal(trainingErrorList({ body: { collectionId: collection.id }, caller: stranger }, deps))).toEqual(
      {
        httpStatus: 404,
        code: 501003,
      },
    );
  });
});

describe('getTrainingDataDetail', () => {
  it("answers a failed chunk in FastGPT's shape, and null for a chunk with its vector or another collection's", async () => {
    const { collection, chunks, deps } = await failedCollection();
    const other = await failedCollection();
    const detail = (dataId: string, collectionId = collection.id) =>
      trainingDataDetail({ body: { collectionId, dataId }, caller }, deps);

    expect(await detail(chunks[1]?.id as string)).toEqual({
      _id: chunks[1]?.id,
      datasetId: collection.datasetId,
      collectionId: collection.id,
      mode: 'chunk',
      q: 'chunk 1',
      a: '',
    });
    expect(await detail(chunks[0]?.id as string)).toBeNull();
    expect(await detail(other.chunks[1]?.id as string)).toBeNull();
    expect(await detail(newObjectId())).toBeNull();
  });

  it("answers another team's chunk as null, and another team's collection as 501003", async () => {
    const mine = await failedCollection();
    const theirs = await failedCollection({ team: stranger.teamId });
    const myChunk = mine.chunks[1]?.id as string;

    expect(
      await trainingDataDetail(
        { body: { collectionId: theirs.collection.id, dataId: myChunk }, caller: stranger },
        mine.deps,
      ),
    ).toBeNull();
    expect(
      await refusal(
        trainingDataDetail(
          { body: { collectionId: mine.collection.id, dataId: myChunk }, caller: stranger },
          mine.deps,
        ),
      ),
    ).toEqual({ httpStatus: 404, code: 501003 });
  });
});

describe('updateTrainingData', () => {
  it('edits a failed chunk and queues its embedding again; it stays an error item until it has its vector', async () => {
    const { collection, chunks, sent, deps } = await failedCollection();
    const chunk = chunks[1] as ChunkRecord;

    const answer = await updateTrainingData(
      {
        body: { datasetId: collection.datasetId, collectionId: collection.id, dataId: chunk.id, q: ' edited ' },
        caller,
      },
      deps,
    );

    expect(answer).toEqual({});
    expect(sent).toEqual([
      { kind: 'data', teamId: TEAM, datasetId: collection.datasetId, collectionId: collection.id, dataIds: [chunk.id] },
    ]);
    expect(await world.content.findChunk(TEAM, chunk.id)).toMatchObject({
      q: 'edited',
      vectorMissing: true,
      indexes: [{ type: 'default', text: 'edited' }],
    });
  });

  it("refuses another team's chunk, a chunk with its vector and another chunkIndex, writing and queueing nothing", async () => {
    const { collection, chunks, sent, deps } = await failedCollection();
    const failed = chunks[1] as ChunkRecord;

    expect(await refusal(updateTrainingData({ body: { dataId: failed.id, q: 'x' }, caller: stranger }, deps))).toEqual({
      httpStatus: 404,
      code: 501006,
    });
    expect(await refusal(updateTrainingData({ body: { dataId: chunks[0]?.id, q: 'x' }, caller }, deps))).toEqual({
      httpStatus: 404,
      code: 501006,
    });
    expect(
      await refusal(
        updateTrainingData({ body: { collectionId: collection.id, dataId: failed.id, chunkIndex: 7 }, caller }, deps),
      ),
    ).toEqual({ httpStatus: 400, code: 507000 });
    expect(await refusal(updateTrainingData({ body: {}, caller }, deps))).toEqual({ httpStatus: 400, code: 507004 });
    expect(sent).toEqual([]);
    expect(await world.content.findChunk(TEAM, failed.id)).toEqual(failed);
  });

  it("without dataId queues every failed chunk of the collection, or of each of the knowledge base's collections", async () => {
    const first = await failedCollection({ chunks: 3, failedAt: [0, 2] });

    await updateTrainingData({ body: { collectionId: first.collection.id }, caller }, first.deps);
    await updateTrainingData({ body: { datasetId: first.dataset.id }, caller }, first.deps);

    const ids = [first.chunks[0]?.id, first.chunks[2]?.id];
    expect(first.sent.map((m) => (m.kind === 'data' ? m.dataIds : []))).toEqual([ids, ids]);
    expect(
      await refusal(updateTrainingData({ body: { datasetId: first.dataset.id }, caller: stranger }, first.deps)),
    ).toEqual({
      httpStatus: 404,
      code: 501002,
    });
  });

  it('trains a collection whose parse failed again from its source, with its settings', async () => {
    const { collection, sent, deps } = await failedCollection({ failedAt: [] });
    await world.content.updateCollection(TEAM, collection.datasetId, collection.id, { status: 'error', error: 'x' });

    await updateTrainingData(
      { body: { collectionId: collection.id, dataId: collection.id, q: '', a: '' }, caller },
      deps,
    );

    expect(sent).toEqual([
      { kind: 'collection', teamId: TEAM, datasetId: collection.datasetId, collectionId: collection.id, generation: 2 },
    ]);
    expect(await reread(collection)).toMatchObject({ status: 'queued', settings: collection.settings });
  });
});

describe('getDatasetTrainingError', () => {
  /** A knowledge base with a parse error, a collection of 3 failed chunks, and one without error. */
  async function failedKnowledgeBase() {
    const chunks = await failedCollection({ chunks: 4, failedAt: [0, 2, 3] });
    const { dataset, deps } = chunks;
    const parse = await failedCollection({ dataset, failedAt: [] });
    await world.content.updateCollection(TEAM, dataset.id, parse.collection.id, { status: 'error', error: 'unread' });
    const clean = await failedCollection({ dataset, failedAt: [] });
    const byId = [chunks, parse].sort((a, b) => (a.collection.id < b.collection.id ? -1 : 1));
    return { dataset, deps, chunks, parse, clean, byId };
  }

  it('answers the collections with errors in id order, each with its first items and its count', async () => {
    const { dataset, deps, chunks, parse, byId } = await failedKnowledgeBase();

    const all = await datasetTrainingErrors({ body: { datasetId: dataset.id, itemPageSize: 2 }, caller }, deps);

    expect(all.total).toBe(2);
    expect(all.list.map((g) => g.collection._id)).toEqual(byId.map((c) => c.collection.id));
    const group = all.list.find((g) => g.collection._id === chunks.collection.id);
    expect(group).toEqual({
      collection: {
        _id: chunks.collection.id,
        collectionId: chunks.collection.id,
        name: chunks.collection.name,
        type: chunks.collection.type,
        sourceName: chunks.collection.name,
        sourceId: chunks.collection.fileId,
      },
      items: (await trainingErrorList({ body: { collectionId: chunks.collection.id, pageSize: 2 }, caller }, deps))
        .list,
      errorCount: 3,
      hasMoreItems: true,
    });
    expect(all.list.find((g) => g.collection._id === parse.collection.id)).toMatchObject({
      items: [{ _id: parse.collection.id, mode: 'parse', errorMsg: 'unread' }],
      errorCount: 1,
      hasMoreItems: false,
    });
  });

  it('pages the collections (offset or pageNum) and loads more items of one with collectionId and itemOffset', async () => {
    const { dataset, deps, chunks, byId } = await failedKnowledgeBase();
    const body = { datasetId: dataset.id, pageSize: 1 };

    const second = await datasetTrainingErrors({ body: { ...body, offset: 1 }, caller }, deps);
    const byPage = await datasetTrainingErrors({ body: { ...body, pageNum: 2 }, caller }, deps);
    const more = await datasetTrainingErrors(
      { body: { datasetId: dataset.id, collectionId: chunks.collection.id, itemOffset: 1, itemPageSize: 1 }, caller },
      deps,
    );
    const rest = await datasetTrainingErrors(
      { body: { datasetId: dataset.id, collectionId: chunks.collection.id, itemOffset: 2 }, caller },
      deps,
    );

    expect(second).toEqual(byPage);
    expect(second.total).toBe(2);
    expect(second.list.map((g) => g.collection._id)).toEqual([byId[1]?.collection.id]);
    expect(more.total).toBe(1);
    expect(more.list[0]).toMatchObject({ errorCount: 3, hasMoreItems: true });
    expect(more.list[0]?.items.map((i) => i._id)).toEqual([chunks.chunks[2]?.id]);
    expect(rest.list[0]?.items.map((i) => i._id)).toEqual([chunks.chunks[3]?.id]);
    expect(rest.list[0]?.hasMoreItems).toBe(false);
  });

  it("answers no group for a collection without errors, of another knowledge base or team, and 501002 for another team's knowledge base", async () => {
    const { dataset, deps, clean } = await failedKnowledgeBase();
    const elsewhere = await failedCollection();
    const ask = (collectionId: string, who: CallerContext = caller) =>
      datasetTrainingErrors({ body: { datasetId: dataset.id, collectionId }, caller: who }, deps);

    expect(await ask(clean.collection.id)).toEqual({ list: [], total: 0 });
    expect(await ask(elsewhere.collection.id)).toEqual({ list: [], total: 0 });
    expect(await refusal(ask(elsewhere.collection.id, stranger))).toEqual({ httpStatus: 404, code: 501002 });
  });
});

describe('retryErrorCollections', () => {
  it('queues every failed chunk and trains a failed parse again, of the collections named or of all', async () => {
    const first = await failedCollection({ chunks: 3, failedAt: [0, 2] });
    const { dataset, sent, deps } = first;
    const second = await failedCollection({ dataset, chunks: 2, failedAt: [1] });
    const parse = await failedCollection({ dataset, failedAt: [] });
    await world.content.updateCollection(TEAM, dataset.id, parse.collection.id, { status: 'error', error: 'unread' });
    const other = await failedCollection();

    const ids = [second.collection.id, other.collection.id, 'ffffffffffffffffffffffff'];
    expect(await retryErrorCollections({ body: { datasetId: dataset.id, collectionIds: ids }, caller }, deps)).toEqual(
      {},
    );
    expect(sent.map((m) => (m.kind === 'data' ? m.dataIds : m.kind))).toEqual([[second.chunks[1]?.id]]);

    sent.length = 0;
    await retryErrorCollections({ body: { datasetId: dataset.id }, caller }, deps);
    const dataIds = sent.flatMap((m) => (m.kind === 'data' ? m.dataIds : []));
    expect(dataIds.sort()).toEqual([first.chunks[0]?.id, first.chunks[2]?.id, second.chunks[1]?.id].sort());
    expect(sent.filter((m) => m.kind === 'collection').map((m) => m.collectionId)).toEqual([parse.collection.id]);
    expect(await reread(parse.collection)).toMatchObject({ status: 'queued' });
    expect(await refusal(retryErrorCollections({ body: { datasetId: dataset.id }, caller: stranger }, deps))).toEqual({
      httpStatus: 404,
      code: 501002,
    });
  });
});

describe('the training core after a retry', () => {
  it('takes retried chunks off failedChunks once embedded, and the error with the last one', async () => {
    const { collection, chunks, deps } = await failedCollection({ chunks: 3, failedAt: [1, 2] });
    const training = trainingDepsOn(world, { files: memoryFileStore(), index: deps.index });
    const retry = (ids: string[]): TrainingMessage => ({
      kind: 'data',
      teamId: TEAM,
      datasetId: collection.datasetId,
      collectionId: collection.id,
      dataIds: ids,
    });

    await train(retry([chunks[1]?.id as string]), training);
    const halfway = await reread(collection);
    await train(retry([chunks[2]?.id as string]), training);

    expect(halfway).toMatchObject({ status: 'error', error: ERROR, failedChunks: 1, dataAmount: 3 });
    const after = await reread(collection);
    expect(after).toMatchObject({ status: 'ready', dataAmount: 3 });
    expect(after).not.toHaveProperty('error');
    expect(after?.failedChunks ?? 0).toBe(0);
    expect((await world.content.chunksOf(TEAM, collection.datasetId, collection.id)).some((c) => c.vectorMissing)).toBe(
      false,
    );
    expect(deps.index.vectors.has(`${chunks[2]?.id}#0`)).toBe(true);
    const detail = await collectionTrainingDetail({ query: { collectionId: collection.id }, caller }, deps);
    expect(Object.values(detail.errorCounts).every((n) => n === 0)).toBe(true);
  });

  it('counts a retried chunk that fails again once, and keeps the error', async () => {
    const { collection, chunks, deps } = await failedCollection({ chunks: 3, failedAt: [1, 2] });
    const training = trainingDepsOn(world, {
      files: memoryFileStore(),
      index: deps.index,
      embedder: scriptedEmbedder([new Error('down'), new Error('down'), new Error('down')]),
    });

    await train(
      {
        kind: 'data',
        teamId: TEAM,
        datasetId: collection.datasetId,
        collectionId: collection.id,
        dataIds: [chunks[1]?.id as string],
      },
      training,
    );

    expect(await reread(collection)).toMatchObject({ status: 'error', failedChunks: 2 });
  });
});

describe('deleteTrainingData', () => {
  it('deletes a failed chunk with its index entries and counts, and the last one takes the error away', async () => {
    const { collection, chunks, index, deps } = await failedCollection({ chunks: 3, failedAt: [1, 2] });
    index.fullText.set(chunks[1]?.id as string, {
      dataId: chunks[1]?.id as string,
      collectionId: collection.id,
      texts: [],
    });

    await deleteTrainingData({ body: { collectionId: collection.id, dataId: chunks[1]?.id as string }, caller }, deps);
    const halfway = await reread(collection);
    await deleteTrainingData(
      { body: { datasetId: collection.datasetId, dataId: chunks[2]?.id as string }, caller },
      deps,
    );

    expect(halfway).toMatchObject({ status: 'error', failedChunks: 1, dataAmount: 2 });
    expect(index.fullText.has(chunks[1]?.id as string)).toBe(false);
    expect(await world.content.findChunk(TEAM, chunks[1]?.id as string)).toBeUndefined();
    const after = await reread(collection);
    expect(after).toMatchObject({ status: 'ready', dataAmount: 1 });
    expect(after).not.toHaveProperty('error');
    expect(await trainingErrorList({ body: { collectionId: collection.id }, caller }, deps)).toEqual({
      list: [],
      total: 0,
    });
  });

  it("refuses another team's chunk and a chunk with its vector (501006), deleting nothing", async () => {
    const { collection, chunks, deps } = await failedCollection();

    for (const [dataId, who] of [
      [chunks[1]?.id as string, stranger],
      [chunks[0]?.id as string, caller],
    ] as const) {
      expect(await refusal(deleteTrainingData({ body: { dataId }, caller: who }, deps))).toEqual({
        httpStatus: 404,
        code: 501006,
      });
    }
    expect(await world.content.chunksOf(TEAM, collection.datasetId, collection.id)).toHaveLength(3);
    expect(await reread(collection)).toMatchObject({ failedChunks: 2, dataAmount: 3 });
  });

  it("takes a failed parse's error away, the collection kept", async () => {
    const { collection, deps } = await failedCollection({ failedAt: [] });
    await world.content.updateCollection(TEAM, collection.datasetId, collection.id, { status: 'error', error: 'x' });

    await deleteTrainingData({ body: { collectionId: collection.id, dataId: collection.id }, caller }, deps);

    const after = await reread(collection);
    expect(after).toMatchObject({ status: 'ready', dataAmount: 3 });
    expect(after).not.toHaveProperty('error');
  });

  it("data/delete of a failed chunk moves the collection's failedChunks too", async () => {
    const { collection, chunks, deps } = await failedCollection({ chunks: 2, failedAt: [1] });

    await deleteData({ query: { id: chunks[1]?.id as string }, caller }, deps);

    const after = await reread(collection);
    expect(after).toMatchObject({ status: 'ready', dataAmount: 1 });
    expect(after).not.toHaveProperty('error');
  });
});
