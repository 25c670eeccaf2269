import { type ModelCatalog, modelItem } from '#shared/model-catalog';
import type { DatasetRecord, DatasetSummary } from '#shared/repositories/datasets';
import { OWNER_PERMISSION } from '#shared/schemas/dataset-fields';
// Types only: the response schemas are classic zod, which no function bundle may load.
import type { DatasetDetail, ListItem, PermissionView } from '#shared/schemas/datasets';

export { OWNER_PERMISSION };

/**
 * The caller's permission on every record of its team: the member behind an access token owns them all
 * (this API has no member roles). Both spellings FastGPT has used, so clients of every release read it.
 */
export const OWNER: PermissionView = Object.freeze({
  value: OWNER_PERMISSION,
  role: OWNER_PERMISSION,
  isOwner: true,
  hasManagePer: true,
  hasWritePer: true,
  hasReadPer: true,
  hasManageRole: true,
  hasWriteRole: true,
  hasReadRole: true,
} as const);

/** FastGPT's default member avatar; this API knows members by id only. */
const MEMBER_AVATAR = '/imgs/avatar/BlueAvatar.svg';

/**
 * The model names FastGPT's schema stores on a folder (its defaults), shown through the catalogue like
 * any stored name: a folder's models are those items, or the kind's default where the catalogue lacks them.
 */
const FOLDER_MODELS = { vectorModel: 'text-embedding-3-small', agentModel: 'gpt-4o-mini' } as const;

const storedModel = (record: Pick<DatasetRecord, 'type' | 'vectorModel'>, field: 'vectorModel') =>
  record.type === 'folder' ? FOLDER_MODELS[field] : record[field];

/** One entry of a list's `data`, with FastGPT's wire names. */
export function listItemView(item: DatasetSummary, catalog: ModelCatalog): ListItem {
  return {
    _id: item.id,
    parentId: item.parentId ?? null,
    type: item.type,
    name: item.name,
    intro: item.intro,
    avatar: item.avatar,
    vectorModel: modelItem(catalog, 'vector', storedModel(item, 'vectorModel')),
    tmbId: item.tmbId,
    inheritPermission: item.inheritPermission,
    updateTime: item.updateTime,
    permission: { ...OWNER },
    // FastGPT marks a record private when no one but its owner may open it; here every token of the team can.
    private: false,
    sourceMember: { name: `member-${item.tmbId}`, avatar: MEMBER_AVATAR, status: 'active' },
  };
}

/** A detail's `data`: the stored record with `_id`, model items, the permission and `status`. */
export function detailView(record: DatasetRecord, catalog: ModelCatalog): DatasetDetail {
  const { private: _private, sourceMember: _sourceMember, ...item } = listItemView(record, catalog);
  const folder = record.type === 'folder';
  return {
    ...item,
    teamId: record.teamId,
    // FastGPT's sync status; only its website and API datasets are ever anything but active.
    status: 'active',
    agentModel: modelItem(catalog, 'agent', folder ? FOLDER_MODELS.agentModel : record.agentModel),
    vlmModel: modelItem(catalog, 'vlm', folder ? undefined : record.vlmModel),
    createTime: record.createTime,
  };
}
