import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '#shared/repositories/datasets';
import { createRequest, expectCreated, teamRecords } from '../integration/create-dataset.helpers.ts';
import { KB_PATHS } from '../integration/knowledge-base.helpers.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough } from './harness.ts';
import { datasetReplyProblems, useFuzzServer } from './route-fuzz.ts';

// FUZZ_RUNS requests in all, shared by the seven routes.
const RUNS_PER_ROUTE = Math.max(20, Math.ceil(FUZZ_RUNS / 7));
const BODY_FIELDS = [
  'id',
  'parentId',
  'type',
  'searchKey',
  'name',
  'intro',
  'avatar',
  'vectorModel',
  'agentModel',
  'vlmModelId',
];

const { server, token, datasetRequests } = useFuzzServer();
let seeded: string[];

beforeAll(async () => {
  // A small tree for the fuzzed ids to hit: three nested folders, a sibling folder, a dataset in each.
  const make = async (body: Record<string, unknown>) =>
    expectCreated(await createRequest(server, body, `Bearer ${token().token}`));
  const a = await make({ name: 'A', type: 'folder' });
  const b = await make({ name: 'B', type: 'folder', parentId: a });
  const c = await make({ name: 'C', type: 'folder', parentId: b });
  const d = await make({ name: 'D', type: 'folder' });
  seeded = [a, b, c, d];
  for (const parentId of [a, b, c, d, null]) seeded.push(await make({ name: 'docs', intro: 'alpha', parentId }));
});

const ids = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...seeded) },
    fc.constantFrom(...seeded).map((id) => id.toUpperCase()),
    fc.constantFrom('', 'ffffffffffffffffffffffff', '0'.repeat(25), 'zz'.repeat(12), ' '.repeat(24), '\u0000'),
    fc.string({ maxLength: 30 }),
  );

function bodyObjects(): fc.Arbitrary<Record<string, unknown>> {
  // Mostly valid bodies too, so updates and lists really happen (and move records around).
  const plausible = fc.record(
    {
      id: fc.constantFrom(...seeded),
      name: fc.constantFrom('renamed', 'alpha'),
      intro: fc.constantFrom('', 'alpha beta'),
      parentId: fc.oneof(fc.constantFrom(...seeded), fc.constant(null)),
      type: fc.constantFrom('dataset', 'folder'),
      searchKey: fc.constantFrom('alpha', 'A', ''),
    },
    { requiredKeys: ['id'] },
  );
  return fc.oneof(plausible, anyObjects());
}

function anyObjects() {
  return fc.record(
    Object.fromEntries(
      BODY_FIELDS.map((f) => [
        f,
        fc.oneof(
          { weight: 3, arbitrary: ids() },
          fc.constantFrom(null, 'dataset', 'folder', 'x', 'alpha', 'bge-m3', 'gpt-4o', 'a\u202eb', '\ud800'),
          fc.integer(),
          fc.boolean(),
          fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
          fc.object({ maxDepth: 1, maxKeys: 2 }),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );
}

function queries(): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.constantFrom('id', 'sourceId', 'type', 'parentId', 'searchKey', 'id[]', '__proto__', 'x'),
    fc.oneof(ids(), fc.constantFrom('current', 'parent', 'CURRENT', '')),
  );
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(pair, { maxLength: 4 })
        .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
    },
    fc.constantFrom('id=%ZZ', 'id=%00', '%', '&&&', 'id', 'id=a&id=b', 'sourceId=%E2%80%AE', `id=${'a'.repeat(5000)}`),
  );
}

async function fuzz(path: string, method: string, concurrency: number, withQuery: boolean) {
  const target = { path, method, query: withQuery ? queries() : undefined };
  const requests = datasetRequests(target, { objects: bodyObjects(), fields: BODY_FIELDS }, RUNS_PER_ROUTE);
  return fuzzThrough(server.url, requests, datasetReplyProblems(token), concurrency);
}

/** Every record hangs from an existing folder of its team, and no chain of parents loops. */
async function treeProblems(): Promise<string[]> {
  const records = await teamRecords(server.documents, token().teamId);
  const byId = new Map<string, DatasetRecord>(records.map((r) => [r.id, r]));
  const problems: string[] = [];
  for (const record of records) {
    const seen = new Set<string>();
    for (let at: DatasetRecord | undefined = record; at?.parentId; at = byId.get(at.parentId)) {
      if (seen.has(at.id)) {
        problems.push(`${record.id}: its parents loop`);
        break;
      }
      seen.add(at.id);
      const parent = byId.get(at.parentId);
      if (parent?.type !== 'folder') problems.push(`${at.id}: parent ${at.parentId} is not a folder`);
    }
  }
  return problems;
}

// Reads and updates run 8 at a time (moves racing each other must still leave a tree); deletes 8 at a time
// after the updates, so nothing creates under them.
describe.each([
  ['POST', KB_PATHS.list, 8, false],
  ['GET', KB_PATHS.list, 8, true],
  ['POST', KB_PATHS.folderCreate, 8, false],
  ['GET', KB_PATHS.detail, 8, true],
  ['GET', KB_PATHS.paths, 8, true],
  ['PUT', KB_PATHS.update, 8, false],
  ['DELETE', KB_PATHS.delete, 8, true],
] as const)(
  '%s %s under malformed requests (fuzz through the local server)',
  (method, path, concurrency, withQuery) => {
    it(`answers ${RUNS_PER_ROUTE} requests below 500, in the envelope, never echoing the token, and keeps the tree whole (seed ${FUZZ_SEED})`, async () => {
      const { failures, statuses } = await fuzz(path, method, concurrency, withQuery);

      expect(failures.slice(0, 5)).toEqual([]);
      expect(await treeProblems()).toEqual([]);
      // The mix must really reach the function: some requests pass, others fail validation or the gateway.
      expect(statuses.filter((s) => [200, 400, 401].includes(s))).toEqual([200, 400, 401]);
    }, 120_000);
  },
);
