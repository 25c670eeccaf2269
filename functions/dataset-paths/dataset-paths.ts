import { ancestry, requireRecord } from '#shared/dataset-tree';
import type { CallerContext } from '#shared/http';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { PathEntry } from '#shared/schemas/datasets';
import type { PathsQuery } from './schema.ts';

export interface DatasetPathsDeps {
  repo: Pick<DatasetRepository, 'get'>;
}

/**
 * The folders from the root down to a record's parent (`type=parent`) or to the record itself
 * (`type=current`), one GetItem per level.
 */
export async function datasetPaths(
  input: { query: PathsQuery; caller: CallerContext },
  deps: DatasetPathsDeps,
): Promise<PathEntry[]> {
  const { sourceId, type } = input.query;
  if (!sourceId) return [];
  const source = await requireRecord(deps.repo, input.caller.teamId, sourceId, 'sourceId');
  const path: PathEntry[] = [];
  for await (const record of ancestry(deps.repo, source)) {
    if (record === source && type === 'parent') continue;
    path.unshift({ parentId: record.id, parentName: record.name });
  }
  return path;
}
