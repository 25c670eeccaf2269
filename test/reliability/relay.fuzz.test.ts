import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_CREDENTIALS_FILE, writeEngineCredentialsFile } from '#infra/local/dynamo-engine';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import { type FakeUpstream, type Fault, startFakeOpenAi } from '#test/support/fake-upstreams';
import { useTestServer } from '#test/support/local-server';
import { runTokensCli } from '../../scripts/tokens/cli.ts';
import { authorizationHeaders, encodedBody, malformedBody, malformedRequest, nested } from './fuzz-requests.ts';
import {
  FUZZ_RUNS,
  FUZZ_SEED,
  fuzzThrough,
  jsonRequest,
  type RawRequest,
  type RawResponse,
  rawRequest,
  sampleFuzz,
} from './harness.ts';

/*
 * The relay API (`/v1`) under malformed requests, through the local server with a valid relay key: random bodies
 * (wrong types, odd and huge JSON, bad encodings), methods, paths and headers, first with no channel at all, then
 * with two channels imported from a One API table at fake OpenAI upstreams that answer faults at random among normal
 * answers (429, 5xx, resets, HTML, dropped streams, 4xx of their own). Every answer must be a success or OpenAI's
 * error envelope, never a 5xx but 502/503/504 or an upstream's own 500 passed on (in the envelope too), never with a
 * key in it; the server keeps serving. Every response also goes through the contract check against
 * openapi/relay.json (test/support/contract.ts).
 */

// FUZZ_RUNS requests in all (at least 300): a quarter without channels, the rest with them.
const RUNS_WITHOUT_CHANNELS = Math.max(100, Math.ceil(FUZZ_RUNS / 4));
const RUNS_WITH_CHANNELS = Math.max(200, Math.ceil((FUZZ_RUNS * 3) / 4));

const CHAT = '/v1/chat/completions';
const EMBEDDINGS = '/v1/embeddings';
const MODELS = '/v1/models';
const CHANNEL_KEYS = {
  good: 'sk-fuzz-upstream-good-7Yq2Lm9Xc4Vb8Nz1Qw3E',
  faulty: 'sk-fuzz-upstream-faulty-3Hj6Kd8Ps1Rt5Wm0Zx',
};
const SERVED = ['gpt-4o-mini', 'text-embedding-3-small'];
// Answers of the other APIs' gateways to a near-miss path that leaves `/v1` (`//v1/...`, `/V1/...`).
const OTHER_API_NOT_FOUND = [GATEWAY_RESPONSES.dataset, GATEWAY_RESPONSES.proxy].map((responses) =>
  JSON.stringify(responses.MISSING_AUTHENTICATION_TOKEN.body),
);

const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1' });
let good: FakeUpstream;
let faulty: FakeUpstream;
let relayKey = '';

beforeAll(async () => {
  [good, faulty] = await Promise.all([startFakeOpenAi(), startFakeOpenAi()]);
  // `npm run tokens -- relay create`, as an operator runs it against `npm start`: it finds the engine through this file.
  await writeEngineCredentialsFile(join(server.dataDir, ENGINE_CREDENTIALS_FILE), server.engine);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runTokensCli(['relay', 'create', '--name', 'fuzz', '--table', server.tables.relayKeys], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: { DATA_DIR: server.dataDir },
  });
  expect([code, stderr]).toEqual([0, []]);
  relayKey = (JSON.parse(stdout.at(-1) ?? '{}') as { key?: string }).key ?? '';
  expect(relayKey).toMatch(/^sk-/);
});

afterAll(async () => {
  await Promise.all([good?.close(), faulty?.close()]);
});

/** Every secret no answer may carry: the relay key (and its body without `sk-`), the admin key, the channels' keys. */
const secrets = () => [relayKey, relayKey.slice(3), server.credentials.adminKey, ...Object.values(CHANNEL_KEYS)];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI's error envelope exactly: `{"error": {"message", "type", "param", "code"}}` with their types. */
function envelopeProblems(body: unknown): string[] {
  if (!isObject(body) || Object.keys(body).join(',') !== 'error' || !isObject(body.error)) {
    return ['not the error envelope'];
  }
  const { error } = body;
  const keys = Object.keys(error).sort().join(',');
  const ok =
    keys === 'code,message,param,type' &&
    typeof error.message === 'string' &&
    typeof error.type === 'string' &&
    (error.param === null || typeof error.param === 'string') &&
    (error.code === null || typeof error.code === 'string');
  return ok ? [] : [`not the four fields of the envelope: ${JSON.stringify(error).slice(0, 200)}`];
}

/** A success: a chat completion, a list (embeddings, models) or an OpenAPI document. */
function isSuccess(body: unknown): boolean {
  if (!isObject(body)) return false;
  if (body.object === 'chat.completion') return Array.isArray(body.choices);
  if (body.object === 'list') return Array.isArray(body.data);
  // OpenAI's Responses API (`/v1/responses`, passed through to an OpenAI channel).
  if (body.object === 'response') return typeof body.id === 'string';
  return typeof body.openapi === 'string';
}

/** An event stream: `data:` events of JSON objects (chunks, or an error envelope last), ending with [DONE] or that error. */
function eventStreamProblems(text: string): string[] {
  const data = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  if (data.length === 0) return ['an event stream without events'];
  const problems: string[] = [];
  for (const [i, item] of data.entries()) {
    if (item === '[DONE]') {
      if (i !== data.length - 1) problems.push('an event after [DONE]');
      continue;
    }
    let event: unknown;
    try {
      event = JSON.parse(item);
    } catch {
      problems.push(`an event that is not JSON: ${item.slice(0, 100)}`);
      continue;
    }
    if (!isObject(event)) problems.push(`an event that is not an object: ${item.slice(0, 100)}`);
    else if ('error' in event && i !== data.length - 1) problems.push('an error event before the end');
  }
  const last = data.at(-1) ?? '';
  if (last !== '[DONE]' && !last.includes('"error"')) problems.push(`a stream ending with ${last.slice(0, 100)}`);
  return problems;
}

/** The problems with one reply (nothing = the reply is right). */
function relayProblems(reply: RawResponse): string[] {
  const problems: string[] = [];
  // A 5xx is 502, 503 or 504, or an upstream's own 500 passed on with its status (never the relay's or the gateway's).
  const upstream500 = reply.status === 500 && reply.body.includes(UPSTREAM_500_MESSAGE);
  if (reply.status >= 500 && ![502, 503, 504].includes(reply.status) && !upstream500) {
    problems.push(`status ${reply.status}: ${reply.body.slice(0, 200)}`);
  }
  if (secrets().some((secret) => secret !== '' && reply.body.includes(secret))) problems.push('a key in the body');
  if (reply.status === 404 && OTHER_API_NOT_FOUND.includes(reply.body)) return problems;
  if (!reply.headers['x-request-id']) problems.push('no x-request-id');
  if ((reply.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    if (reply.status !== 200) problems.push(`an event stream with status ${reply.status}`);
    return [...problems, ...eventStreamProblems(reply.body)];
  }
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    return [...problems, `${reply.status} body is not JSON: ${reply.body.slice(0, 200)}`];
  }
  if (reply.status === 200) {
    if (!isSuccess(body)) problems.push(`200 that is no success: ${reply.body.slice(0, 200)}`);
    return problems;
  }
  return [...problems, ...envelopeProblems(body).map((p) => `${reply.status} ${p}`)];
}

// ------------------------------------------------------------------------------------------------- generators

const WRONG = fc.constantFrom<unknown>(null, true, false, 0, -1, 1e308, '', 'x', [], {}, [null], { a: 1 }, '1');
const model = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...SERVED) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('no-such-model', '', ' ', 'GPT-4O-MINI', 'gpt-4o-mini\u0000', 'é'.repeat(300)),
  },
  fc.string({ maxLength: 40 }),
  WRONG,
);
const message = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'nobody', ''),
        content: fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.constant(null),
          fc.array(fc.record({ type: fc.constantFrom('text', 'image_url', 'x'), text: fc.string({ maxLength: 20 }) }), {
            maxLength: 2,
          }),
          WRONG,
        ),
        name: fc.string({ maxLength: 10 }),
      },
      { requiredKeys: ['role'] },
    ),
  },
  WRONG,
);
/** Bodies shaped like OpenAI's requests, with any field missing or of the wrong type, and unknown fields. */
const openAiObjects: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.record(
      {
        model,
        messages: fc.oneof({ weight: 4, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }) }, WRONG),
        input: fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
          fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 6 }),
          WRONG,
        ),
        stream: fc.oneof({ weight: 3, arbitrary: fc.boolean() }, WRONG),
        stream_options: fc.oneof(fc.record({ include_usage: fc.oneof(fc.boolean(), WRONG) }), WRONG),
        temperature: fc.oneof(fc.double(), WRONG),
        max_tokens: fc.oneof(fc.integer(), WRONG),
        n: fc.oneof(fc.integer({ min: -1, max: 3 }), WRONG),
        encoding_format: fc.oneof(fc.constantFrom('float', 'base64', 'hex'), WRONG),
        tools: fc.oneof(
          fc.array(
            fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string({ maxLength: 10 }) }) }),
            {
              maxLength: 2,
            },
          ),
          WRONG,
        ),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  )
  .map(([known, unknown]) => ({ ...unknown, ...known }));
const FIELDS = ['model', 'messages', 'input', 'stream', 'stream_options', 'encoding_format'];

const route = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ method: 'POST', path: CHAT }) },
  { weight: 3, arbitrary: fc.constant({ method: 'POST', path: EMBEDDINGS }) },
  { weight: 1, arbitrary: fc.constant({ method: 'GET', path: MODELS }) },
  // OpenAI's Responses API answers in OpenAI's envelope too (`/v1/messages` answers in Anthropic's: its own suite).
  { weight: 1, arbitrary: fc.constant({ method: 'POST', path: '/v1/responses' }) },
  // Paths under `/v1` no route has.
  fc
    .constantFrom('/v1', '/v1/', '/v1/completions', '/v1/models/gpt-4o-mini', '/v1/chat', '/v1/response', '/v1/%00')
    .map((path) => ({ method: 'POST', path })),
);

/**
 * `runs` requests: half malformed in every way (body, encoding, credential, headers, method, path), half with the
 * relay key and an OpenAI-shaped JSON body (fields missing or of the wrong type), so that many reach a channel.
 */
function requests(runs: number, seedOffset: number): RawRequest[] {
  const malformed = encodedBody(malformedBody(openAiObjects, FIELDS));
  const plausible = openAiObjects.map((o) => Buffer.from(JSON.stringify(o), 'utf8'));
  const anyCredential = authorizationHeaders(relayKey, server.credentials.adminKey);
  const relayKeyOnly = fc.constant<Array<[string, string]>>([['Authorization', `Bearer ${relayKey}`]]);
  const half = Math.ceil(runs / 2);
  return [
    ...sampleFuzz(
      route.chain(({ method, path }) =>
        malformedRequest({ path, method, body: malformed, authorization: anyCredential }),
      ),
      half,
      seedOffset,
    ),
    ...sampleFuzz(
      route.chain(({ method, path }) =>
        malformedRequest({ path, method, body: plausible, authorization: relayKeyOnly }),
      ),
      runs - half,
      seedOffset + 100,
    ),
  ];
}

/** A normal answer, queued between faults (a first byte delayed by nothing). */
const ANSWER: Fault = { kind: 'slow-first-byte', delayMs: 0 };
const FAULTS: readonly Fault[] = [
  { kind: 'rate-limited' },
  { kind: 'server-error' },
  { kind: 'server-error', status: 503 },
  { kind: 'reset' },
  { kind: 'wrong-content-type' },
  { kind: 'drop-mid-stream', afterEvents: 1 },
  { kind: 'status', status: 400 },
  { kind: 'status', status: 404 },
  // Statuses the document does not list, passed on: its `default` response.
  { kind: 'status', status: 418, body: { error: { message: 'teapot', type: 'fake', param: null, code: 'teapot' } } },
  { kind: 'status', status: 422, body: { detail: 'not the envelope' } },
  { kind: 'status', status: 400, body: { error: 'a text error' } },
];
/** The upstream 4xx a channel is not blamed for (docs/relay.md, "Health"): answered as they are, no failover. */
const CLIENT_FAULTS: readonly Fault[] = FAULTS.filter((f) => f.kind === 'status' && f.status !== 404);
/** The fake upstream's own 500 body (its `server-error` fault): the relay passes an upstream's 500 on as it is. */
const UPSTREAM_500_MESSAGE = 'The server had an error while processing your request.';

async function chat(body: Record<string, unknown>): Promise<RawResponse> {
  return jsonRequest(server.url, { path: CHAT, bearer: relayKey, body: JSON.stringify(body) });
}

async function stillServing(expectedChat: number): Promise<void> {
  const models = await rawRequest(server.url, {
    method: 'GET',
    path: MODELS,
    headers: [['Authorization', `Bearer ${relayKey}`]],
  });
  const answer = await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'still there?' }] });
  expect(relayProblems(models)).toEqual([]);
  expect(models.status).toBe(200);
  expect(relayProblems(answer)).toEqual([]);
  expect([answer.status, answer.body]).toEqual([expectedChat, expect.any(String)]);
}

// ----------------------------------------------------------------------------------------------------- tests

describe('the relay API under malformed requests (fuzz through the local server with a relay key)', () => {
  it(`answers ${RUNS_WITHOUT_CHANNELS} requests without any channel: an empty model list or OpenAI's envelope, never a key (seed ${FUZZ_SEED})`, async () => {
    const { failures, statuses } = await fuzzThrough(server.url, requests(RUNS_WITHOUT_CHANNELS, 0), relayProblems);

    expect(failures.slice(0, 5)).toEqual([]);
    // The mix reaches the function: the model list, refused bodies, refused keys and "no channel".
    expect(statuses.filter((s) => [200, 400, 401, 404, 503].includes(s))).toEqual([200, 400, 401, 404, 503]);
    expect(good.requests.length + faulty.requests.length).toBe(0);
    await stillServing(503);
  }, 180_000);

  it('imports two channels at fake upstreams from a One API table, and serves their models', async () => {
    const imported = await jsonRequest(server.url, {
      path: '/api/channels/import/rows',
      bearer: server.credentials.adminKey,
      body: JSON.stringify({
        columns: ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group'],
        rows: [
          [1, 1, CHANNEL_KEYS.good, 1, 'fuzz-good', good.url, SERVED.join(','), 'default'],
          [2, 1, CHANNEL_KEYS.faulty, 1, 'fuzz-faulty', faulty.url, SERVED.join(','), 'default'],
        ],
      }),
    });
    expect(imported.status).toBe(200);
    expect(imported.body).not.toContain(CHANNEL_KEYS.good);

    // The relay's channel snapshot is refreshed in the background once 5 s old (shared/relay/channel-source.ts).
    const deadline = Date.now() + 30_000;
    let listed: string[] = [];
    while (Date.now() < deadline) {
      const reply = await rawRequest(server.url, {
        method: 'GET',
        path: MODELS,
        headers: [['Authorization', `Bearer ${relayKey}`]],
      });
      listed = (JSON.parse(reply.body) as { data: { id: string }[] }).data.map((m) => m.id);
      if (listed.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(listed).toEqual(SERVED);
  }, 60_000);

  it(`answers ${RUNS_WITH_CHANNELS} requests with channels, both failing at random: a success or OpenAI's envelope, 5xx only 502-504, never a key (seed ${FUZZ_SEED})`, async () => {
    // Faults among normal answers: on `faulty` any (failover, cool-downs, errors passed on), on `good` only the 4xx
    // that never count against a channel, so that one channel stays in service.
    for (const [upstream, faults, seedOffset] of [
      [good, CLIENT_FAULTS, 7],
      [faulty, FAULTS, 8],
    ] as const) {
      const next = fc.oneof({ weight: 4, arbitrary: fc.constant(ANSWER) }, fc.constantFrom(...faults));
      for (const fault of sampleFuzz(next, RUNS_WITH_CHANNELS, seedOffset)) upstream.fault(fault);
    }
    const before = good.requests.length + faulty.requests.length;

    const { failures, statuses, replies } = await fuzzThrough(
      server.url,
      requests(RUNS_WITH_CHANNELS, 1),
      relayProblems,
    );

    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses.filter((s) => [200, 400, 401, 404].includes(s))).toEqual([200, 400, 401, 404]);
    // Requests did reach the upstreams, streamed and not.
    expect(good.requests.length + faulty.requests.length).toBeGreaterThan(before);
    expect(replies.some((r) => (r.headers['content-type'] ?? '').startsWith('text/event-stream'))).toBe(true);
    expect(replies.some((r) => r.status === 200 && r.body.includes('"chat.completion"'))).toBe(true);
    good.clearFaults();
    faulty.clearFaults();
  }, 240_000);

  it('refuses deep nesting, a body over the payload limit and wrong JSON with a valid model, passes an upstream 418 on, all in the envelope, and keeps serving', async () => {
    const bodies = [
      nested(50_000, 'array'),
      `{"model":"gpt-4o-mini","messages":${nested(20_000, 'array')}}`,
      `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"metadata":${nested(5_000, 'object')}}`,
      `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${'x'.repeat(2 * 1024 * 1024)}"}]}`,
      `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}]`,
      '{"model":"gpt-4o-mini","model":null}',
    ];

    const replies: RawResponse[] = [];
    for (const body of bodies) replies.push(await jsonRequest(server.url, { path: CHAT, bearer: relayKey, body }));
    replies.push(
      await rawRequest(server.url, {
        method: 'POST',
        path: EMBEDDINGS,
        headers: [['Authorization', `Bearer ${relayKey}`]],
        body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x5b),
      }),
    );

    // A status the document does not list, passed on from the upstream (its `default` response), in the envelope.
    for (const upstream of [good, faulty]) upstream.fault(FAULTS.find((f) => f.kind === 'status' && f.status === 418)!);
    replies.push(await chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'teapot?' }] }));
    good.clearFaults();
    faulty.clearFaults();

    expect(replies.flatMap((reply, i) => relayProblems(reply).map((p) => `${i}: ${p}`))).toEqual([]);
    expect(replies.map((r) => r.status).slice(-2)).toEqual([413, 418]);
    await stillServing(200);
  }, 120_000);
});
