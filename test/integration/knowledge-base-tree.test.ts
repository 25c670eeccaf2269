import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_TREE_LEVELS } from '#shared/dataset-tree';
import type { LocalAccessToken } from '#shared/local-credentials';
import type { DatasetRecord } from '#shared/repositories/datasets';
import { TEST_ENGINE_NAME } from '#test/support/dynamo-engine';
import { useTestServer } from '#test/support/local-server';
import { type ApiReply, addAccessToken, expectError, teamRecords } from './create-dataset.helpers.ts';
import { kbClient, seedRecord, seedRecords } from './knowledge-base.helpers.ts';

// Through `npm start`'s server, on dynalite or (npm run test:dynamodb-local) on AWS's DynamoDB Local.
const server = useTestServer();

let team: LocalAccessToken;
let api: ReturnType<typeof kbClient>;

beforeEach(async () => {
  team = await addAccessToken(server);
  api = kbClient(server, `Bearer ${team.token}`);
});

/** Every record's chain of parents in the team, as stored: the records whose chain loops. */
async function loopingRecords(): Promise<string[]> {
  const records = await teamRecords(server.documents, team.teamId);
  const byId = new Map(records.map((r) => [r.id, r]));
  return records
    .filter((record) => {
      const seen = new Set<string>();
      for (let at: DatasetRecord | undefined = record; at?.parentId; at = byId.get(at.parentId)) {
        if (seen.has(at.id)) return true;
        seen.add(at.id);
      }
      return false;
    })
    .map((r) => r.id);
}

/** `levels` folders seeded straight into the table, each inside the one before: the first is at the root. */
async function seedChain(levels: number, name = 'level'): Promise<DatasetRecord[]> {
  const chain: DatasetRecord[] = [];
  for (let i = 0; i < levels; i++) {
    chain.push(seedRecord(team.teamId, chain.at(-1)?.id ?? null, 'folder', `${name} ${i + 1}`));
  }
  await seedRecords(server.documents, chain, server.tables.datasets);
  return chain;
}

const okStatuses = (replies: ApiReply[]) => replies.map((r) => r.status).sort();
const at = (chain: DatasetRecord[], level: number) => chain[level - 1] as DatasetRecord;

describe(`concurrent moves (${TEST_ENGINE_NAME})`, () => {
  it('never lets two folders move into each other: of X-under-Y and Y-under-X sent together, one succeeds and one is refused, 25 times over', async () => {
    const outcomes: number[][] = [];
    for (let round = 0; round < 25; round++) {
      const x = await api.make({ name: `X${round}`, type: 'folder' });
      const y = await api.make({ name: `Y${round}`, type: 'folder' });

      const replies = await Promise.all([api.update({ id: x, parentId: y }), api.update({ id: y, parentId: x })]);

      outcomes.push(okStatuses(replies));
      // The second is refused as a cycle; on a machine slow enough to hold the lock 5 s it would be a 429 instead.
      const refused = replies.find((r) => r.status !== 200);
      if (refused) expectError(refused, refused.status === 429 ? 429 : 400, refused.status === 429 ? 429 : 507000);
    }

    expect(outcomes.filter(([first, second]) => first !== 200 || second === 200)).toEqual([]);
    expect(await loopingRecords()).toEqual([]);
  }, 120_000);

  it('keeps a ring of folders a tree when each one is moved under the next at the same time', async () => {
    for (let round = 0; round < 5; round++) {
      const ring = await Promise.all(Array.from({ length: 4 }, (_, i) => api.make({ name: `R${i}`, type: 'folder' })));

      const replies = await Promise.all(ring.map((id, i) => api.update({ id, parentId: ring[(i + 1) % ring.length] })));

      // Three of the four moves fit in a tree; the fourth would close the ring (or, waiting too long, a 429).
      const statuses = okStatuses(replies);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect([400, 429]).toContain(statuses[3]);
    }
    expect(await loopingRecords()).toEqual([]);
  }, 120_000);

  it('keeps a rename sent with a move from undoing the move', async () => {
    const folder = await api.make({ name: 'target', type: 'folder' });
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => api.make({ name: `moved ${i}` })));

    const pairs = await Promise.all(
      ids.map((id) => Promise.all([api.update({ id, parentId: folder }), api.update({ id, name: 'renamed' })])),
    );

    // A rename that read the record before the move and wrote after it answers 429 instead of writing the old parent back.
    const stored = await teamRecords(server.documents, team.teamId);
    for (const [i, [move, rename]] of pairs.entries()) {
      expect([200, 429]).toContain(rename.status);
      // A move answers 429 only after waiting 5 s for the lock (a heavily loaded machine); then it wrote nothing.
      expect([200, 429]).toContain(move.status);
      expect(stored.find((r) => r.id === ids[i])?.parentId).toBe(move.status === 200 ? folder : null);
    }
  }, 60_000);
});

describe(`deletes racing moves (${TEST_ENGINE_NAME})`, () => {
  it('never leaves a folder orphaned: one moved into a folder being deleted is deleted with it, or the move fails, 20 times over', async () => {
    const outcomes: { move: number; remove: number }[] = [];
    for (let round = 0; round < 20; round++) {
      // A folder with a subfolder (the move's target) and a few records, so the delete has a walk to do.
      const doomed = await api.make({ name: `doomed ${round}`, type: 'folder' });
      const inner = await api.make({ name: `inner ${round}`, type: 'folder', parentId: doomed });
      await Promise.all(Array.from({ length: 3 }, (_, i) => api.make({ name: `d${i}`, parentId: inner })));
      const moved = await api.make({ name: `moved ${round}`, type: 'folder' });
      await api.make({ name: 'below moved', parentId: moved });

      const [move, remove] = await Promise.all([
        api.update({ id: moved, parentId: inner }),
        api.delete({ id: doomed }),
      ]);

      outcomes.push({ move: move.status, remove: remove.status });
      const records = await teamRecords(server.documents, team.teamId);
      const ids = new Set(records.map((r) => r.id));
      // No record's parent is gone: the subtree is deleted whole, and `moved` is either inside it or at the root.
      expect(records.filter((r) => r.parentId !== null && !ids.has(r.parentId))).toEqual([]);
      expect(remove.status).toBe(200);
      if (ids.has(moved)) {
        expect(records.find((r) => r.id === moved)?.parentId).toBeNull();
        expect(move.status).not.toBe(200);
      }
    }
    // Each move either won the lock first (200, then deleted with the folder) or found its parent gone (404);
    // on a machine slow enough to hold the lock 5 s, a 429.
    expect(outcomes.filter(({ move }) => ![200, 404, 429].includes(move))).toEqual([]);
  }, 180_000);
});

describe(`folder depth (${TEST_ENGINE_NAME})`, () => {
  it(`creates a record on level ${MAX_TREE_LEVELS} and refuses one on level ${MAX_TREE_LEVELS + 1} with 400/507000`, async () => {
    const chain = await seedChain(MAX_TREE_LEVELS - 1);

    const deepest = await api.create({ name: 'on the last level', type: 'folder', parentId: at(chain, 99).id });
    const below = await api.create({ name: 'one too deep', parentId: deepest.body.data as string });

    expect(deepest.status).toBe(200);
    expectError(below, 400, 507000);
    expect(below.body.message).toMatch(/at most 100 levels/);
    const paths = await api.paths({ sourceId: deepest.body.data as string, type: 'current' });
    expect(paths.status).toBe(200);
    expect(paths.body.data).toHaveLength(MAX_TREE_LEVELS);
  }, 60_000);

  it(`moves a dataset to level ${MAX_TREE_LEVELS} and refuses level ${MAX_TREE_LEVELS + 1}, changing nothing`, async () => {
    const chain = await seedChain(MAX_TREE_LEVELS);
    const dataset = await api.make({ name: 'moving' });

    const refused = await api.update({ id: dataset, parentId: at(chain, 100).id });
    const moved = await api.update({ id: dataset, parentId: at(chain, 99).id });

    expectError(refused, 400, 507000);
    expect(moved.status).toBe(200);
    const stored = await teamRecords(server.documents, team.teamId);
    expect(stored.find((r) => r.id === dataset)?.parentId).toBe(at(chain, 99).id);
  }, 60_000);

  it('refuses to move a folder whose subtree would then reach below the last level', async () => {
    const deep = await seedChain(60, 'deep');
    const other = await seedChain(41, 'other');

    const refused = await api.update({ id: at(other, 1).id, parentId: at(deep, 60).id });
    const fits = await api.update({ id: at(other, 2).id, parentId: at(deep, 60).id });

    expectError(refused, 400, 507000);
    expect(refused.body.message).toMatch(/subtree/);
    expect(fits.status).toBe(200);
  }, 60_000);
});

describe(`damaged trees answer, never 500 (${TEST_ENGINE_NAME})`, () => {
  it('answers paths below a loop of folders, refuses moves into it, and repairs it by moving one folder out', async () => {
    const x = seedRecord(team.teamId, null, 'folder', 'X');
    const y = seedRecord(team.teamId, x.id, 'folder', 'Y');
    const inX = seedRecord(team.teamId, x.id, 'dataset', 'in X');
    // X under Y and Y under X: what two racing moves stored before moves took the tree lock.
    await seedRecords(server.documents, [{ ...x, parentId: y.id }, y, inX], server.tables.datasets);
    const dataset = await api.make({ name: 'outside' });

    const paths = await api.paths({ sourceId: inX.id, type: 'current' });
    const moveInto = await api.update({ id: dataset, parentId: x.id });
    const createInto = await api.create({ name: 'new', parentId: y.id });
    const repair = await api.update({ id: x.id, parentId: null });

    expect(paths.status).toBe(200);
    expect(paths.body.data).toEqual([
      { parentId: y.id, parentName: 'Y' },
      { parentId: x.id, parentName: 'X' },
      { parentId: inX.id, parentName: 'in X' },
    ]);
    expectError(moveInto, 400, 507000);
    expect(moveInto.body.message).toMatch(/loop/);
    expectError(createInto, 400, 507000);
    expect(repair.status).toBe(200);
    expect(await loopingRecords()).toEqual([]);
  });

  it('answers the path below a parent that no longer exists', async () => {
    const gone = seedRecord(team.teamId, null, 'folder', 'gone');
    const orphan = seedRecord(team.teamId, gone.id, 'folder', 'orphan');
    const child = seedRecord(team.teamId, orphan.id, 'dataset', 'child');
    await seedRecords(server.documents, [orphan, child], server.tables.datasets);

    const paths = await api.paths({ sourceId: child.id });

    expect(paths.status).toBe(200);
    expect(paths.body.data).toEqual([{ parentId: orphan.id, parentName: 'orphan' }]);
  });

  it('answers paths and refuses moves clearly at 1,001 nested folders stored before the limit', async () => {
    const chain = await seedChain(1001);
    const dataset = await api.make({ name: 'moving' });

    const paths = await api.paths({ sourceId: at(chain, 1001).id, type: 'current' });
    const move = await api.update({ id: dataset, parentId: at(chain, 1001).id });

    expect(paths.status).toBe(200);
    expect(paths.body.data).toHaveLength(MAX_TREE_LEVELS);
    expectError(move, 400, 507000);
  }, 60_000);
});
