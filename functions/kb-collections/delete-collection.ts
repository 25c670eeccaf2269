import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { markForDelete } from '#shared/kb/content-delete';
import type { TrainingQueue } from '#shared/kb/training-queue';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';

export interface DeleteCollectionDeps {
  readonly content: Pick<KbContentRepository, 'findCollection' | 'collectionsIn' | 'markDeleting'>;
  readonly queue: TrainingQueue;
  readonly now: () => Date;
}

/**
 * Deletes the named collections (`?id=` or a body's `collectionIds`), a folder with everything in it, each with its
 * data, vectors and source file. Every id must be the caller's (404/501003 before anything is marked). The answer
 * comes once they are marked `deleting` (gone from every read) and their delete is queued; the training function
 * removes the content afterwards (shared/kb/content-delete.ts). A collection still being deleted is queued again: a
 * repeat finishes what a failed call left.
 */
export async function deleteCollection(
  input: { ids: readonly string[]; caller: CallerContext },
  deps: DeleteCollectionDeps,
): Promise<null> {
  if (input.ids.length === 0) throw datasetErrors.missingParams('id is required');
  const { teamId } = input.caller;
  const byDataset = new Map<string, StoredCollection[]>();
  for (const id of new Set(input.ids)) {
    const collection = await deps.content.findCollection(teamId, id, { deleting: true });
    if (collection === undefined) throw datasetErrors.unExistCollection('The collection does not exist');
    byDataset.set(collection.datasetId, [...(byDataset.get(collection.datasetId) ?? []), collection]);
  }
  for (const [datasetId, collections] of byDataset) {
    await markForDelete(collections, deps);
    await deps.queue.send({ kind: 'delete', teamId, datasetId, collectionIds: collections.map((c) => c.id) });
  }
  return null;
}
