import { DELETE_TREE_LOCK_TTL_MS, requireRecord, type TreeLockDeps, withTreeLock } from '#shared/dataset-tree';
import type { CallerContext } from '#shared/http';
import type { DatasetRecord, DatasetTreeRepository } from '#shared/repositories/datasets';
import type { IdQuery } from '#shared/schemas/dataset-fields';

export interface DeleteDatasetDeps extends TreeLockDeps {
  repo: Pick<DatasetTreeRepository, 'get' | 'children' | 'deleteMany' | 'lockTree' | 'unlockTree'>;
  /**
   * Queues the delete of what knowledge bases hold (collections, data, vectors, files: shared/kb/content-delete.ts),
   * called before their records go, so a repeat after a failure still finds them and queues it again; the content is
   * unreachable once the records are gone, and removed by the training function afterwards.
   */
  purgeContent?: (teamId: string, datasetIds: readonly string[]) => Promise<void>;
}

/** Folders whose children are read at once while walking the subtree: a wide tree's walk stays short. */
const WALK_CONCURRENCY = 8;

/**
 * Deletes one of the caller's records; for a folder, its whole subtree; answers how many records it deleted. Safe to repeat after any
 * failure: datasets (which never have children) go as soon as they are found, folders only after
 * everything below them, deepest level first. Whatever a failure leaves is therefore still a subtree
 * hanging from the folder, and the next call finds and finishes it.
 */
export async function deleteDataset(
  input: { query: IdQuery; caller: CallerContext },
  deps: DeleteDatasetDeps,
): Promise<{ deleted: number }> {
  const { teamId } = input.caller;
  const record = await requireRecord(deps.repo, teamId, input.query.id);
  // A dataset has no subtree: nothing can be moved into it.
  if (record.type !== 'folder') return deleteTree(deps, record);
  // A folder's walk and deletes hold the team's tree lock, the one moves into folders take: a folder moved into
  // this subtree is moved before the walk (and deleted with it) or after the delete (and finds its parent gone).
  return withTreeLock(deps, teamId, async () => deleteTree(deps, await requireRecord(deps.repo, teamId, record.id)), {
    holdMs: DELETE_TREE_LOCK_TTL_MS,
    busy: 'a move or another delete in this team is still running; send the delete again',
  });
}

async function deleteTree(deps: DeleteDatasetDeps, record: DatasetRecord): Promise<{ deleted: number }> {
  const { teamId } = record;
  // What this call deleted (after a failed call, a repeat counts only what was left).
  let deleted = 0;
  // Folder ids by depth: levels[0] is the record itself.
  const levels: string[][] = [[record.id]];
  if (record.type === 'folder') {
    // Folders already met: two moves racing each other can leave folders in a loop, which must end the walk.
    const seen = new Set([record.id]);
    for (let frontier = [record.id]; frontier.length > 0; ) {
      const { folders, datasets } = await childrenOf(deps, teamId, frontier);
      await deps.purgeContent?.(teamId, datasets);
      await deps.repo.deleteMany(teamId, datasets);
      deleted += datasets.length;
      const fresh = folders.filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      if (fresh.length > 0) levels.push(fresh);
      frontier = fresh;
    }
  }
  if (record.type !== 'folder') await deps.purgeContent?.(teamId, [record.id]);
  for (const level of levels.reverse()) {
    await deps.repo.deleteMany(teamId, level);
    deleted += level.length;
  }
  return { deleted };
}

/** The children of every folder in `parents`, split into folders and datasets; a few folders at a time. */
async function childrenOf(
  deps: DeleteDatasetDeps,
  teamId: string,
  parents: readonly string[],
): Promise<{ folders: string[]; datasets: string[] }> {
  const folders: string[] = [];
  const datasets: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < parents.length) {
      const parent = parents[next++] as string;
      for await (const page of deps.repo.children(teamId, parent)) {
        for (const child of page) (child.type === 'folder' ? folders : datasets).push(child.id);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WALK_CONCURRENCY, parents.length) }, worker));
  return { folders, datasets };
}
