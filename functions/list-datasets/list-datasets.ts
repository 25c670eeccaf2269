import { requireParentFolder } from '#shared/dataset-tree';
import { listItemView } from '#shared/dataset-views';
import type { CallerContext } from '#shared/http';
import type { ModelCatalog } from '#shared/model-catalog';
import type { DatasetSummary, DatasetTreeRepository } from '#shared/repositories/datasets';
import type { ListItem } from '#shared/schemas/datasets';
import type { ListDatasetsBody } from './schema.ts';

/**
 * Bounds of one list call (docs/knowledge-base-api.md): at most `maxItems` entries (a response stays
 * far below Lambda's 6 MB even with 2,000-character intros), and a search reads at most
 * `maxSearched` of the team's records, newest first.
 */
export interface ListLimits {
  maxItems: number;
  maxSearched: number;
}

export const LIST_LIMITS: ListLimits = { maxItems: 1_000, maxSearched: 10_000 };

export interface ListDatasetsDeps {
  repo: Pick<DatasetTreeRepository, 'get' | 'children' | 'teamRecords'>;
  catalog: ModelCatalog;
  limits: ListLimits;
}

/**
 * The children of a folder (or of the root), newest `updateTime` first. Without a `parentId`, every
 * record of the team, flat; with a `searchKey`, the team's records whose name or intro holds it,
 * case-insensitively, wherever they are and whatever their type (FastGPT ignores both there).
 */
export async function listDatasets(
  input: { body: ListDatasetsBody; caller: CallerContext },
  deps: ListDatasetsDeps,
): Promise<ListItem[]> {
  const { parentId, type, searchKey } = input.body;
  const { teamId } = input.caller;
  const types = type === undefined ? undefined : new Set<string>(Array.isArray(type) ? type : [type]);
  const wanted = (item: DatasetSummary) => types === undefined || types.has(item.type);
  const view = (item: DatasetSummary) => listItemView(item, deps.catalog);

  if (searchKey !== undefined) {
    const needle = searchKey.toLowerCase();
    return (await teamWide(deps, teamId, (item) => `${item.name}\n${item.intro}`.toLowerCase().includes(needle))).map(
      view,
    );
  }
  if (parentId === undefined) return (await teamWide(deps, teamId, wanted)).map(view);

  if (parentId !== null) await requireParentFolder(deps.repo, teamId, parentId);
  const items: ListItem[] = [];
  for await (const page of deps.repo.children(teamId, parentId)) {
    for (const item of page) {
      if (!wanted(item)) continue;
      items.push(view(item));
      if (items.length >= deps.limits.maxItems) return items;
    }
  }
  return items;
}

/**
 * The team's records that `keep` accepts among its `maxSearched` newest (by creation), the newest
 * `maxItems` of them by `updateTime`. One paged Query on the team's partition, stopped at the bound.
 */
async function teamWide(
  deps: ListDatasetsDeps,
  teamId: string,
  keep: (item: DatasetSummary) => boolean,
): Promise<DatasetSummary[]> {
  const found: DatasetSummary[] = [];
  let read = 0;
  for await (const page of deps.repo.teamRecords(teamId)) {
    for (const item of page.slice(0, deps.limits.maxSearched - read)) if (keep(item)) found.push(item);
    read += page.length;
    if (read >= deps.limits.maxSearched) break;
  }
  return found
    .sort((a, b) => (a.updateTime < b.updateTime ? 1 : a.updateTime > b.updateTime ? -1 : 0))
    .slice(0, deps.limits.maxItems);
}
