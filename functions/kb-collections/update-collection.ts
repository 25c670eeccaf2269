import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { type CollectionChanges, collectionParentKey, type KbContentRepository } from '#shared/repositories/kb-content';
import type { UpdateCollectionBody } from '#shared/schemas/kb-content';

export interface UpdateCollectionDeps {
  readonly content: Pick<KbContentRepository, 'findCollection' | 'getCollection' | 'updateCollection'>;
  readonly now: () => Date;
}

/** Folder levels a move walks up at most (a deeper tree is refused). */
const MAX_LEVELS = 100;

/**
 * Renames, tags, forbids or moves one of the caller's collections; an empty `name` leaves it unchanged (FastGPT).
 * A move goes into a folder of the same knowledge base, never into the collection itself or below it.
 */
export async function updateCollection(
  input: { body: UpdateCollectionBody; caller: CallerContext },
  deps: UpdateCollectionDeps,
): Promise<null> {
  const { body, caller } = input;
  const collection = await requireCollection(deps.content, caller.teamId, body.id);
  const { teamId, datasetId } = collection;
  const changes: { -readonly [K in keyof CollectionChanges]: CollectionChanges[K] } = {
    updateTime: deps.now().toISOString(),
  };
  if (body.name) changes.name = body.name;
  if (body.tags) changes.tags = body.tags;
  if (body.forbid !== undefined && body.forbid !== null) changes.forbid = body.forbid;
  if (body.createTime) changes.createTime = new Date(body.createTime).toISOString();
  if (body.parentId !== undefined && body.parentId !== collection.parentId) {
    let level = body.parentId;
    for (let depth = 0; level !== null; depth++) {
      if (level === collection.id || depth > MAX_LEVELS) {
        throw datasetErrors.invalidParams('a collection cannot move into itself or a folder below it');
      }
      const parent = await deps.content.getCollection(teamId, datasetId, level);
      if (parent === undefined) throw datasetErrors.unExistCollection('The parent collection does not exist');
      if (parent.type !== 'folder') throw datasetErrors.invalidParams('parentId must refer to a collection folder');
      level = parent.parentId;
    }
    changes.parentId = body.parentId;
    changes.parentKey = collectionParentKey(teamId, datasetId, body.parentId);
  }
  if (!(await deps.content.updateCollection(teamId, datasetId, collection.id, changes))) {
    throw datasetErrors.unExistCollection('The collection does not exist');
  }
  return null;
}
