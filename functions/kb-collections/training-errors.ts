import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import type { ChunkRecord } from '#shared/kb/contract';
import { readable } from '#shared/kb/data';
import { collectionErrors } from '#shared/kb/failed-chunks';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import { pageOf } from '#shared/schemas/kb-content';
import type { TrainingDataDetailBody, TrainingErrorListBody } from '#shared/schemas/kb-training';

/*
 * POST /api/core/dataset/training/getTrainingError and …/getTrainingDataDetail (docs/knowledge-base-api.md, "Training
 * errors"): FastGPT's training dialog lists the failed items of its training queue. This product trains a collection
 * as a whole, so its error items are its chunks stored without a vector (`vectorMissing`), each shown as one of
 * FastGPT's training items (DatasetTrainingSchemaType, labring/FastGPT packages/global/core/dataset/type.ts at
 * 01c761fd), and, for a collection `error` without such a chunk, one item standing for its parse.
 */

/** One of a collection's error items: a chunk without its vector, or the collection's failed parse. */
export type ErrorItem =
  | { readonly kind: 'chunk'; readonly collection: StoredCollection; readonly chunk: ChunkRecord }
  | { readonly kind: 'parse'; readonly collection: StoredCollection };

/** The mode of a collection's parse item, as trainingDetail counts it (`qa` for Q&A training, else `parse`). */
export const parseMode = (c: StoredCollection): 'qa' | 'parse' => (c.settings?.trainingType === 'qa' ? 'qa' : 'parse');

const CHUNK_ERROR = 'the embedding of this chunk failed';
const PARSE_ERROR = 'the training of this collection failed';

/** FastGPT's training item (its `billId` left out, as its getTrainingError's schema allows). */
export function errorItemView(item: ErrorItem) {
  const { collection } = item;
  const common = {
    teamId: collection.teamId,
    datasetId: collection.datasetId,
    collectionId: collection.id,
    weight: 0,
    // FastGPT stops retrying an item once its retries are used up and it carries an error.
    retryCount: 0,
    ...(collection.settings?.indexSize ? { indexSize: collection.settings.indexSize } : {}),
  };
  if (item.kind === 'parse') {
    return {
      _id: collection.id,
      tmbId: collection.tmbId,
      ...common,
      mode: parseMode(collection),
      q: '',
      a: '',
      chunkIndex: 0,
      indexes: [],
      // FastGPT's creation time (its expiry counts from it) and its last attempt: here the collection's last change.
      expireAt: collection.updateTime,
      lockTime: collection.updateTime,
      errorMsg: collection.error ?? PARSE_ERROR,
    };
  }
  const { chunk } = item;
  return {
    _id: chunk.id,
    tmbId: chunk.tmbId,
    ...common,
    mode: 'chunk' as const,
    dataId: chunk.id,
    q: chunk.q,
    a: chunk.a,
    chunkIndex: chunk.chunkIndex,
    indexes: chunk.indexes.map((i) => ({ type: i.type, text: i.text })),
    expireAt: chunk.updateTime,
    lockTime: chunk.updateTime,
    errorMsg: collection.error ?? CHUNK_ERROR,
  };
}
export type ErrorItemView = ReturnType<typeof errorItemView>;

/**
 * The error item `dataId` names, of the caller's team, in `collectionId`'s collection and `datasetId`'s knowledge base
 * when given (another team's collection, or one not in that knowledge base, is 404/501003 as an unknown one).
 * Undefined when there is none: an unknown id, another team's, a chunk that has its vector, a collection not in error.
 */
export async function findErrorItem(
  content: Pick<KbContentRepository, 'findCollection' | 'findChunk' | 'getCollection' | 'chunksOf'>,
  teamId: string,
  ref: { readonly dataId: string; readonly collectionId?: string | undefined; readonly datasetId?: string | undefined },
): Promise<ErrorItem | undefined> {
  const named = ref.collectionId === undefined ? undefined : await requireCollection(content, teamId, ref.collectionId);
  if (named !== undefined && ref.datasetId !== undefined && named.datasetId !== ref.datasetId) {
    throw datasetErrors.unExistCollection('The collection does not exist in this knowledge base');
  }
  const inScope = (c: StoredCollection | undefined): c is StoredCollection =>
    c !== undefined && (named === undefined || c.id === named.id) && (ref.datasetId ?? c.datasetId) === c.datasetId;

  const chunk = await content.findChunk(teamId, ref.dataId);
  if (chunk !== undefined) {
    const collection = named ?? (await content.getCollection(chunk.teamId, chunk.datasetId, chunk.collectionId));
    if (!inScope(collection) || chunk.collectionId !== collection.id) return undefined;
    return chunk.vectorMissing === true && readable(chunk, collection)
      ? { kind: 'chunk', collection, chunk }
      : undefined;
  }
  const collection = named ?? (await content.findCollection(teamId, ref.dataId));
  if (!inScope(collection) || collection.id !== ref.dataId || collection.status !== 'error') return undefined;
  return (await collectionErrors(content, collection)).parse ? { kind: 'parse', collection } : undefined;
}

/** A collection's error items: its failed chunks in chunk order, or the one item standing for its parse (one Query). */
export async function errorItemsOf(
  content: Pick<KbContentRepository, 'chunksOf'>,
  collection: StoredCollection,
): Promise<ErrorItem[]> {
  const { failed, parse } = await collectionErrors(content, collection);
  return parse ? [{ kind: 'parse', collection }] : failed.map((chunk) => ({ kind: 'chunk', collection, chunk }));
}

/** One page of a collection's error items, in chunk order (FastGPT's `{list, total}`). */
export async function trainingErrorList(
  input: { body: TrainingErrorListBody; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection' | 'chunksOf'> },
): Promise<{ list: ErrorItemView[]; total: number }> {
  const collection = await requireCollection(deps.content, input.caller.teamId, input.body.collectionId);
  const items = await errorItemsOf(deps.content, collection);
  const page = pageOf(input.body);
  return { list: items.slice(page.offset, page.offset + page.pageSize).map(errorItemView), total: items.length };
}

/** FastGPT's detail of one error item, or null when the collection has none with that id. */
export async function trainingDataDetail(
  input: { body: TrainingDataDetailBody; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection' | 'findChunk' | 'getCollection' | 'chunksOf'> },
): Promise<{ _id: string; datasetId: string; collectionId: string; mode: string; q: string; a: string } | null> {
  const item = await findErrorItem(deps.content, input.caller.teamId, input.body);
  if (item === undefined) return null;
  const { _id, datasetId, collectionId, mode, q, a } = errorItemView(item);
  return { _id, datasetId, collectionId, mode, q, a };
}
