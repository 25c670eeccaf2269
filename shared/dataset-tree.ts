import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { datasetErrors } from '#shared/errors';
import type { DatasetRecord, DatasetRepository, DatasetTreeRepository } from '#shared/repositories/datasets';

/**
 * Deepest level a record may sit on: a record at the root is on level 1, so at most 99 folders nest above
 * any record. Create and move refuse to go deeper (docs/knowledge-base-api.md, "Trees stay trees").
 */
export const MAX_TREE_LEVELS = 100;

/**
 * How long a move may hold its team's tree lock before another move may take it over. Longer than the
 * update function's timeout (10 s, infra/stack.ts; a test holds the two together), so a lock can only
 * expire once the invocation holding it is over.
 */
export const TREE_LOCK_TTL_MS = 15_000;
/**
 * How long a folder's delete may hold the tree lock: longer than the delete function's timeout (28 s,
 * infra/stack.ts; a test holds the two together), for the same reason.
 */
export const DELETE_TREE_LOCK_TTL_MS = 35_000;
/** How long a move waits for its team's tree lock before it answers 429 (below the function's timeout). */
export const TREE_LOCK_WAIT_MS = 5_000;
const TREE_LOCK_RETRY_MS = 50;

/** Reading one record is all most of these helpers need. */
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

/** What a walk up a tree reads of each record: knowledge bases and folders, or collections and their folders. */
export interface TreeNode {
  readonly id: string;
  readonly teamId: string;
  readonly parentId: string | null;
}

/**
 * Why a walk up the tree stopped: it reached the root; a parent no longer exists (a record created in a
 * folder while that folder was deleted); the next parent is one it already met (records damaged into a
 * loop); or it read its limit of levels.
 */
export type ClimbEnd = 'root' | 'missingParent' | 'loop' | 'tooDeep';

/**
 * `record` and its ancestors, nearest first, one GetItem per level, at most `limit` records. Never
 * throws on damaged data: `end` says where the walk stopped.
 */
export async function climb<R extends TreeNode = DatasetRecord>(
  repo: { get(teamId: string, id: string): Promise<R | undefined> },
  record: R,
  limit = MAX_TREE_LEVELS,
): Promise<{ chain: R[]; end: ClimbEnd }> {
  const chain = [record];
  const seen = new Set([record.id]);
  for (let current = record; current.parentId !== null; ) {
    if (seen.has(current.parentId)) return { chain, end: 'loop' };
    if (chain.length >= limit) return { chain, end: 'tooDeep' };
    const parent = await repo.get(record.teamId, current.parentId);
    if (!parent) return { chain, end: 'missingParent' };
    chain.push(parent);
    seen.add(parent.id);
    current = parent;
  }
  return { chain, end: 'root' };
}

/** The error a move answers when its record would end up inside its own subtree. */
export const movedIntoItself = () =>
  datasetErrors.invalidParams('parentId must not be the folder itself or one of its subfolders');

/**
 * The level of `parent` (1 at the root) after checking that a record may go under it: 400 when the
 * folders above it loop, when it is on the deepest level already, or (with `movingId`) when it is that
 * record or lies below it. A parent whose own parent is gone counts as a top level folder.
 */
export async function levelForChild(repo: DatasetReader, parent: DatasetRecord, movingId?: string): Promise<number> {
  const { chain, end } = await climb(repo, parent);
  if (movingId !== undefined && chain.some((r) => r.id === movingId)) throw movedIntoItself();
  if (end === 'loop') {
    throw datasetErrors.invalidParams(
      'parentId refers to a folder cut off from the root: the folders above it form a loop (move one of them to the root to repair it)',
    );
  }
  if (end === 'tooDeep' || chain.length >= MAX_TREE_LEVELS) {
    throw datasetErrors.invalidParams(
      `folders nest at most ${MAX_TREE_LEVELS} levels deep: nothing more fits under parentId ${parent.id}`,
    );
  }
  return chain.length;
}

/** Folders whose children are read at once while measuring a subtree. */
const SUBTREE_CONCURRENCY = 8;

/**
 * True when a record hangs more than `room` levels below `folder`. Reads the children of one level of
 * folders at a time (a few Queries on the by-parent index at once), and never more than `room` + 1 levels.
 */
export async function reachesBelow(
  repo: Pick<DatasetTreeRepository, 'children'>,
  folder: DatasetRecord,
  room: number,
): Promise<boolean> {
  const seen = new Set([folder.id]);
  let frontier = [folder.id];
  for (let depth = 1; frontier.length > 0; depth++) {
    const folders: string[] = [];
    let found = false;
    let next = 0;
    const worker = async () => {
      while (next < frontier.length) {
        const parentId = frontier[next++] as string;
        for await (const page of repo.children(folder.teamId, parentId)) {
          if (page.length > 0) found = true;
          for (const child of page) {
            // A loop below the folder (possible only in damaged data) ends the walk instead of repeating it.
            if (child.type === 'folder' && !seen.has(child.id)) {
              seen.add(child.id);
              folders.push(child.id);
            }
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SUBTREE_CONCURRENCY, frontier.length) }, worker));
    if (found && depth > room) return true;
    frontier = folders;
  }
  return false;
}

/** What taking a team's tree lock needs: the repository's lock calls and a clock. */
export interface TreeLockDeps {
  repo: Pick<DatasetTreeRepository, 'lockTree' | 'unlockTree'>;
  now: () => Date;
  /** Waits between two attempts to take the lock (a timer by default; tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `work` while holding the team's tree lock, so moves into folders and deletes of folders run one at a
 * time per team: each move's cycle check reads a tree no other move is changing, and a delete's walk meets
 * every record that will ever hang below the folder (a move into it waits, then finds its parent gone).
 * Waits up to TREE_LOCK_WAIT_MS for the lock, then answers 429; a lock older than its holder's `holdMs`
 * (TREE_LOCK_TTL_MS for a move: its holder is gone) is taken over.
 */
export async function withTreeLock<T>(
  deps: TreeLockDeps,
  teamId: string,
  work: () => Promise<T>,
  options: { holdMs?: number; busy?: string } = {},
): Promise<T> {
  const sleep = deps.sleep ?? ((ms: number) => delay(ms));
  const owner = randomUUID();
  const giveUpAt = deps.now().getTime() + TREE_LOCK_WAIT_MS;
  const holdMs = options.holdMs ?? TREE_LOCK_TTL_MS;
  for (;;) {
    const now = deps.now().getTime();
    if (await deps.repo.lockTree(teamId, owner, now, now + holdMs)) break;
    if (now >= giveUpAt) {
      throw datasetErrors.tooManyRequests(
        options.busy ?? 'another move or delete in this team is still running; send the update again',
      );
    }
    await sleep(TREE_LOCK_RETRY_MS / 2 + Math.random() * TREE_LOCK_RETRY_MS);
  }
  try {
    return await work();
  } finally {
    // A lock that could not be released expires after TREE_LOCK_TTL_MS; the move's own answer stands.
    await deps.repo.unlockTree(teamId, owner).catch(() => undefined);
  }
}
