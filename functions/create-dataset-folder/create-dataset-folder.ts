import type { CallerContext } from '#shared/http';
import { type CreateDatasetDeps, createDataset } from '../create-dataset/create-dataset.ts';
import type { CreateDatasetFolderBody } from './schema.ts';

/**
 * Creates a folder for the caller's team: exactly what create does for `type: "folder"` (the same
 * parent rules, record and write), so the two calls can never store folders differently.
 */
export function createDatasetFolder(
  input: { body: CreateDatasetFolderBody; caller: CallerContext },
  deps: CreateDatasetDeps,
): Promise<{ id: string }> {
  const { name, parentId, intro } = input.body;
  const none = { avatar: undefined, vectorModel: undefined, agentModel: undefined, vlmModel: undefined };
  const body = { ...none, vectorModelId: undefined, agentModelId: undefined, vlmModelId: undefined };
  return createDataset({ body: { ...body, name, parentId, intro, type: 'folder' }, caller: input.caller }, deps);
}
