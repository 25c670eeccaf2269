import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nested, proxyReplyProblems } from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, jsonRequest } from './harness.ts';
import { useFuzzServer } from './route-fuzz.ts';

const ROWS_PATH = '/api/channels/import/rows';
const FIELDS = ['columns', 'rows', 'dryRun'];
const CORE = ['id', 'type', 'key', 'status', 'base_url', 'models'];

const { server, proxyRequests } = useFuzzServer();

// Locally both APIs share one host: a near-miss path may get the other API's 404, exactly that body (see the DSN fuzz).
const cell = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(null, 0, -1, 1.5, 2 ** 53, 1e308, true, {}, [], '9007199254740993', '\u0000', '\ud800'),
  fc.integer(),
);
// Column lists near a real table's, and noise: duplicates in other case, empty names, non-strings. Never a valid
// table: the near ones always lack `key` (a request naming every column it needs, with no row, is a valid empty import).
const columns = fc.oneof(
  fc.subarray([...CORE.filter((c) => c !== 'key'), 'name', 'group', 'tag', 'plugin', 'deleted_at', 'config', 'ID'], {
    minLength: 0,
  }),
  fc.constant([...CORE, 'ID']),
  fc.array(fc.oneof(fc.string({ maxLength: 70 }), fc.constantFrom(null, 1, '')), { maxLength: 8 }),
  fc.constantFrom(null, 'id', {}, [[]]),
);
const rows = fc.oneof(
  fc.array(fc.array(cell, { maxLength: 10 }), { maxLength: 6 }),
  fc.constantFrom(null, 'rows', {}, [null], [[]]),
);
const objects = fc.record(
  { columns, rows, dryRun: fc.oneof(fc.boolean(), fc.constantFrom(null, 'true', 0)) },
  { requiredKeys: [] },
);

describe('POST /api/channels/import/rows under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} malformed requests below 500 in the proxy envelope (seed ${FUZZ_SEED})`, async () => {
    const requests = proxyRequests({ path: ROWS_PATH }, { objects, fields: FIELDS });

    const { failures, statuses } = await fuzzThrough(server.url, requests, (reply, i) =>
      proxyReplyProblems(reply, { successAllowed: false, otherApi404: requests[i]!.path !== ROWS_PATH }),
    );

    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses.filter((s) => [400, 401, 404].includes(s))).toEqual([400, 401, 404]);
  });

  it('rejects deep nesting, a huge body and too many rows without crashing, and keeps serving', async () => {
    const send = (body: string) =>
      jsonRequest(server.url, { path: ROWS_PATH, bearer: server.credentials.adminKey, body });
    const before = await server.countItems('channels');

    const replies = [];
    for (const body of [
      nested(30_000, 'array'),
      `{"columns":["id"],"rows":${nested(30_000, 'array')}}`,
      `{"columns":${nested(10_000, 'object')},"rows":[]}`,
      `{"columns":["id"],"rows":[[1]],"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`,
      JSON.stringify({ columns: ['id'], rows: Array.from({ length: 20_000 }, () => [1]) }),
    ]) {
      replies.push(await send(body));
    }
    const after = await send(JSON.stringify({ columns: CORE, rows: [], dryRun: true }));

    expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 413, 413]);
    expect(replies.every((r) => JSON.parse(r.body).success === false)).toBe(true);
    expect([after.status, JSON.parse(after.body).data?.source?.kind]).toEqual([200, 'oneapi']);
    expect(await server.countItems('channels')).toBe(before);
  });
});
