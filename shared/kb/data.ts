import { datasetErrors } from '../errors.ts';
import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import { type ChunkRecord, defaultIndexes } from './contract.ts';
import type { TrainingQueue } from './training-queue.ts';

/*
 * Data (FastGPT's word for a chunk) as its calls show it (docs/knowledge-base-api.md, "Data"). A chunk is shown once it
 * is readable: trained (`ready`) and of its collection's current generation, or pushed one by one (any generation).
 */

/** The caller's chunk with this id, or 404/501006 (absent or another team's: never said which). */
export async function requireChunk(
  content: Pick<KbContentRepository, 'findChunk'>,
  teamId: string,
  id: string,
): Promise<ChunkRecord> {
  const chunk = await content.findChunk(teamId, id);
  if (chunk === undefined) throw datasetErrors.unAuthDatasetData('The data does not exist');
  return chunk;
}

/** True when a reader may see the chunk. */
export function readable(chunk: ChunkRecord, collection: Pick<StoredCollection, 'generation'>): boolean {
  return chunk.ready && ofCurrentSet(chunk, collection);
}

/** The chunk is of the collection's current set: its current generation, or pushed one by one (any generation). */
export function ofCurrentSet(
  chunk: Pick<ChunkRecord, 'generation' | 'pushed'>,
  collection: Pick<StoredCollection, 'generation'>,
): boolean {
  return chunk.generation === collection.generation || chunk.pushed === true;
}

/** A list item of data/v2/list (and of the deprecated data/list). */
export function dataListItem(chunk: ChunkRecord) {
  return {
    _id: chunk.id,
    datasetId: chunk.datasetId,
    collectionId: chunk.collectionId,
    q: chunk.q,
    a: chunk.a,
    chunkIndex: chunk.chunkIndex,
    updated: false,
    ...(chunk.vectorMissing ? { vectorMissing: true } : {}),
  };
}

/** The detail (FastGPT's DatasetDataItemType). */
export function dataDetail(chunk: ChunkRecord, collection: StoredCollection | undefined) {
  return {
    id: chunk.id,
    _id: chunk.id,
    teamId: chunk.teamId,
    tmbId: chunk.tmbId,
    datasetId: chunk.datasetId,
    collectionId: chunk.collectionId,
    sourceName: collection?.name ?? '',
    ...(collection?.fileId || collection?.rawLink ? { sourceId: collection.fileId ?? collection.rawLink } : {}),
    q: chunk.q,
    a: chunk.a,
    chunkIndex: chunk.chunkIndex,
    indexes: chunk.indexes.map((i) => ({ type: i.type, dataId: i.dataId, text: i.text })),
    updateTime: chunk.updateTime,
    isOwner: true,
    ...(chunk.vectorMissing ? { vectorMissing: true } : {}),
  };
}

/** Stores a chunk with new text (its default indexes made again, its other indexes as given) and queues its embedding. */
export async function storeEditedChunk(
  chunk: ChunkRecord,
  edit: { q: string; a: string; indexes: ChunkRecord['indexes']; now: Date },
  deps: { content: Pick<KbContentRepository, 'putChunk'>; queue: TrainingQueue },
): Promise<void> {
  await deps.content.putChunk({
    ...chunk,
    q: edit.q,
    a: edit.a,
    indexes: [...defaultIndexes(chunk.id, { q: edit.q, a: edit.a }), ...edit.indexes],
    updateTime: edit.now.toISOString(),
  });
  await queueEmbedding(chunk, deps.queue);
}

/** Queues the embedding of one chunk (the training core's `data` message). */
export async function queueEmbedding(chunk: ChunkRecord, queue: TrainingQueue): Promise<void> {
  await queue.send({
    kind: 'data',
    teamId: chunk.teamId,
    datasetId: chunk.datasetId,
    collectionId: chunk.collectionId,
    dataIds: [chunk.id],
  });
}
