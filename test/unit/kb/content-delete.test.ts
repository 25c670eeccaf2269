import { describe, expect, it } from 'vitest';
import { DELETE_SLICE, deleteCollections } from '#shared/kb/content-delete';
import {
  chunkOf,
  memoryFileStore,
  storeKnowledgeBase,
  storeTextCollection,
  useKbContentTables,
} from '#test/support/kb-content';

// shared/kb/content-delete.ts: a large collection's chunks go a slice at a time, so a delete cut short goes on.

const TEAM = 'team-delete';
const world = useKbContentTables();

describe('deleting a large collection', () => {
  it('removes its chunks a slice at a time; a delete cut short leaves whole slices, and a repeat finishes', async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const collection = await storeTextCollection(world, dataset);
    const count = 2 * DELETE_SLICE + 500;
    await world.content.putChunks(Array.from({ length: count }, (_, i) => chunkOf(collection, i, `chunk ${i}`)));
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
