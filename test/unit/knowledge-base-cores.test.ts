import { describe, expect, it } from 'vitest';
import { datasetPaths } from '#functions/dataset-paths/dataset-paths';
import { pathsQuerySchema } from '#functions/dataset-paths/schema';
import { deleteDataset } from '#functions/delete-dataset/delete-dataset';
import { updateDatasetBodySchema } from '#functions/update-dataset/schema';
import { updateDataset } from '#functions/update-dataset/update-dataset';
import { ancestry } from '#shared/dataset-tree';
import { DatasetApiError } from '#shared/errors';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import type { DatasetRecord } from '#shared/repositories/datasets';

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

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('ancestry', () => {
  it('walks up one read per level and stops at a parent that no longer exists', async () => {
    const repo = fakeRepo([folder(2, 1), folder(3, 2)]);

    const chain = await collect(ancestry(repo, folder(3, 2)));

    expect(chain.map((r) => r.name)).toEqual(['f3', 'f2']);
    expect(repo.reads).toBe(2);
  });

  it('fails instead of looping over records whose parents form a loop', async () => {
    const repo = fakeRepo([folder(1, 2), folder(2, 1)]);

    await expect(collect(ancestry(repo, folder(1, 2)))).rejects.toThrow(/loop/);
  });
});

describe('datasetPaths', () => {
  it('answers a generic (unexposed) error, never a hang, for damaged records whose parents loop', async () => {
    const repo = fakeRepo([folder(1, 2), folder(2, 1)]);

    const error = await datasetPaths({ query: pathsQuerySchema.parse({ sourceId: id(1) }), caller }, { repo }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(DatasetApiError);
  });
});

describe('updateDataset', () => {
  it('answers 404 when the record is deleted between its read and the write', async () => {
    const repo = { ...fakeRepo([folder(1, null)]), update: async () => false };

    const error = await updateDataset(
      { body: updateDatasetBodySchema.parse({ id: id(1), name: 'renamed' }), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, modelPolicy: 'strict', now: () => new Date(0) },
    ).catch((e: unknown) => e);

    expect(error).toMatchObject({ httpStatus: 404, code: 501002 });
  });

  it('writes the current parent again, with the new updateTime, when the body does not move the record', async () => {
    const writes: unknown[] = [];
    const repo = {
      ...fakeRepo([folder(1, null), folder(2, 1)]),
      update: async (_t: string, _i: string, changes: unknown) => writes.push(changes) > 0,
    };

    await updateDataset(
      { body: updateDatasetBodySchema.parse({ id: id(2), intro: 'x', parentId: id(1).toUpperCase() }), caller },
      { repo, catalog: BUILT_IN_MODEL_CATALOG, modelPolicy: 'strict', now: () => new Date(0) },
    );

    expect(writes).toEqual([
      { parentId: id(1), updateTime: '1970-01-01T00:00:00.000Z', name: undefined, intro: 'x', avatar: undefined },
    ]);
  });
});

describe('deleteDataset', () => {
  it('deletes each folder once and ends when damaged records hold a loop of folders', async () => {
    const records = [folder(1, 3), folder(2, 1), folder(3, 2)];
    const deleted: string[][] = [];
    const repo = {
      ...fakeRepo(records),
      async *children(_teamId: string, parentId: string | null) {
        yield records.filter((r) => r.parentId === parentId);
      },
      deleteMany: async (_teamId: string, ids: readonly string[]) => {
        if (ids.length > 0) deleted.push([...ids]);
      },
    };

    await deleteDataset({ query: { id: id(1) }, caller }, { repo });

    expect(deleted).toEqual([[id(3)], [id(2)], [id(1)]]);
  });
});
