import type { DatasetRecord, DatasetSummary } from '#shared/repositories/datasets';
import type { DatasetDetail, ListItem } from '#shared/schemas/datasets';

const modelView = (name: string | undefined) => (name ? { model: name, name } : null);

/** One entry of a list's `data`, with FastGPT's wire names. */
export function listItemView(item: DatasetSummary): ListItem {
  return {
    _id: item.id,
    parentId: item.parentId ?? null,
    type: item.type,
    name: item.name,
    intro: item.intro,
    avatar: item.avatar,
    vectorModel: modelView(item.vectorModel),
    tmbId: item.tmbId,
    inheritPermission: item.inheritPermission,
    updateTime: item.updateTime,
  };
}

/** A detail's `data`: the stored record with `_id` and model objects. */
export function detailView(record: DatasetRecord): DatasetDetail {
  return {
    ...listItemView(record),
    teamId: record.teamId,
    agentModel: modelView(record.agentModel),
    vlmModel: modelView(record.vlmModel),
    createTime: record.createTime,
  };
}
