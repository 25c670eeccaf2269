import {
  climb,
  levelForChild,
  MAX_TREE_LEVELS,
  movedIntoItself,
  reachesBelow,
  requireParentFolder,
  requireRecord,
  type TreeLockDeps,
  withTreeLock,
} from '#shared/dataset-tree';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { acceptModel, type ModelCatalog, type ModelPolicy } from '#shared/model-catalog';
import type { DatasetChanges, DatasetRecord, DatasetTreeRepository } from '#shared/repositories/datasets';
import { DEFAULT_AVATARS } from '#shared/schemas/dataset-fields';
import type { UpdateDatasetBody } from './schema.ts';

export interface UpdateDatasetDeps extends TreeLockDeps {
  repo: Pick<DatasetTreeRepository, 'get' | 'update' | 'children' | 'lockTree' | 'unlockTree'>;
  catalog: ModelCatalog;
  modelPolicy: ModelPolicy;
  now: () => Date;
}

/** Changes the named fields of one of the caller's records and bumps its `updateTime`. */
export async function updateDataset(
  input: { body: UpdateDatasetBody; caller: CallerContext },
  deps: UpdateDatasetDeps,
): Promise<null> {
  const { body } = input;
  const { teamId } = input.caller;
  const record = await requireRecord(deps.repo, teamId, body.id);

  if (body.type !== undefined && body.type !== record.type) {
    throw datasetErrors.invalidParams('type cannot be changed');
  }
  const changes: DatasetChanges = {
    parentId: record.parentId,
    updateTime: deps.now().toISOString(),
    name: body.name,
    intro: body.intro,
    // Blank resets the avatar to the default of the record's type, as create does.
    avatar: body.avatar === undefined ? undefined : body.avatar || DEFAULT_AVATARS[record.type],
  };
  // Folders store no models: their model fields are ignored, as on create. A `vectorModel` is never read:
  // the stored vectors were computed with the record's own.
  if (record.type === 'dataset') {
    const { catalog, modelPolicy } = deps;
    if (body.agentModel !== undefined) {
      changes.agentModel = acceptModel(catalog, modelPolicy, 'agent', 'agentModel', body.agentModel);
    } else if (body.agentModelId !== undefined) {
      changes.agentModel = acceptModel(catalog, modelPolicy, 'agent', 'agentModelId', body.agentModelId);
    }
    if (body.vlmModel !== undefined) {
      changes.vlmModel = acceptModel(catalog, modelPolicy, 'vlm', 'vlmModel', body.vlmModel);
    } else if (body.vlmModelId !== undefined) {
      changes.vlmModel = acceptModel(catalog, modelPolicy, 'vlm', 'vlmModelId', body.vlmModelId);
    }
  }

  if (body.parentId !== undefined && body.parentId !== record.parentId) {
    changes.parentId = body.parentId;
    // Into a folder: one move of the team at a time. To the root: no cycle can form and nothing gets deeper.
    if (body.parentId !== null) {
      const parentId = body.parentId;
      await withTreeLock(deps, teamId, () => moveIntoFolder(deps, record, parentId, changes));
      return null;
    }
  }
  await write(deps, record, changes);
  return null;
}

/**
 * Moves `record` under the folder `parentId`, holding the team's tree lock: the new parent must not lie in
 * the record's subtree, and the record's subtree must still fit within MAX_TREE_LEVELS below it.
 */
async function moveIntoFolder(
  deps: UpdateDatasetDeps,
  record: DatasetRecord,
  parentId: string,
  changes: DatasetChanges,
): Promise<void> {
  const { repo } = deps;
  const parent = await requireParentFolder(repo, record.teamId, parentId);
  const level = await levelForChild(repo, parent, record.id);
  // Only a folder has a subtree, and it only needs measuring when the move takes it deeper than it is.
  if (record.type === 'folder') {
    const { chain, end } = await climb(repo, record);
    const deeper = !(end === 'root' || end === 'missingParent') || level + 1 > chain.length;
    if (deeper && (await reachesBelow(repo, record, MAX_TREE_LEVELS - level - 1))) {
      throw datasetErrors.invalidParams(
        `folders nest at most ${MAX_TREE_LEVELS} levels deep: the folder's subtree does not fit under parentId ${parentId}`,
      );
    }
  }
  await write(deps, record, changes);

  // The lock keeps other moves out; this re-read is the proof. Meeting the record above its new parent
  // means a move that did not wait for the lock raced this one: undo this move rather than keep a loop.
  const parentNow = await repo.get(record.teamId, parentId);
  const above = parentNow ? (await climb(repo, parentNow)).chain : [];
  if (above.some((r) => r.id === record.id)) {
    const { teamId, id, parentId: previousParent, updateTime, name, intro, avatar, agentModel, vlmModel } = record;
    await repo.update(
      teamId,
      id,
      { parentId: previousParent, updateTime, name, intro, avatar, agentModel, vlmModel },
      parentId,
    );
    throw movedIntoItself();
  }
}

/** Writes `changes` if the record is still where it was read; 404 when it is gone, 429 when it has moved. */
async function write(deps: UpdateDatasetDeps, record: DatasetRecord, changes: DatasetChanges): Promise<void> {
  if (await deps.repo.update(record.teamId, record.id, changes, record.parentId)) return;
  if (!(await deps.repo.get(record.teamId, record.id))) {
    throw datasetErrors.unExistDataset('id does not refer to an existing dataset or folder');
  }
  throw datasetErrors.tooManyRequests('the record was moved by another request while this update ran; send it again');
}
