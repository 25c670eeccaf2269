import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useNpmStart } from '#test/support/npm-start';
import { RELAY_FIXTURE_KEYS, useRelayWorld } from '#test/support/relay-world';

/*
 * `/v1/messages` (Anthropic's Messages API) and `/v1/responses` (OpenAI's Responses API) as their users meet them
 * (docs/relay.md, "Endpoints"): `npm start`, the channels of the relay fixture imported from MariaDB with base URLs at
 * fake upstreams, and the official SDKs (`@anthropic-ai/sdk`, `openai`'s `responses`), unchanged but for the base URL
 * and the relay key.
 */

const KEYS = RELAY_FIXTURE_KEYS;

const npm = useNpmStart({ stopAfter: 'file' });
const world = useRelayWorld(npm, { openai: 20, anthropic: 10 }, async (w) => {
  relayKey = (await w.tokens('create', '--name', 'claude-code')).key as string;
});
let relayKey = '';

const claude = (options: { authToken?: true } = {}) =>
  new Anthropic({
    baseURL: world.server.url,
    maxRetries: 0,
    ...(options.authToken ? { authToken: relayKey, apiKey: null } : { apiKey: relayKey }),
  });
const codex = () => new OpenAI({ baseURL: `${world.server.url}/v1`, apiKey: relayKey, maxRetries: 0 });

async function usageRecords(): Promise<Record<string, unknown>[]> {
  // Usage records are written after each response; give the last one a moment.
  await new Promise((r) => setTimeout(r, 300));
  const response = await fetch(`${world.server.url}/api/usage?per_page=100`, {
    headers: { Authorization: `Bearer ${world.adminKey}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { records: Record<string, unknown>[] } }).data.records;
}

describe("POST /v1/messages with Anthropic's SDK", () => {
  it('passes a message through to the world.anthropic channel unchanged, with its key, version and beta header', async () => {
    const before = world.anthropic.requests.length;
    const message = await claude().messages.create(
      { model: 'claude-3-5-haiku-latest', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] },
      { headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' } },
    );

    expect(message.type).toBe('message');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello from the fake' });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    const sent = world.anthropic.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/v1/messages']);
    expect(sent[0]?.headers['x-api-key']).toBe(KEYS.anthropic);
    expect(sent[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent[0]?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent[0]?.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('streams the world.anthropic channel event by event, with a bearer token (authToken) as the credential', async () => {
    const stream = claude({ authToken: true }).messages.stream({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalMessage();

    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the fake' });
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.at(-1)).toBe('message_stop');
  });

  it('converts a message to OpenAI chat for an OpenAI channel and the answer back, streamed and not', async () => {
    const before = world.openai.requests.length;
    const plain = await claude().messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const stream = claude().messages.stream({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const streamed = await stream.finalMessage();

    expect(plain).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o-mini-2024-07-18',
      content: [{ type: 'text', text: 'Hello from the fake' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 11, output_tokens: 7 },
    });
    expect(streamed.content).toMatchObject([{ type: 'text', text: 'Hello from the fake' }]);
    expect(streamed.content).toHaveLength(1);
    expect(streamed.stop_reason).toBe('end_turn');
    expect(streamed.usage.output_tokens).toBe(7);
    const sent = world.openai.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(sent[0]?.body).toMatchObject({
      model: 'gpt-4o-mini-2024-07-18',
      max_tokens: 64,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(sent[1]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('fails over before the first byte, streamed and not', async () => {
    world.faulty.fault({ kind: 'server-error', status: 500 }, 2);
    const plain = await claude().messages.create({
      model: 'failover-model',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const streamed = await claude()
      .messages.stream({ model: 'failover-model', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();

    expect(plain.content[0]).toMatchObject({ text: 'Hello from the fake' });
    expect(streamed.content[0]).toMatchObject({ text: 'Hello from the fake' });
  });

  it("answers errors in Anthropic's envelope, which the SDK reads", async () => {
    const error = await claude()
      .messages.create({ model: 'no-such-model', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('no channel serves model no-such-model') },
    });
  });
});

describe("POST /v1/responses with OpenAI's SDK", () => {
  it('passes a response through to the OpenAI channel, streamed and not', async () => {
    const before = world.openai.requests.length;
    const plain = await codex().responses.create({ model: 'gpt-4o-mini', input: 'Say hello' });
    const stream = await codex().responses.create({ model: 'gpt-4o-mini', input: 'Say hello', stream: true });
    const types: string[] = [];
    let text = '';
    let usage: OpenAI.Responses.ResponseUsage | null | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') usage = event.response.usage;
    }

    expect(plain.output_text).toBe('Hello from the fake');
    expect(plain.usage?.total_tokens).toBe(18);
    expect(text).toBe('Hello from the fake');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(usage?.total_tokens).toBe(18);
    const sent = world.openai.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(sent[0]?.body).toEqual({ model: 'gpt-4o-mini-2024-07-18', input: 'Say hello' });
  });

  it("passes a response through to Azure's v1 Responses API with the deployment as model", async () => {
    const before = world.azure.requests.length;
    const answer = await codex().responses.create({ model: 'azure-gpt', input: 'Hi' });

    expect(answer.output_text).toBe('Hello from the fake');
    const sent = world.azure.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/openai/v1/responses']);
    expect(sent[0]?.headers['api-key']).toBe(KEYS.azure);
    expect(sent[0]?.body?.model).toBe('gpt-4o');
  });

  it('fails over before the first byte', async () => {
    world.faulty.fault({ kind: 'server-error', status: 502 });
    const answer = await codex().responses.create({ model: 'failover-model', input: 'Hi' });

    expect(answer.output_text).toBe('Hello from the fake');
  });

  it('answers 503 naming why when only providers without the Responses API list the model', async () => {
    const error = await codex()
      .responses.create({ model: 'claude-3-5-haiku-latest', input: 'Hi' })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("do not serve OpenAI's Responses API");
  });
});

describe('usage and secrets', () => {
  it('records usage for both endpoints, streamed and not, with the tokens the upstreams reported', async () => {
    const records = await usageRecords();
    const of = (endpoint: string, model: string, stream: boolean) =>
      records.find((r) => r.endpoint === endpoint && r.requestedModel === model && r.stream === stream);

    expect(of('messages', 'claude-3-5-haiku-latest', false)).toMatchObject({ status: 200, promptTokens: 12 });
    expect(of('messages', 'claude-3-5-haiku-latest', true)).toMatchObject({ status: 200 });
    expect(of('messages', 'gpt-4o-mini', false)).toMatchObject({ promptTokens: 11, completionTokens: 7 });
    expect(of('messages', 'gpt-4o-mini', true)).toMatchObject({ promptTokens: 11, completionTokens: 7 });
    expect(of('responses', 'gpt-4o-mini', false)).toMatchObject({
      promptTokens: 13,
      completionTokens: 5,
      totalTokens: 18,
    });
    expect(of('responses', 'gpt-4o-mini', true)).toMatchObject({
      promptTokens: 13,
      completionTokens: 5,
      totalTokens: 18,
    });
    const failovers = records.filter(
      (r) => r.requestedModel === 'failover-model' && (r.attempts as unknown[]).length === 2 && r.status === 200,
    );
    expect(new Set(failovers.map((r) => r.endpoint))).toEqual(new Set(['messages', 'responses']));
  });

  it("never shows a channel key or the relay key in the server's log or the usage API", async () => {
    const usage = await (
      await fetch(`${world.server.url}/api/usage?per_page=100`, {
        headers: { Authorization: `Bearer ${world.adminKey}` },
      })
    ).text();
    const log = world.server.output().slice(world.server.output().indexOf('listening on'));
    for (const secret of [...Object.values(KEYS), relayKey.slice(3), world.adminKey]) {
      expect(log).not.toContain(secret);
      expect(usage).not.toContain(secret);
    }
  });
});
