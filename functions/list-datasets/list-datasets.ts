import { requireParentFolder } from '#shared/dataset-tree';
import { listItemView } from '#shared/dataset-views';
import type { CallerContext } from '#shared/http';
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
  limits: ListLimits;
}

/**
 * The children of a folder (or of the root), newest `updateTime` first; with a `searchKey`, the
 * team's records whose name or intro holds it, case-insensitively, wherever they are.
 */
export async function listDatasets(
  input: { body: ListDatasetsBody; caller: CallerContext },
  deps: ListDatasetsDeps,
): Promise<ListItem[]> {
  const { parentId, type, searchKey } = input.body;
  const { teamId } = input.caller;
  const wanted = (item: DatasetSummary) => type === undefined || item.type === type;

  if (searchKey !== undefined) {
    const needle = searchKey.toLowerCase();
    const found: DatasetSummary[] = [];
    let read = 0;
    for await (const page of deps.repo.teamRecords(teamId)) {
      for (const item of page.slice(0, deps.limits.maxSearched - read)) {
        const text = `${item.name}\n${item.intro}`.toLowerCase();
        if (wanted(item) && text.includes(needle)) found.push(item);
      }
      read += page.length;
      if (read >= deps.limits.maxSearched) break;
    }
    return found
      .sort((a, b) => (a.updateTime < b.updateTime ? 1 : a.updateTime > b.updateTime ? -1 : 0))
      .slice(0, deps.limits.maxItems)
      .map(listItemView);
  }

  if (parentId !== null) await requireParentFolder(deps.repo, teamId, parentId);
  const items: ListItem[] = [];
  for await (const page of deps.repo.children(teamId, parentId)) {
    for (const item of page) {
      if (!wanted(item)) continue;
      items.push(listItemView(item));
      if (items.length >= deps.limits.maxItems) return items;
    }
  }
  return items;
}
