/**
 * What both create figures send: the request body, and the item create-dataset stores for it, which the raw
 * baseline writes itself with the same condition. Kept in one place so the two sides write the same thing.
 */
import { newObjectId } from '#shared/ids';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import { parentKeyOf } from '#shared/repositories/datasets';
import { DEFAULT_AVATARS } from '#shared/schemas/dataset-fields';

/** The condition create-dataset's repository puts with. */
export const CREATE_CONDITION = 'attribute_not_exists(id)';

/** The body of the i-th create request. */
export function createBody(i: number): { name: string; intro: string } {
  return { name: `bench dataset ${i}`, intro: 'created by npm run bench' };
}

/** The item create-dataset stores for `createBody(i)` at the root of the caller's team, index key included. */
export function createdItem(i: number, caller: { teamId: string; tmbId: string }): Record<string, unknown> {
  const time = new Date().toISOString();
  return {
    id: newObjectId(),
    teamId: caller.teamId,
    tmbId: caller.tmbId,
    parentId: null,
    type: 'dataset',
    ...createBody(i),
    avatar: DEFAULT_AVATARS.dataset,
    vectorModel: BUILT_IN_MODEL_CATALOG.vector.default,
    agentModel: BUILT_IN_MODEL_CATALOG.agent.default,
    vlmModel: BUILT_IN_MODEL_CATALOG.vlm.default,
    inheritPermission: true,
    createTime: time,
    updateTime: time,
    parentKey: parentKeyOf(caller.teamId, null),
  };
}
