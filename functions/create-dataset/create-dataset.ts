import { levelForChild, requireParentFolder } from '#shared/dataset-tree';
import type { CallerContext } from '#shared/http';
import { acceptModel, type ModelCatalog, type ModelKind, type ModelPolicy } from '#shared/model-catalog';
import { DatasetIdConflictError, type DatasetRecord, type DatasetRepository } from '#shared/repositories/datasets';
import { type CreateDatasetBody, DEFAULT_AVATARS } from './schema.ts';

export interface CreateDatasetDeps {
  repo: DatasetRepository;
  catalog: ModelCatalog;
  modelPolicy: ModelPolicy;
  now: () => Date;
  newId: () => string;
}

const MODEL_FIELDS = [
  ['vectorModel', 'vectorModelId', 'vector'],
  ['agentModel', 'agentModelId', 'agent'],
  ['vlmModel', 'vlmModelId', 'vlm'],
] as const satisfies readonly (readonly [keyof CreateDatasetBody, keyof CreateDatasetBody, ModelKind])[];

/** Creates a knowledge base or folder for the caller's team (docs/knowledge-base-api.md) and returns its id. */
export async function createDataset(
  input: { body: CreateDatasetBody; caller: CallerContext },
  deps: CreateDatasetDeps,
): Promise<{ id: string }> {
  const { body } = input;
  const { teamId, tmbId } = input.caller;

  // Folders store no models, so their model fields are not even checked.
  const models = body.type === 'dataset' ? resolveModels(body, deps) : {};

  // The key includes the caller's team: another team's folder is simply not found. The walk up from the
  // parent (one GetItem per level above it) refuses a parent on the deepest level or cut off by a loop.
  if (body.parentId !== null)
    await levelForChild(deps.repo, await requireParentFolder(deps.repo, teamId, body.parentId));

  const time = deps.now().toISOString();
  const record: Omit<DatasetRecord, 'id'> = {
    teamId,
    tmbId,
    parentId: body.parentId,
    type: body.type,
    name: body.name,
    intro: body.intro,
    avatar: body.avatar ?? DEFAULT_AVATARS[body.type],
    ...models,
    inheritPermission: true,
    createTime: time,
    updateTime: time,
    // Empty until its first collection: a delete then skips its content (DatasetRecord.noContent).
    ...(body.type === 'dataset' ? { noContent: true as const } : {}),
  };

  // An id collision is retried once with a fresh id; a second one is unexpected and becomes a 500.
  try {
    return await putWithNewId(record, deps);
  } catch (error) {
    if (!(error instanceof DatasetIdConflictError)) throw error;
    return putWithNewId(record, deps);
  }
}

async function putWithNewId(record: Omit<DatasetRecord, 'id'>, deps: CreateDatasetDeps): Promise<{ id: string }> {
  const id = deps.newId();
  const full: DatasetRecord = { id, ...record };
  try {
    await deps.repo.put(full);
  } catch (error) {
    // The SDK resends a write whose response was lost; the resend then collides with our own first write.
    // Finding exactly our record under the id means the create succeeded: answer it instead of storing a duplicate.
    if (error instanceof DatasetIdConflictError && sameRecord(await deps.repo.get(record.teamId, id), full))
      return { id };
    throw error;
  }
  return { id };
}

function sameRecord(stored: DatasetRecord | undefined, written: DatasetRecord): boolean {
  if (!stored) return false;
  const keys = Object.keys(written) as (keyof DatasetRecord)[];
  return Object.keys(stored).length === keys.length && keys.every((k) => stored[k] === written[k]);
}

/** Each model field's name from the body (as sent, unless the policy is strict), or the catalogue's default of its kind. */
function resolveModels(
  body: CreateDatasetBody,
  { catalog, modelPolicy }: Pick<CreateDatasetDeps, 'catalog' | 'modelPolicy'>,
): Pick<DatasetRecord, 'vectorModel' | 'agentModel' | 'vlmModel'> {
  const models: Pick<DatasetRecord, 'vectorModel' | 'agentModel' | 'vlmModel'> = {};
  for (const [field, alias, kind] of MODEL_FIELDS) {
    const requested = body[field] ?? body[alias];
    const named = body[field] === undefined ? alias : field;
    models[field] =
      requested === undefined ? catalog[kind].default : acceptModel(catalog, modelPolicy, kind, named, requested);
  }
  return models;
}
