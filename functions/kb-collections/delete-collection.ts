import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { type ContentDeleteDeps, deleteCollections } from '#shared/kb/content-delete';
import type { KbContentRepository } from '#shared/repositories/kb-content';

export interface DeleteCollectionDeps extends ContentDeleteDeps {
  readonly content: ContentDeleteDeps['content'] & Pick<KbContentRepository, 'findCollection'>;
}

/**
 * Deletes the named collections (`?id=` or a body's `collectionIds`), a folder with everything in it, each with its
 * data, vectors and source file. Every id must be the caller's (404/501003 before anything is deleted).
 */
export async function deleteCollection(
  input: { ids: readonly string[]; caller: CallerContext },
  deps: DeleteCollectionDeps,
): Promise<null> {
  if (input.ids.length === 0) throw datasetErrors.missingParams('id is required');
  const collections = [];
  for (const id of new Set(input.ids)) collections.push(await requireCollection(deps.content, input.caller.teamId, id));
  await deleteCollections(collections, deps);
  return null;
}
