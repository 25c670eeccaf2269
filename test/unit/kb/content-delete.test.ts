import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deleteCollection } from '#functions/kb-collections/delete-collection';
import { trainBatch } from '#functions/train-collection/train-collection';
import { storeCollection } from '#shared/kb/collections';
import { DELETE_SLICE, deleteCollections, runDelete } from '#shared/kb/content-delete';
import { train } from '#shared/kb/training';
import type { TrainingMessage } from '#shared/kb/training-queue';
import type { StoredCollection } from '#shared/repositories/kb-content';
import {
  chunkOf,
  memoryFileStore,
  storeKnowledgeBase,
  storeTextCollection,
  trainingDepsOn,
  useKbContentTables,
} from '#test/support/kb-content';

// shared/kb/content-delete.ts: a delete marks at once and removes the content in the background, a slice at a time,
// sending itself again when its invocation's time runs out.

const TEAM = 'team-delete';
const world = useKbContentTables();
const caller = { scope: 'dataset' as const, teamId: TEAM, tmbId: 'member-1', tokenId: 'token' };

/** An index writer that counts the chunk ids it is asked to remove. */
function countingIndex() {
  const removed: number[] = [];
  return {
    removed,
    removeChunks: async (_t: string, _d: string, ids: readonly string[]) => void removed.push(ids.length),
    removeDataset: async () => {},
  };
}

async function collectionWithChunks(count: number): Promise<StoredCollection> {
  const dataset = await storeKnowledgeBase(world, TEAM);
  const collection = await storeTextCollection(world, dataset);
  await world.content.putChunks(Array.from({ length: count }, (_, i) => chunkOf(collection, i, `chunk ${i}`)));
  return collection;
}

/** The collection delete's request side on the test tables, its queue recording what it sends. */
async function deleteByRequest(ids: string[]): Promise<TrainingMessage[]> {
  const sent: TrainingMessage[] = [];
  await deleteCollection(
    { ids, caller },
    { content: world.content, queue: { send: async (m) => void sent.push(m) }, now: () => new Date() },
  );
  return sent;
}

const record = (message: TrainingMessage, n: number) => ({
  Records: [{ messageId: `m${n}`, body: JSON.stringify(message), attributes: { ApproximateReceiveCount: '1' } }],
});

describe('deleting a large collection', () => {
  it('removes its chunks a slice at a time; a run that crashes leaves whole slices, and a second run finishes', async () => {
    const collection = await collectionWithChunks(2 * DELETE_SLICE + 500);
    const { teamId, datasetId, id } = collection;
    const removed: number[] = [];
    let failAfter = 2;
    const index = {
      removeChunks: async (_t: string, _d: string, ids: readonly string[]) => {
        if (failAfter-- === 0) throw new Error('Task timed out');
        removed.push(ids.length);
      },
      removeDataset: async () => {},
    };
    const deps = { content: world.content, index, files: memoryFileStore() };

    await expect(deleteCollections([collection], deps)).rejects.toThrow('Task timed out');
    expect(removed).toEqual([DELETE_SLICE, DELETE_SLICE]);
    expect(await world.content.chunkKeysOf(teamId, datasetId, id)).toHaveLength(500);

    failAfter = Number.POSITIVE_INFINITY;
    expect(await deleteCollections([collection], deps)).toBe(true);
    expect(removed).toEqual([DELETE_SLICE, DELETE_SLICE, 500]);
    expect(await world.content.chunkKeysOf(teamId, datasetId, id)).toEqual([]);
    expect(await world.content.getCollection(teamId, datasetId, id, { deleting: true })).toBeUndefined();
  });

  it('answers once the collection is marked: no read shows it or its chunks, and its content is still there', async () => {
    const collection = await collectionWithChunks(3);
    const { teamId, datasetId, id } = collection;
    const [chunk] = await world.content.chunkKeysOf(teamId, datasetId, id);

    const sent = await deleteByRequest([id]);

    expect(sent).toEqual([{ kind: 'delete', teamId, datasetId, collectionIds: [id] }]);
    expect(await world.content.findCollection(teamId, id)).toBeUndefined();
    expect(await world.content.getCollection(teamId, datasetId, id)).toBeUndefined();
    expect((await world.content.allCollections(teamId, datasetId)).map((c) => c.id)).not.toContain(id);
    expect((await world.content.collectionsIn(teamId, datasetId, null)).map((c) => c.id)).not.toContain(id);
    expect(await world.content.findChunk(teamId, chunk?.id ?? '')).toBeUndefined();
    // Still stored, marked: the background delete's work.
    expect(await world.content.chunkKeysOf(teamId, datasetId, id)).toHaveLength(3);
    expect((await world.content.getCollection(teamId, datasetId, id, { deleting: true }))?.deleting).toEqual(
      expect.any(String),
    );
  });

  it('marks every collection below a deleted folder, and the background delete removes them all', async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const store = (type: 'folder' | 'virtual', parentId: string | null) =>
      storeCollection(
        { teamId: TEAM, tmbId: 'member-1', datasetId: dataset.id, parentId, name: type, type, train: false },
        { datasets: world.datasets, content: world.content, queue: { send: async () => {} }, now: () => new Date() },
      );
    const folder = await store('folder', null);
    const inner = await store('virtual', folder.id);
    await world.content.putChunks([chunkOf(inner, 0, 'inside')]);

    const sent = await deleteByRequest([folder.id]);

    expect(await world.content.findCollection(TEAM, inner.id)).toBeUndefined();
    const deps = trainingDepsOn(world, { files: memoryFileStore() });
    expect(await runDelete(sent[0] as Extract<TrainingMessage, { kind: 'delete' }>, deps.deletes, () => false)).toBe(
      true,
    );
    expect(await world.content.getCollection(TEAM, dataset.id, inner.id, { deleting: true })).toBeUndefined();
    expect(await world.content.getCollection(TEAM, dataset.id, folder.id, { deleting: true })).toBeUndefined();
    expect(await world.content.chunkKeysOf(TEAM, dataset.id, inner.id)).toEqual([]);
  });

  it('splits a delete of more than one slice across invocations by their time, each going on where the last stopped', async () => {
    const collection = await collectionWithChunks(2 * DELETE_SLICE + 500);
    const { teamId, datasetId, id } = collection;
    const [message] = await deleteByRequest([id]);
    const index = countingIndex();
    const queued: TrainingMessage[] = [message as TrainingMessage];
    const deps = trainingDepsOn(world, {
      files: memoryFileStore(),
      deletes: { content: world.content, index, files: memoryFileStore() },
      queue: { send: async (m) => void queued.push(m) },
    });
    // Every invocation has less time left than the reserve: each does its one slice (or the record), then sends itself again.
    const invocations: number[] = [];

    for (let n = 0; queued.length > 0 && n < 10; n++) {
      const event = record(queued.shift() as TrainingMessage, n) as unknown as SQSEvent;
      const out = await trainBatch(event, deps, quiet, () => 1_000);
      expect(out.batchItemFailures).toEqual([]);
      invocations.push((await world.content.chunkKeysOf(teamId, datasetId, id)).length);
    }

    expect(invocations).toEqual([DELETE_SLICE + 500, 500, 0, 0]);
    expect(index.removed).toEqual([DELETE_SLICE, DELETE_SLICE, 500]);
    expect(await world.content.getCollection(teamId, datasetId, id, { deleting: true })).toBeUndefined();
  });

  it('removes nothing of a collection that no delete marked', async () => {
    const collection = await collectionWithChunks(2);
    const { teamId, datasetId, id } = collection;
    const deps = trainingDepsOn(world, { files: memoryFileStore() });

    expect(await runDelete({ kind: 'delete', teamId, datasetId, collectionIds: [id] }, deps.deletes, () => false)).toBe(
      true,
    );

    expect(await world.content.getCollection(teamId, datasetId, id)).toMatchObject({ id });
    expect(await world.content.chunkKeysOf(teamId, datasetId, id)).toHaveLength(2);
  });

  it('lets no training resurrect a collection being deleted: its message does nothing and writes nothing', async () => {
    const collection = await collectionWithChunks(0);
    const { teamId, datasetId, id } = collection;
    await deleteByRequest([id]);
    const deps = trainingDepsOn(world, { files: memoryFileStore() });

    await train({ kind: 'collection', teamId, datasetId, collectionId: id, generation: 1 }, deps);

    const after = await world.content.getCollection(teamId, datasetId, id, { deleting: true });
    expect(after).toMatchObject({ status: collection.status, generation: 0 });
    expect(await world.content.chunkKeysOf(teamId, datasetId, id)).toEqual([]);
    expect(
      await world.content.updateCollection(teamId, datasetId, id, { name: 'back' }, { expectedGeneration: 0 }),
    ).toBe(false);
  });
});

describe("purging a deleted knowledge base's content", () => {
  it('removes every item a slice at a time across invocations by their time, the index first', async () => {
    const collection = await collectionWithChunks(DELETE_SLICE + 10);
    const { teamId, datasetId } = collection;
    const message: TrainingMessage = { kind: 'delete', teamId, datasetId };
    const dropped: string[] = [];
    const index = {
      removeChunks: async () => {},
      removeDataset: async (_t: string, d: string) => void dropped.push(d),
    };
    const deps = { content: world.content, index, files: memoryFileStore() };

    const first = await runDelete(message, deps, () => true);
    const left = await world.content.allKeys(teamId, datasetId);
    const second = await runDelete(message, deps, () => false);

    expect([first, second]).toEqual([false, true]);
    expect(left).toHaveLength(11);
    expect(dropped).toEqual([datasetId, datasetId]);
    expect(await world.content.allKeys(teamId, datasetId)).toEqual([]);
  });
});

const quiet = { warn: () => {}, error: () => {} };
