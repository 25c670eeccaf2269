import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import type { ChunkRecord } from './contract.ts';
import { readable } from './data.ts';

/*
 * A collection's training errors (docs/knowledge-base-api.md, "Training errors"): its readable chunks whose embedding
 * failed (`vectorMissing`, counted in the collection's `failedChunks`), or, when it is `error` without any, the failure
 * of the stage before (its source could not be read, or every attempt failed). The training core, the training-error
 * calls and data/delete keep `failedChunks` through `adjustFailedChunks`, so the count, the error and the list agree.
 */

/** What the training-error calls show of one collection: its failed chunks in chunk order, or its parse error. */
export interface CollectionErrors {
  readonly failed: readonly ChunkRecord[];
  /** The collection is `error` and no chunk of it misses its vector: one item stands for its parse. */
  readonly parse: boolean;
}

/** Whether a collection may have error items, from its record alone (no chunk read): failed, or chunks without a vector. */
export const mayHaveErrors = (c: StoredCollection): boolean => c.status === 'error' || (c.failedChunks ?? 0) > 0;

/** A collection's errors, from its chunks (one Query). */
export async function collectionErrors(
  content: Pick<KbContentRepository, 'chunksOf'>,
  collection: StoredCollection,
): Promise<CollectionErrors> {
  const chunks = await content.chunksOf(collection.teamId, collection.datasetId, collection.id);
  const failed = chunks.filter((c) => c.vectorMissing === true && readable(c, collection));
  return { failed, parse: failed.length === 0 && collection.status === 'error' };
}

/** Writes one collection's count races (a delete beside a retry): tried again on a fresh read this often. */
const MAX_ADJUST_ATTEMPTS = 10;

/**
 * Adds `delta` to a collection's `failedChunks` (never below 0), in one conditional write on the count read, so a
 * delete and a retry of the same collection never lose each other's change. With `error`, the collection is marked
 * `error` with it; without, a count that reaches 0 from above takes the collection's chunk error away (`ready`, no
 * `error`), only while it is still `error` (a training queued meanwhile keeps its state). `add` moves the other counts
 * in the same write. A gone collection is left alone.
 */
export async function adjustFailedChunks(
  content: Pick<KbContentRepository, 'getCollection' | 'updateCollection'>,
  ref: { readonly teamId: string; readonly datasetId: string; readonly collectionId: string },
  delta: number,
  options: { readonly error?: string; readonly add?: { readonly dataAmount?: number } } = {},
): Promise<void> {
  const { teamId, datasetId, collectionId } = ref;
  for (let attempt = 1; attempt <= MAX_ADJUST_ATTEMPTS; attempt++) {
    const collection = await content.getCollection(teamId, datasetId, collectionId);
    if (collection === undefined) return;
    const before = Math.max(0, collection.failedChunks ?? 0);
    const after = Math.max(0, before + delta);
    const clears = options.error === undefined && after === 0 && before > 0 && collection.status === 'error';
    const written = await content.updateCollection(
      teamId,
      datasetId,
      collectionId,
      options.error !== undefined
        ? { status: 'error', error: options.error, failedChunks: after }
        : clears
          ? { status: 'ready' }
          : { failedChunks: after },
      {
        expectedFailedChunks: before,
        ...(clears ? { remove: ['error', 'failedChunks'], unlessStatus: ['ready', 'queued', 'training'] } : {}),
        ...(options.add ? { add: options.add } : {}),
      },
    );
    if (written) return;
  }
  throw new Error(`the failed-chunk count of a collection kept changing (${MAX_ADJUST_ATTEMPTS} attempts)`);
}
