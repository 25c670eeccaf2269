import { DatasetApiError, datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection, requireDataset } from '#shared/kb/collections';
import type { ChunkIndexWriter, ChunkSettings } from '#shared/kb/contract';
import { queueEmbedding, storeEditedChunk } from '#shared/kb/data';
import { adjustFailedChunks, collectionErrors, mayHaveErrors } from '#shared/kb/failed-chunks';
import { queueRetraining, type RetrainingDeps } from '#shared/kb/retraining';
import { DEFAULT_CHUNK_SIZE } from '#shared/kb/sources/settings';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import type {
  DeleteTrainingDataBody,
  RetryErrorCollectionsBody,
  UpdateTrainingDataBody,
} from '#shared/schemas/kb-training';
import { type ErrorItem, errorItemView, findErrorItem } from './training-errors.ts';

/*
 * PUT /api/core/dataset/training/updateTrainingData and POST …/deleteTrainingData (docs/knowledge-base-api.md,
 * "Training errors"): an error item trained again (a chunk re-embedded through the training queue as data/update does,
 * a collection's parse by training the collection again) or removed.
 */

export interface TrainingErrorFixDeps extends RetrainingDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly content: RetrainingDeps['content'] &
    Pick<
      KbContentRepository,
      'findCollection' | 'findChunk' | 'getCollection' | 'chunksOf' | 'allCollections' | 'putChunk' | 'deleteKeys'
    >;
  readonly index: Pick<ChunkIndexWriter, 'removeChunks'>;
}

/** Chunk ids per queued message of a retry (a message stays far below SQS's 256 KB). */
export const RETRY_BATCH = 500;

const unknownItem = () => datasetErrors.unAuthDatasetData('The training data does not exist');

/** The settings a collection's parse is trained again with: its own (FastGPT's retry keeps the item's). */
const settingsOf = (c: StoredCollection): ChunkSettings =>
  c.settings ?? { trainingType: 'chunk', chunkSize: DEFAULT_CHUNK_SIZE };

/**
 * With `dataId`, one error item trained again: a chunk, its `q`/`a` first changed when sent, is queued for embedding;
 * the parse item trains the collection again. Without, every error of `collectionId`'s collection, or of `datasetId`'s
 * knowledge base. Answers `{}`, as FastGPT's handler did before it answered nothing.
 */
export async function updateTrainingData(
  input: { body: UpdateTrainingDataBody; caller: CallerContext },
  deps: TrainingErrorFixDeps,
): Promise<Record<string, never>> {
  const { body, caller } = input;
  if (body.dataId !== undefined) {
    const item = await findErrorItem(deps.content, caller.teamId, { ...body, dataId: body.dataId });
    if (item === undefined) throw unknownItem();
    await retryItem(item, body, deps);
  } else if (body.collectionId !== undefined) {
    const collection = await requireCollection(deps.content, caller.teamId, body.collectionId);
    if (body.datasetId !== undefined && body.datasetId !== collection.datasetId) {
      throw datasetErrors.unExistCollection('The collection does not exist in this knowledge base');
    }
    await retryCollection(collection, deps, true);
  } else if (body.datasetId !== undefined) {
    await retryDataset(caller.teamId, body.datasetId, undefined, deps);
  } else {
    throw datasetErrors.missingParams('collectionId, datasetId or dataId is required');
  }
  return {};
}

/**
 * PUT /api/core/dataset/training/retryErrorCollections (FastGPT's "retry all" of its collection list; handler
 * `projects/app/src/pages/api/core/dataset/training/retryErrorCollections.ts`, labring/FastGPT at 5031e2af): every
 * error of the knowledge base, or of the collections of it named in `collectionIds`. Answers `{}`.
 */
export async function retryErrorCollections(
  input: { body: RetryErrorCollectionsBody; caller: CallerContext },
  deps: TrainingErrorFixDeps,
): Promise<Record<string, never>> {
  const { datasetId, collectionIds } = input.body;
  await retryDataset(input.caller.teamId, datasetId, collectionIds ?? undefined, deps);
  return {};
}

/**
 * Every error of a knowledge base's collections (only those named, when `only` is given: another knowledge base's or an
 * unknown id is passed over, as FastGPT's update matches none) trained again; a parse that cannot be trained now is
 * passed over.
 */
async function retryDataset(
  teamId: string,
  datasetId: string,
  only: readonly string[] | undefined,
  deps: TrainingErrorFixDeps,
): Promise<void> {
  await requireDataset(deps.datasets, teamId, datasetId);
  const named = only === undefined ? undefined : new Set(only);
  const collections = await deps.content.allCollections(teamId, datasetId);
  for (const collection of collections) {
    if (named !== undefined && !named.has(collection.id)) continue;
    if (mayHaveErrors(collection)) {
      await retryCollection(collection, deps, false);
    }
  }
}

async function retryItem(item: ErrorItem, body: UpdateTrainingDataBody, deps: TrainingErrorFixDeps): Promise<void> {
  const view = errorItemView(item);
  // A chunk keeps its place: its index is part of its key, and FastGPT's web client never sends another.
  if (body.chunkIndex != null && body.chunkIndex !== view.chunkIndex) {
    throw datasetErrors.invalidParams('chunkIndex cannot be changed: a chunk keeps its place in the collection');
  }
  if (item.kind === 'parse') {
    if (body.q?.trim() || body.a?.trim()) {
      throw datasetErrors.invalidParams('The collection’s parse has no text to edit; send the call without q and a');
    }
    await queueRetraining(item.collection, settingsOf(item.collection), deps);
    return;
  }
  const { chunk } = item;
  const q = body.q?.trim() || chunk.q;
  const a = body.a == null ? chunk.a : body.a.trim();
  // Still without its vector (and so still an error item) until the training core has embedded it.
  if (q === chunk.q && a === chunk.a) await queueEmbedding(chunk, deps.queue);
  else {
    const indexes = chunk.indexes.filter((i) => i.type !== 'default');
    await storeEditedChunk(chunk, { q, a, indexes, now: deps.now() }, deps);
  }
}

/**
 * Every error of one collection trained again. `strict`: a parse that cannot be trained again now (being trained: 429;
 * no source: 507000) answers so; otherwise (a knowledge base's retry) that collection is passed over.
 */
async function retryCollection(collection: StoredCollection, deps: TrainingErrorFixDeps, strict: boolean) {
  const { failed, parse } = await collectionErrors(deps.content, collection);
  for (let start = 0; start < failed.length; start += RETRY_BATCH) {
    await deps.queue.send({
      kind: 'data',
      teamId: collection.teamId,
      datasetId: collection.datasetId,
      collectionId: collection.id,
      dataIds: failed.slice(start, start + RETRY_BATCH).map((c) => c.id),
    });
  }
  if (!parse) return;
  try {
    await queueRetraining(collection, settingsOf(collection), deps);
  } catch (error) {
    if (strict || !(error instanceof DatasetApiError)) throw error;
  }
}

/**
 * Removes one error item; answers `{}`. A chunk goes as data/delete removes one (its vectors and postings first), its
 * counts in one write; the parse item takes the collection's error away (`ready`, with whatever chunks it has), as
 * FastGPT's delete of a parse item leaves its collection without error and without data.
 */
export async function deleteTrainingData(
  input: { body: DeleteTrainingDataBody; caller: CallerContext },
  deps: Pick<TrainingErrorFixDeps, 'content' | 'index' | 'now'>,
): Promise<Record<string, never>> {
  const item = await findErrorItem(deps.content, input.caller.teamId, input.body);
  if (item === undefined) throw unknownItem();
  const { teamId, datasetId, id: collectionId, generation } = item.collection;
  if (item.kind === 'parse') {
    // Only while it is still in error at the generation read: a training queued meanwhile keeps its state.
    await deps.content.updateCollection(
      teamId,
      datasetId,
      collectionId,
      { status: 'ready', updateTime: deps.now().toISOString() },
      {
        remove: ['error', 'failedChunks'],
        expectedGeneration: generation,
        unlessStatus: ['ready', 'queued', 'training'],
      },
    );
    return {};
  }
  await deps.index.removeChunks(teamId, datasetId, [item.chunk.id]);
  await deps.content.deleteKeys([item.chunk]);
  await adjustFailedChunks(deps.content, { teamId, datasetId, collectionId }, -1, { add: { dataAmount: -1 } });
  return {};
}
