import { climb, requireRecord } from '#shared/dataset-tree';
import type { CallerContext } from '#shared/http';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { PathEntry } from '#shared/schemas/datasets';
import type { PathsQuery } from './schema.ts';

export interface DatasetPathsDeps {
  repo: Pick<DatasetRepository, 'get'>;
}

/**
 * The folders from the root down to a record's parent (`type=parent`) or to the record itself
 * (`type=current`), one GetItem per level. On damaged data the path starts where the tree is whole: below
 * a parent that no longer exists, below the first folder met twice (a loop), or at the 100th level up.
 */
export async function datasetPaths(
  input: { query: PathsQuery; caller: CallerContext },
  deps: DatasetPathsDeps,
): Promise<PathEntry[]> {
  const { sourceId, type } = input.query;
  if (!sourceId) return [];
  const source = await requireRecord(deps.repo, input.caller.teamId, sourceId, 'sourceId');
  const { chain } = await climb(deps.repo, source);
  const records = type === 'parent' ? chain.slice(1) : chain;
  return records.reverse().map((record) => ({ parentId: record.id, parentName: record.name }));
}
