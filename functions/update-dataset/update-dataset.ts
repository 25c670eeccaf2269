import { ancestry, requireParentFolder, requireRecord } from '#shared/dataset-tree';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { acceptModel, type ModelCatalog, type ModelPolicy } from '#shared/model-catalog';
import type { DatasetChanges, DatasetTreeRepository } from '#shared/repositories/datasets';
import { DEFAULT_AVATARS } from '#shared/schemas/dataset-fields';
import type { UpdateDatasetBody } from './schema.ts';

export interface UpdateDatasetDeps {
  repo: Pick<DatasetTreeRepository, 'get' | 'update'>;
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
    if (body.parentId !== null) {
      const parent = await requireParentFolder(deps.repo, teamId, body.parentId);
      // Only a folder has a subtree: walk up from the new parent; meeting the record itself is a cycle.
      for await (const ancestor of ancestry(deps.repo, parent)) {
        if (ancestor.id === record.id) {
          throw datasetErrors.invalidParams('parentId must not be the folder itself or one of its subfolders');
        }
      }
    }
    changes.parentId = body.parentId;
  }

  // Deleted since it was read: as absent as before.
  if (!(await deps.repo.update(teamId, record.id, changes))) {
    throw datasetErrors.unExistDataset('id does not refer to an existing dataset or folder');
  }
  return null;
}
