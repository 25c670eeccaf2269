import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  datasetEnvelopeProblems,
  encodedBody,
  malformedBody,
  malformedRequest,
  nested,
} from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, jsonRequest, type RawResponse, rawRequest, sampleFuzz } from './harness.ts';

const CREATE_PATH = '/api/core/dataset/create';
const FIELDS = ['name', 'type', 'parentId', 'intro', 'avatar', 'vectorModel', 'agentModel', 'vlmModel'];
const server = useTestServer();

/** The problems with one reply: not the envelope, a 5xx, or a success without a new id. */
function envelopeProblems(reply: RawResponse): string[] {
  const { problems, body } = datasetEnvelopeProblems(reply);
  // body is undefined only for a CORS preflight's empty answer (datasetEnvelopeProblems lets that one through).
  if (
    reply.status === 200 &&
    body !== undefined &&
    !(typeof body.data === 'string' && /^[0-9a-f]{24}$/.test(body.data))
  ) {
    problems.push('no id');
  }
  return problems;
}

const objects = fc.record(
  Object.fromEntries(
    FIELDS.map((f) => [
      f,
      fc.oneof(
        fc.constantFrom(null, '', 'dataset', 'folder', 'x', 'bge-m3', '65a0c0ffee0000000000beef', '\u0000', 'a\u202eb'),
        fc.string({ maxLength: 20 }),
        fc.integer(),
        fc.boolean(),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
        fc.object({ maxDepth: 1, maxKeys: 2 }),
      ),
    ]),
  ),
  { requiredKeys: [] },
);

describe('POST /api/core/dataset/create under malformed requests (fuzz through the local server)', () => {
  it(`answers ${FUZZ_RUNS} malformed requests below 500, in the envelope, writing only for the 200s (seed ${FUZZ_SEED})`, async () => {
    const token = server.credentials.accessTokens[0]!.token;
    const requests = sampleFuzz(
      malformedRequest({
        path: CREATE_PATH,
        body: encodedBody(malformedBody(objects, FIELDS)),
        authorization: authorizationHeaders(token, server.credentials.adminKey),
      }),
    );
    const before = await server.countItems('datasets');

    const { replies, failures, statuses } = await fuzzThrough(server.url, requests, envelopeProblems);

    expect(failures.slice(0, 5)).toEqual([]);
    // A CORS preflight's 200 has no body and creates nothing.
    const created = replies
      .filter((r) => r.status === 200 && r.body !== '')
      .map((r) => JSON.parse(r.body).data as string);
    expect(new Set(created).size).toBe(created.length);
    expect(await server.countItems('datasets')).toBe(before + created.length);
    // The mix must really reach the function: some bodies pass, most fail validation.
    expect(statuses.filter((s) => [200, 400, 401, 404].includes(s))).toEqual([200, 400, 401, 404]);
  });

  it('rejects a deeply nested body without crashing, and keeps serving', async () => {
    const bearer = server.credentials.accessTokens[0]!.token;
    const bodies = [
      nested(30_000, 'array'),
      `{"name":${nested(10_000, 'object')}}`,
      nested(4_000_000, 'array'),
      `{"name":"deep","intro":${nested(30_000, 'array')}}`,
    ];
    const before = await server.countItems('datasets');

    const replies = [];
    for (const body of bodies) replies.push(await jsonRequest(server.url, { path: CREATE_PATH, bearer, body }));
    const after = await jsonRequest(server.url, { path: CREATE_PATH, bearer, body: '{"name":"still here"}' });

    expect(replies.map((r) => [r.status, JSON.parse(r.body).code])).toEqual([
      [400, 507000],
      [400, 507000],
      [400, 507000],
      [400, 507000],
    ]);
    expect(after.status).toBe(200);
    expect(await server.countItems('datasets')).toBe(before + 1);
  });

  it('answers a body over the gateway payload limit with 413 in the envelope', async () => {
    const reply = await rawRequest(server.url, {
      method: 'POST',
      path: CREATE_PATH,
      headers: [['Authorization', `Bearer ${server.credentials.accessTokens[0]!.token}`]],
      body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x5b),
    });

    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toStrictEqual({
      code: 507000,
      statusText: 'invalidParams',
      message: expect.any(String),
      data: null,
    });
  });
});
