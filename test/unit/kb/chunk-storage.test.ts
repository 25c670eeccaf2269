import { describe, expect, it } from 'vitest';
import { newObjectId } from '#shared/ids';
import { type ChunkRecord, chunkSortKey, datasetKey, defaultIndexes } from '#shared/kb/contract';
import { chunkItem, chunkOfItem } from '#shared/repositories/chunk-items';
import { storeKnowledgeBase, storeTextCollection, useKbContentTables } from '#test/support/kb-content';

// shared/repositories/kb-content.ts: a chunk's default index is stored without the chunk's own text and read back whole.

const TEAM = 'a'.repeat(24);
const world = useKbContentTables();

function chunk(datasetId: string, q: string, a: string, extra: ChunkRecord['indexes'] = []): ChunkRecord {
  const id = newObjectId();
  const collectionId = newObjectId();
  return {
    pk: datasetKey(TEAM, datasetId),
    sk: chunkSortKey(collectionId, 0, id),
    id,
    teamId: TEAM,
    tmbId: 'b'.repeat(24),
    datasetId,
    collectionId,
    chunkIndex: 0,
    q,
    a,
    indexes: [...defaultIndexes(id, { q, a }), ...extra],
    generation: 1,
    ready: true,
    updateTime: new Date().toISOString(),
  };
}

describe('chunk items', () => {
  it('keep the default index without the text made of q and a, and every other index whole', () => {
    const c = chunk('d'.repeat(24), '什么是向量检索？', 'An answer.', [
      { type: 'custom', dataId: 'x', text: '向量检索' },
    ]);

    const item = chunkItem(c);

    expect(item.indexes).toEqual([
      { type: 'default', dataId: c.id },
      { type: 'custom', dataId: 'x', text: '向量检索' },
    ]);
    expect(JSON.stringify(item)).not.toContain('什么是向量检索？\nAn answer.');
    expect(chunkOfItem(item)).toEqual(c);
  });

  it('keep a default index whose text is not the chunk’s own', () => {
    const c = {
      ...chunk('d'.repeat(24), 'q', ''),
      indexes: [{ type: 'default' as const, dataId: 'y', text: 'other' }],
    };

    expect(chunkItem(c).indexes).toEqual([{ type: 'default', dataId: 'y', text: 'other' }]);
  });

  it('written whole before are read as they are', () => {
    const c = chunk('d'.repeat(24), 'old', 'item');

    expect(chunkOfItem({ ...c })).toEqual(c);
  });

  it('are read back whole by id and by collection from the engine', async () => {
    const dataset = await storeKnowledgeBase(world, TEAM);
    const collection = await storeTextCollection(world, dataset);
    const own = chunk(dataset.id, 'alpha', 'beta');
    // By id, a chunk is found only while its collection is there (shared/repositories/kb-content.ts).
    const first = { ...own, collectionId: collection.id, sk: chunkSortKey(collection.id, 0, own.id) };
    const second = { ...chunk(dataset.id, 'gamma', ''), collectionId: first.collectionId };
    const stored = { ...second, sk: chunkSortKey(first.collectionId, 1, second.id), chunkIndex: 1 };

    await world.content.putChunks([first]);
    await world.content.putChunk(stored);

    expect(await world.content.findChunk(TEAM, first.id)).toEqual(first);
    expect(await world.content.chunksOf(TEAM, dataset.id, first.collectionId)).toEqual([first, stored]);
  });
});
