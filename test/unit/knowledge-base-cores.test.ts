import { describe, expect, it } from 'vitest';
import { datasetPaths } from '#functions/dataset-paths/dataset-paths';
import { pathsQuerySchema } from '#functions/dataset-paths/schema';
import { type DeleteDatasetDeps, deleteDataset } from '#functions/delete-dataset/delete-dataset';
import { updateDatasetBodySchema } from '#functions/update-dataset/schema';
import { type UpdateDatasetDeps, updateDataset } from '#functions/update-dataset/update-dataset';
import {
  climb,
  DELETE_TREE_LOCK_TTL_MS,
  MAX_TREE_LEVELS,
  TREE_LOCK_TTL_MS,
  TREE_LOCK_WAIT_MS,
} from '#shared/dataset-tree';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import type { DatasetChanges, DatasetRecord } from '#shared/repositories/datasets';

const caller = { scope: 'dataset' as const, teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };
const id = (n: number) => n.toString(16).padStart(24, '0');

function folder(n: number, parent: number | null): DatasetRecord {
  return {
    id: id(n),
    teamId: 'team-a',
    tmbId: 'member-a',
    parentId: parent === null ? null : id(parent),
    type: 'folder',
    name: `f${n}`,
    intro: '',
    avatar: '/imgs/files/folder.svg',
    inheritPermission: true,
    createTime: '2026-01-01T00:00:00.000Z',
    updateTime: '2026-01-01T00:00:00.000Z',
  };
}

/** A repository over a fixed set of records (get only), counting reads. */
function fakeRepo(records: DatasetRecord[]) {
  const byId = new Map(records.map((r) => [r.id, r]));
  const repo = {
    reads: 0,
    get: async (teamId: string, key: string) => {
      repo.reads++;
      const r = byId.get(key);
      return r && r.teamId === teamId ? r : undefined;
    },
  };
  return repo;
}

/** An in-memory team tree behind every call update-dataset makes, with the repository's write condition. */
function treeRepo(records: DatasetRecord[]) {
  const byId = new Map(records.map((r) => [r.id, { ...r }]));
  const repo = {
    ...fakeRepo([]),
    byId,
    lock: undefined as { owner: string; expiresAt: number } | undefined,
    get: async (_teamId: string, key: string) => {
      const r = byId.get(key);
      return r && { ...r };
    },
    async *children(_teamId: string, parentId: string | null) {
      yield [...byId.values()].filter((r) => r.parentId === parentId);
    },
    update: async (_teamId: string, key: string, changes: DatasetChanges, expectedParentId: string | null) => {
      const r = byId.get(key);
      if (!r || r.parentId !== expectedParentId) return false;
      for (const [field, value] of Object.entries(changes))
        if (value !== undefined) Object.assign(r, { [field]: value });
      return true;
    },
    lockTree: async (_teamId: string, owner: string, now: number, expiresAt: number) => {
      if (repo.lock && repo.lock.expiresAt > now) return false;
      repo.lock = { owner, expiresAt };
      return true;
    },
    unlockTree: async (_teamId: string, owner: string) => {
      if (repo.lock?.owner === owner) repo.lock = { owner, expiresAt: 0 };
    },
  };
  return repo;
}

/** A chain of `levels` folders, ids 1..levels, each inside the one before. */
const chainOf = (levels: number) => Array.from({ length: levels }, (_, i) => folder(i + 1, i === 0 ? null : i));

const deps = (repo: ReturnType<typeof treeRepo>, extra: Partial<UpdateDatasetDeps> = {}): UpdateDatasetDeps => ({
  repo,
  catalog: BUILT_IN_MODEL_CATALOG,
  modelPolicy: 'strict',
  now: () => new Date(0),
  ...extra,
});
const update = (body: Record<string, unknown>, d: UpdateDatasetDeps) =>
  updateDataset({ body: updateDatasetBodySchema.parse(body), caller }, d).catch((e: unknown) => e);

describe('climb', () => {
  it('walks up one read per level and stops at a parent that no longer exists', async () => {
    const repo = fakeRepo([folder(2, 1), folder(3, 2)]);

    const { chain, end } = await climb(repo, folder(3, 2));

    expect(chain.map((r) => r.name)).toEqual(['f3', 'f2']);
    expect(end).toBe('missingParent');
    expect(repo.reads).toBe(2);
  });

  it('stops before the first folder it meets twice when damaged records loop', async () => {
    const repo = fakeRepo([folder(1, 2), folder(2, 1)]);

    const { chain, end } = await climb(repo, folder(1, 2));

    expect(chain.map((r) => r.name)).toEqual(['f1', 'f2']);
    expect(end).toBe('loop');
  });

  it(`reads at most ${MAX_TREE_LEVELS} levels of a deeper tree`, async () => {
    const records = chainOf(1001);
    const repo = fakeRepo(records);

    const { chain, end } = await climb(repo, records[1000] as DatasetRecord);

    expect(chain).toHaveLength(MAX_TREE_LEVELS);
    expect(end).toBe('tooDeep');
    expect(repo.reads).toBe(MAX_TREE_LEVELS - 1);
  });
});

describe('datasetPaths on damaged data', () => {
  const paths = (repo: ReturnType<typeof fakeRepo>, n: number, type = 'current') =>
    datasetPaths({ query: pathsQuerySchema.parse({ sourceId: id(n), type }), caller }, { repo });

  it('answers the path up to the first folder met twice when the folders above loop', async () => {
    const repo = fakeRepo([folder(1, 2), folder(2, 1), folder(3, 1)]);

    expect(await paths(repo, 3)).toEqual([
      { parentId: id(2), parentName: 'f2' },
      { parentId: id(1), parentName: 'f1' },
      { parentId: id(3), parentName: 'f3' },
    ]);
  });

  it('answers the path below a parent that no longer exists', async () => {
    const repo = fakeRepo([folder(2, 1), folder(3, 2)]);

    expect(await paths(repo, 3, 'parent')).toEqual([{ parentId: id(2), parentName: 'f2' }]);
  });

  it(`answers the nearest ${MAX_TREE_LEVELS} levels of a record nested deeper before the limit existed`, async () => {
    const repo = fakeRepo(chainOf(1001));

    const path = await paths(repo, 1001);

    expect(path).toHaveLength(MAX_TREE_LEVELS);
    expect(path.at(-1)).toEqual({ parentId: id(1001), parentName: 'f1001' });
    expect(path[0]).toEqual({ parentId: id(902), parentName: 'f902' });
  });
});

describe('updateDataset', () => {
  it('answers 404 when the record is deleted between its read and the write', async () => {
    const repo = treeRepo([folder(1, null)]);
    repo.update = async () => {
      repo.byId.delete(id(1));
      return false;
    };

    expect(await update({ id: id(1), name: 'renamed' }, deps(repo))).toMatchObject({ httpStatus: 404, code: 501002 });
  });

  it('answers 429 and leaves the move alone when another request moved the record between its read and the write', async () => {
    const repo = treeRepo([folder(1, null), folder(2, null), folder(3, null)]);
    const write = repo.update;
    repo.update = async (...args) => {
      // A move of the record to folder 2, landing between the rename's read and its write.
      await write('team-a', id(3), { parentId: id(2), updateTime: 'x' }, null);
      repo.update = write;
      return write(...args);
    };

    const error = await update({ id: id(3), name: 'renamed' }, deps(repo));

    expect(error).toMatchObject({ httpStatus: 429, code: 429, statusText: 'tooManyRequests' });
    expect(repo.byId.get(id(3))).toMatchObject({ parentId: id(2), name: 'f3' });
  });

  it('writes the current parent again, with the new updateTime, when the body does not move the record', async () => {
    const writes: unknown[] = [];
    const repo = treeRepo([folder(1, null), folder(2, 1)]);
    repo.update = async (_t, _i, changes, expected) => writes.push({ changes, expected }) > 0;

    await update({ id: id(2), intro: 'x', parentId: id(1).toUpperCase() }, deps(repo));

    expect(writes).toEqual([
      {
        changes: {
          parentId: id(1),
          updateTime: '1970-01-01T00:00:00.000Z',
          name: undefined,
          intro: 'x',
          avatar: undefined,
        },
        expected: id(1),
      },
    ]);
    expect(repo.lock).toBeUndefined();
  });

  it('moves a folder into another under the tree lock, and releases it', async () => {
    const repo = treeRepo([folder(1, null), folder(2, null)]);

    expect(await update({ id: id(2), parentId: id(1) }, deps(repo))).toBeNull();

    expect(repo.byId.get(id(2))?.parentId).toBe(id(1));
    expect(repo.lock).toMatchObject({ expiresAt: 0 });
  });

  it('waits for the tree lock another move holds, then answers 429 without writing', async () => {
    const repo = treeRepo([folder(1, null), folder(2, null)]);
    repo.lock = { owner: 'someone else', expiresAt: TREE_LOCK_TTL_MS };
    let clock = 0;
    const waits: number[] = [];
    const d = deps(repo, {
      now: () => new Date(clock),
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });

    const error = await update({ id: id(2), parentId: id(1) }, d);

    expect(error).toMatchObject({ httpStatus: 429, code: 429 });
    expect(clock).toBeGreaterThanOrEqual(TREE_LOCK_WAIT_MS);
    expect(waits.length).toBeGreaterThan(1);
    expect(repo.byId.get(id(2))?.parentId).toBeNull();
    expect(repo.lock).toEqual({ owner: 'someone else', expiresAt: TREE_LOCK_TTL_MS });
  });

  it('takes over a tree lock whose holder let it expire', async () => {
    const repo = treeRepo([folder(1, null), folder(2, null)]);
    repo.lock = { owner: 'gone', expiresAt: 5 };

    expect(await update({ id: id(2), parentId: id(1) }, deps(repo, { now: () => new Date(5) }))).toBeNull();

    expect(repo.byId.get(id(2))?.parentId).toBe(id(1));
  });

  it('releases the tree lock when the move is refused', async () => {
    const repo = treeRepo([folder(1, null), folder(2, 1)]);

    expect(await update({ id: id(1), parentId: id(2) }, deps(repo))).toMatchObject({ httpStatus: 400, code: 507000 });

    expect(repo.lock).toMatchObject({ expiresAt: 0 });
  });

  it('undoes its own move and answers 400 when a move that skipped the lock closed a loop meanwhile', async () => {
    const repo = treeRepo([folder(1, null), folder(2, null)]);
    const write = repo.update;
    repo.update = async (...args) => {
      const written = await write(...args);
      // Folder 1 moves under 2 without the lock, right after 2 was written under 1.
      await write('team-a', id(1), { parentId: id(2), updateTime: 'x' }, null);
      repo.update = write;
      return written;
    };

    const error = await update({ id: id(2), parentId: id(1), name: 'renamed' }, deps(repo));

    expect(error).toMatchObject({ httpStatus: 400, code: 507000, message: expect.stringMatching(/subfolders/) });
    expect(repo.byId.get(id(2))).toMatchObject({ parentId: null, name: 'f2', updateTime: folder(2, null).updateTime });
    expect(repo.byId.get(id(1))?.parentId).toBe(id(2));
  });

  it(`refuses a move that would take the folder's subtree below level ${MAX_TREE_LEVELS}`, async () => {
    // A chain of 60 folders, and a separate chain of 41 (its top folder 1001) to move under its bottom.
    const deep = chainOf(60);
    const other = Array.from({ length: 41 }, (_, i) => folder(1001 + i, i === 0 ? null : 1000 + i));
    const repo = treeRepo([...deep, ...other]);

    const tooDeep = await update({ id: id(1001), parentId: id(60) }, deps(repo));
    const fits = await update({ id: id(1002), parentId: id(60) }, deps(repo));

    expect(tooDeep).toMatchObject({ httpStatus: 400, code: 507000, message: expect.stringMatching(/100 levels/) });
    expect(repo.byId.get(id(1001))?.parentId).toBeNull();
    expect(fits).toBeNull();
    expect(repo.byId.get(id(1002))?.parentId).toBe(id(60));
  });

  it('refuses a move into a folder whose ancestors loop, and lets a folder of the loop move out to repair it', async () => {
    const repo = treeRepo([folder(1, 2), folder(2, 1), folder(3, null), folder(4, null)]);

    const into = await update({ id: id(4), parentId: id(1) }, deps(repo));
    const repair = await update({ id: id(1), parentId: id(3) }, deps(repo));

    expect(into).toMatchObject({ httpStatus: 400, code: 507000, message: expect.stringMatching(/loop/) });
    expect(repair).toBeNull();
    expect(repo.byId.get(id(1))?.parentId).toBe(id(3));
  });
});

describe('deleteDataset', () => {
  /** A tree behind every call delete-dataset makes, recording deletes and whether the tree lock was held. */
  function deleteRepo(records: DatasetRecord[]) {
    const tree = treeRepo(records);
    const deleted: { ids: string[]; locked: boolean }[] = [];
    const repo = {
      ...tree,
      deleted,
      deleteMany: async (_teamId: string, ids: readonly string[]) => {
        if (ids.length === 0) return;
        deleted.push({ ids: [...ids], locked: (tree.lock?.expiresAt ?? 0) > 0 });
        for (const key of ids) tree.byId.delete(key);
      },
    };
    return { repo, tree };
  }
  const deps = (
    repo: ReturnType<typeof deleteRepo>['repo'],
    more: Partial<DeleteDatasetDeps> = {},
  ): DeleteDatasetDeps => ({
    repo,
    now: () => new Date(0),
    ...more,
  });

  it('deletes each folder once and ends when damaged records hold a loop of folders', async () => {
    const { repo } = deleteRepo([folder(1, 3), folder(2, 1), folder(3, 2)]);

    await deleteDataset({ query: { id: id(1) }, caller }, deps(repo));

    expect(repo.deleted.map((d) => d.ids)).toEqual([[id(3)], [id(2)], [id(1)]]);
  });

  it("walks and deletes a folder's subtree holding the team's tree lock, with a hold longer than the function runs, and releases it", async () => {
    const { repo, tree } = deleteRepo([folder(1, null), folder(2, 1)]);
    const holds: number[] = [];
    const lockTree = tree.lockTree;
    repo.lockTree = async (teamId, owner, now, expiresAt) => {
      holds.push(expiresAt - now);
      return lockTree(teamId, owner, now, expiresAt);
    };

    expect(await deleteDataset({ query: { id: id(1) }, caller }, deps(repo))).toEqual({ deleted: 2 });

    expect(repo.deleted).toEqual([
      { ids: [id(2)], locked: true },
      { ids: [id(1)], locked: true },
    ]);
    expect(holds).toEqual([DELETE_TREE_LOCK_TTL_MS]);
    expect(tree.lock).toMatchObject({ expiresAt: 0 });
  });

  it('waits for the tree lock a move holds, then answers 429 without deleting anything', async () => {
    const { repo, tree } = deleteRepo([folder(1, null), folder(2, 1)]);
    tree.lock = { owner: 'a move', expiresAt: TREE_LOCK_TTL_MS };
    let clock = 0;
    const sleep = async (ms: number) => {
      clock += ms;
    };

    const error = await deleteDataset(
      { query: { id: id(1) }, caller },
      deps(repo, { now: () => new Date(clock), sleep }),
    ).catch((e: unknown) => e);

    expect(error).toMatchObject({ httpStatus: 429, code: 429 });
    expect(repo.deleted).toEqual([]);
    expect(tree.byId.size).toBe(2);
  });

  it('deletes a dataset without taking the tree lock: nothing can be moved into it', async () => {
    const { repo, tree } = deleteRepo([folder(1, null), { ...folder(2, 1), type: 'dataset' }]);
    tree.lock = { owner: 'a move', expiresAt: TREE_LOCK_TTL_MS };

    expect(await deleteDataset({ query: { id: id(2) }, caller }, deps(repo))).toEqual({ deleted: 1 });
  });
});
