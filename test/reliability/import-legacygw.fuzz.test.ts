import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDsn } from '#functions/import-legacygw/dsn';
import { nested, proxyReplyProblems } from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, jsonRequest } from './harness.ts';
import { useFuzzServer } from './route-fuzz.ts';

const IMPORT_PATH = '/api/channels/import/legacygw';
const FIELDS = ['dsn', 'dryRun'];
// TEST-NET-1: nothing listens there, and it is the only target the allow-list admits.
const ALLOWED = '192.0.2.1';

// Every syntactically valid DSN with a literal address outside it is refused before any connection.
const { server, proxyRequests } = useFuzzServer({ LEGACYGW_ALLOWED_HOSTS: ALLOWED });

const DSN_PARTS = [
  'mysql://',
  'postgres://',
  'app',
  ':',
  'p@ss:w/rd()',
  '@tcp(',
  '@unix(',
  '@',
  '127.0.0.1',
  '169.254.169.254',
  '[fe80::1]',
  '[::ffff:169.254.169.254]',
  '0x7f.1',
  '2130706433',
  'db.internal',
  ':3306',
  ':0',
  ':99999',
  ')',
  '/',
  'legacy',
  '%zz',
  '%2F',
  '?',
  '&',
  'timeout=',
  '5s',
  '1h',
  'tls=',
  'skip-verify',
  'allowAllFiles=true',
  'multiStatements=true',
  'allowCleartextPasswords=1',
  '#',
  '\u0000',
  '\n',
  ' ',
];

/** DSN-like strings, valid or not; a valid one naming a host by name would need DNS, so it is spoiled. */
const dsnText = fc
  .oneof(
    fc
      .array(fc.oneof(fc.constantFrom(...DSN_PARTS), fc.string({ maxLength: 6 })), { maxLength: 16 })
      .map((p) => p.join('')),
    fc
      .tuple(fc.constantFrom('127.0.0.1', '10.1.2.3', '[::1]', '169.254.169.254', '[fe80::1]'), fc.nat({ max: 70_000 }))
      .map(([host, port]) => `app:p@ss@tcp(${host}:${port})/legacy`),
    fc.integer({ min: 4_000, max: 70_000 }).map((n) => `app:${'p'.repeat(n)}@tcp(10.0.0.1)/legacy`),
  )
  .map((dsn) => {
    try {
      const { host } = parseDsn(dsn);
      return isIP(host) === 0 ? `${dsn}${dsn.includes('?') ? '&' : '?'}allowAllFiles=true` : dsn;
    } catch {
      return dsn;
    }
  });

const objects = fc.record(
  {
    dsn: fc.oneof(
      { weight: 4, arbitrary: dsnText },
      fc.constantFrom(null, '', 1, true),
      fc.array(dsnText, { maxLength: 2 }),
    ),
    dryRun: fc.oneof(fc.boolean(), fc.constantFrom(null, 'true', 0, 1, {}, [])),
  },
  { requiredKeys: [] },
);

describe('POST /api/channels/import/legacygw under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} malformed requests below 500 in the proxy envelope and writes nothing (seed ${FUZZ_SEED})`, async () => {
    const requests = proxyRequests({ path: IMPORT_PATH }, { objects, fields: FIELDS });
    const before = await server.countItems('channels');

    const { failures, statuses } = await fuzzThrough(server.url, requests, (reply, i) =>
      proxyReplyProblems(reply, { successAllowed: false, otherApi404: requests[i]!.path !== IMPORT_PATH }),
    );

    expect(failures.slice(0, 5)).toEqual([]);
    expect(await server.countItems('channels')).toBe(before);
    expect(statuses.filter((s) => [400, 401, 404].includes(s))).toEqual([400, 401, 404]);
  });

  it('rejects a deeply nested body or DSN without crashing, and keeps serving', async () => {
    const send = (body: string) =>
      jsonRequest(server.url, { path: IMPORT_PATH, bearer: server.credentials.adminKey, body });

    const replies = [];
    for (const body of [
      nested(30_000, 'array'),
      `{"dsn":${nested(30_000, 'array')}}`,
      `{"dsn":"x","dryRun":${nested(10_000, 'object')}}`,
      nested(4_000_000, 'array'),
    ]) {
      replies.push(await send(body));
    }
    const after = await send('{"dsn":"app:pw@tcp(10.9.9.9)/legacy"}');

    expect(replies.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(replies.every((r) => JSON.parse(r.body).success === false)).toBe(true);
    expect([after.status, JSON.parse(after.body).message]).toEqual([400, expect.stringMatching(/allowed hosts/)]);
  });
});
