import { describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { storeCollection } from '#shared/kb/collections';
import { DELETE_SLICE, deleteCollections } from '#shared/kb/content-delete';
import { type ChunkRecord, chunkSortKey, datasetKey, defaultIndexes } from '#shared/kb/contract';
import type { StoredCollection } from '#shared/repositories/kb-content';
import { memoryFileStore, storeKnowledgeBase, useKbContentTables } from '#test/support/kb-content';

// shared/kb/content-delete.ts: a large collection's chunks go a slice at a time, so a delete cut short goes on.

const TEAM = 'team-delete';
const world = useKbContentTables();

function chunk(collection: StoredCollection, index: number): ChunkRecord {
  const id = newObjectId();
  return {
    pk: datasetKey(TEAM, collection.datasetId),
    sk: chunkSortKey(collection.id, index, id),
    id,
    teamId: TEAM,
    tmbId: 'member-1',
    datasetId: collection.datasetId,
    collectionId: collection.id,
    chunkIndex: index,
    q: `chunk ${index}`,
    a: '',
    indexes: defaultIndexes(id, { q: `chunk ${index}`, a: '' }),
    generation: collection.generation,
    ready: true,
    updateTime: new Date().toISOString(),
  };
}

describe('deleting a large collection', () => {
  it('removes its chunks a slice at a time; a delete cut short leaves whole slices, and a repeat finishes', async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const collection = await storeCollection(
      {
        teamId: TEAM,
        tmbId: 'member-1',
        datasetId: dataset.id,
        parentId: null,
        name: 'Big',
        type: 'virtual',
        train: false,
      },
      { datasets: world.datasets, content: world.content, queue: { send: async () => {} }, now: () => new Date() },
    );
    const count = 2 * DELETE_SLICE + 500;
    await world.content.putChunks(Array.from({ length: count }, (_, i) => chunk(collection, i)));
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
    expect(await world.content.chunkKeysOf(TEAM, dataset.id, collection.id)).toHaveLength(500);

    failAfter = Number.POSITIVE_INFINITY;
    expect(await deleteCollections([collection], deps)).toBe(1);
    expect(removed).toEqual([DELETE_SLICE, DELETE_SLICE, 500]);
    expect(await world.content.chunkKeysOf(TEAM, dataset.id, collection.id)).toEqual([]);
    expect(await world.content.getCollection(TEAM, dataset.id, collection.id)).toBeUndefined();
  });
});
