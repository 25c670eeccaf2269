import { datasetErrors } from '#shared/errors';
import type { DatasetRecord, DatasetRepository } from '#shared/repositories/datasets';

/**
 * Deepest folder nesting a walk up the tree follows. Nothing creates deeper trees in practice; the
 * bound only stops a walk over records damaged into a loop.
 */
export const MAX_TREE_DEPTH = 1_000;

/** Reading one record is all these helpers need. */
export type DatasetReader = Pick<DatasetRepository, 'get'>;

/** The caller's record with this id, or the API's 404 (the same for another team's id: never reveal which). */
export async function requireRecord(repo: DatasetReader, teamId: string, id: string, field = 'id') {
  const record = await repo.get(teamId, id);
  if (!record) throw datasetErrors.unExistDataset(`${field} does not refer to an existing dataset or folder`);
  return record;
}

/** The caller's folder `parentId` may name: absent is 404, not a folder 400. */
export async function requireParentFolder(
  repo: DatasetReader,
  teamId: string,
  parentId: string,
): Promise<DatasetRecord> {
  const parent = await repo.get(teamId, parentId);
  if (!parent) throw datasetErrors.unExistDataset('parentId does not refer to an existing folder');
  if (parent.type !== 'folder') throw datasetErrors.invalidParams('parentId must refer to a folder');
  return parent;
}

/**
 * `record` and its ancestors, nearest first, one GetItem per level. Stops at the root or at a parent
 * that no longer exists; a loop or a tree deeper than MAX_TREE_DEPTH is an internal error.
 */
export async function* ancestry(repo: DatasetReader, record: DatasetRecord): AsyncIterable<DatasetRecord> {
  const seen = new Set<string>();
  let current: DatasetRecord | undefined = record;
  while (current) {
    if (seen.has(current.id) || seen.size >= MAX_TREE_DEPTH) {
      throw new Error(`the folders above ${record.id} form a loop or are nested too deep`);
    }
    seen.add(current.id);
    yield current;
    current = current.parentId === null ? undefined : await repo.get(record.teamId, current.parentId);
  }
}
