import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_CREDENTIALS_FILE, writeEngineCredentialsFile } from '#infra/local/dynamo-engine';
import { type FakeBedrock, startFakeBedrock } from '#test/support/fake-bedrock';
import { type FakeUpstream, type Fault, startFakeAnthropic } from '#test/support/fake-upstreams';
import { useTestServer } from '#test/support/local-server';
import { runTokensCli } from '../../scripts/tokens/cli.ts';
import { authorizationHeaders, encodedBody, malformedBody, malformedRequest } from './fuzz-requests.ts';
import { FUZZ_RUNS, FUZZ_SEED, fuzzThrough, jsonRequest, type RawResponse, rawRequest, sampleFuzz } from './harness.ts';

/*
 * `POST /v1/messages/count_tokens` (docs/relay.md, "Endpoints") under malformed requests, through the local server:
 * random bodies, encodings, credentials (Authorization and x-api-key), methods and near-miss paths, with an anthropic
 * channel and an aws channel (Bedrock's CountTokens at a fake that verifies SigV4) answering faults at random. Every
 * answer is a count, Anthropic's error envelope, or (for what the gateway answers before the function: a refused key,
 * an unknown route) OpenAI's; 5xx only 502-504 or an upstream's own 500; never a key or an AWS secret.
 */

const RUNS = 2 * Math.max(100, Math.ceil(FUZZ_RUNS / 8));
const COUNT = '/v1/messages/count_tokens';
const ANTHROPIC_KEY = 'sk-ant-fuzz-count-0001-aaaaaaaaaaaaaaaaaaaaaaaa';
const AWS = { accessKeyId: 'AKIAFUZZCOUNTTOKENS1', secretAccessKey: 'fuzzCountSecret/0123456789abcdefghijklmnop' };

const server = useTestServer({ RELAY_ALLOWED_HOSTS: '127.0.0.1' });
let anthropic: FakeUpstream;
let bedrock: FakeBedrock;
let relayKey = '';

beforeAll(async () => {
  [anthropic, bedrock] = await Promise.all([
    startFakeAnthropic({ key: ANTHROPIC_KEY }),
    startFakeBedrock({ credentials: AWS, region: 'us-east-1', countTokens: 17 }),
  ]);
  await writeEngineCredentialsFile(join(server.dataDir, ENGINE_CREDENTIALS_FILE), server.engine);
  const stdout: string[] = [];
  const code = await runTokensCli(['relay', 'create', '--name', 'fuzz', '--table', server.tables.relayKeys], {
    stdout: (line) => stdout.push(line),
    stderr: () => {},
    env: { DATA_DIR: server.dataDir },
  });
  expect(code).toBe(0);
  relayKey = (JSON.parse(stdout.at(-1) ?? '{}') as { key?: string }).key ?? '';
});

afterAll(async () => {
  await Promise.all([anthropic?.close(), bedrock?.close()]);
});

const secrets = () => [relayKey, relayKey.slice(3), server.credentials.adminKey, ANTHROPIC_KEY, AWS.secretAccessKey];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The upstreams' own 500 bodies (their `server-error` fault), passed on as they are. */
const UPSTREAM_500 = [
  'The server had an error while processing your request.',
  'The server encountered an internal error.',
];

function problems(reply: RawResponse, path: string): string[] {
  const found: string[] = [];
  // A near-miss path outside `/v1/` (`//v1/…`, `/V1/…`) is another API's, which answers its own 404.
  if (!path.startsWith('/v1/') && reply.status === 404) return found;
  for (const secret of secrets()) if (reply.body.includes(secret)) found.push('a secret in the answer');
  // A near miss that resolves (dot segments) to another route, such as `/v1/messages/count_tokens/..` to
  // `/v1/messages/`, gets that route's answer (a message, streamed or not): not this test's subject.
  if (reply.status === 200 && new URL(`http://local${path}`).pathname.replace(/\/$/, '') !== COUNT) return found;
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    return [...found, `not JSON (${reply.status}): ${reply.body.slice(0, 120)}`];
  }
  if (reply.status === 200) {
    if (!isObject(body) || typeof body.input_tokens !== 'number') found.push('a 200 that is not a count');
    return found;
  }
  const anthropicEnvelope =
    isObject(body) && body.type === 'error' && isObject(body.error) && typeof body.error.message === 'string';
  const openAiEnvelope = isObject(body) && isObject(body.error) && typeof body.error.message === 'string';
  if (!anthropicEnvelope && !openAiEnvelope) found.push(`an error in no envelope: ${reply.body.slice(0, 120)}`);
  const upstream500 = reply.status === 500 && UPSTREAM_500.some((text) => reply.body.includes(text));
  if (reply.status >= 500 && ![502, 503, 504].includes(reply.status) && !upstream500) found.push(`a ${reply.status}`);
  return found;
}

const objects = fc
  .record(
    {
      model: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('claude-3-5-haiku-latest', 'claude-3-5-sonnet-20240620') },
        fc.constantFrom('nope', ''),
        fc.string(),
      ),
      messages: fc.oneof(
        { weight: 4, arbitrary: fc.constant([{ role: 'user', content: 'Hi' }]) },
        fc.array(
          fc.record({ role: fc.constantFrom('user', 'assistant', 'x'), content: fc.jsonValue({ maxDepth: 2 }) }),
        ),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      system: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      stream: fc.jsonValue({ maxDepth: 0 }),
      tools: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((o) => o as Record<string, unknown>);

/** A normal answer, queued between faults (a first byte delayed by nothing). */
const ANSWER: Fault = { kind: 'slow-first-byte', delayMs: 0 };
const FAULTS: readonly Fault[] = [
  { kind: 'rate-limited' },
  { kind: 'server-error' },
  { kind: 'reset' },
  { kind: 'wrong-content-type' },
  { kind: 'status', status: 400 },
];

describe('POST /v1/messages/count_tokens under malformed requests', () => {
  it('imports an anthropic and an aws channel and counts through both', async () => {
    const imported = await jsonRequest(server.url, {
      path: '/api/channels/import/rows',
      bearer: server.credentials.adminKey,
      body: JSON.stringify({
        columns: ['id', 'type', 'key', 'status', 'name', 'base_url', 'models', 'group', 'config'],
        rows: [
          [1, 14, ANTHROPIC_KEY, 1, 'anthropic', anthropic.url, 'claude-3-5-haiku-latest', 'default', ''],
          [
            2,
            33,
            `${AWS.accessKeyId}|${AWS.secretAccessKey}|us-east-1`,
            1,
            'bedrock',
            bedrock.url,
            'claude-3-5-sonnet-20240620',
            'default',
            JSON.stringify({ ak: AWS.accessKeyId, sk: AWS.secretAccessKey, region: 'us-east-1' }),
          ],
        ],
      }),
    });
    expect(imported.status).toBe(200);
    const count = (model: string) =>
      rawRequest(server.url, {
        method: 'POST',
        path: COUNT,
        headers: [
          ['x-api-key', relayKey],
          ['content-type', 'application/json'],
        ],
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
      });
    const deadline = Date.now() + 30_000;
    let answers: RawResponse[] = [];
    while (Date.now() < deadline) {
      answers = await Promise.all([count('claude-3-5-sonnet-20240620'), count('claude-3-5-haiku-latest')]);
      if (answers.every((a) => a.status === 200)) break;
      await new Promise((r) => setTimeout(r, 500));
    }

    expect(answers.map((a) => JSON.parse(a.body))).toEqual([
      { input_tokens: 17 },
      expect.objectContaining({ input_tokens: expect.any(Number) }),
    ]);
    expect(bedrock.requests.at(-1)?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/count-tokens');
    expect(anthropic.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
  }, 60_000);

  it(`answers ${RUNS} malformed requests with a count or an error envelope, never a key (seed ${FUZZ_SEED})`, async () => {
    // Faults among normal answers: any on the aws channel (failover, cool-downs, errors passed on), only a 400 of its
    // own on the anthropic one, so that one channel stays in service.
    const next = (faults: readonly Fault[]) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(ANSWER) }, fc.constantFrom(...faults));
    for (const fault of sampleFuzz(next(FAULTS), RUNS, 3)) bedrock.fault(fault);
    for (const fault of sampleFuzz(next([{ kind: 'status', status: 400 }]), RUNS, 6)) anthropic.fault(fault);
    const keyHeaders = fc.oneof(
      authorizationHeaders(relayKey, server.credentials.adminKey),
      fc.constant<Array<[string, string]>>([['x-api-key', relayKey]]),
      fc.constantFrom<Array<[string, string]>>(
        [['x-api-key', 'sk-wrong']],
        [['X-Api-Key', relayKey.slice(3)]],
        [['x-api-key', '']],
      ),
    );
    const body = encodedBody(malformedBody(objects, ['model', 'messages', 'system', 'stream', 'tools']));
    // Half malformed in every way, half with the relay key and a Messages-shaped body, so that many reach a channel.
    const plausible = objects.map((o) => Buffer.from(JSON.stringify(o), 'utf8'));
    const keyOnly = fc.constant<Array<[string, string]>>([['x-api-key', relayKey]]);
    const requests = [
      ...sampleFuzz(malformedRequest({ path: COUNT, body, authorization: keyHeaders }), RUNS / 2, 4),
      ...sampleFuzz(malformedRequest({ path: COUNT, body: plausible, authorization: keyOnly }), RUNS / 2, 5),
    ];
    const before = bedrock.requests.length + anthropic.requests.length;

    const { failures, statuses } = await fuzzThrough(server.url, requests, (reply, i) =>
      problems(reply, requests[i]?.path ?? ''),
    );

    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses).toEqual(expect.arrayContaining([200, 400, 401]));
    expect(bedrock.requests.length + anthropic.requests.length).toBeGreaterThan(before + 10);
  }, 180_000);
});
