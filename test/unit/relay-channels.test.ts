import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowList } from '#shared/allow-list';
import { createLogger } from '#shared/logger';
import { createRelay } from '#shared/relay/relay';
import { captureOutput } from '#test/support/capture-output';
import { type FakeUpstream, startFakeAnthropic, startFakeAzure, startFakeOpenAi } from '#test/support/fake-upstreams';
import { CALLER, channel, chatRequest, complete, readText, sseDataOf, testRelay } from '#test/support/relay-fixtures';

let openai: FakeUpstream;
let azure: FakeUpstream;
let anthropic: FakeUpstream;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  azure = await startFakeAzure({ key: 'azure-secret-key-0001' });
  anthropic = await startFakeAnthropic({
    key: 'anthropic-secret-key-0001',
    reportModel: 'claude-sonnet-4-5-20250929',
    toolCall: { name: 'lookup', arguments: { q: 'cats' } },
  });
});
afterAll(async () => {
  await Promise.all([openai.close(), azure.close(), anthropic.close()]);
});
afterEach(() => {
  for (const fake of [openai, azure, anthropic]) {
    fake.clearFaults();
    fake.requests.length = 0;
  }
});

describe('channel settings on every attempt', () => {
  it('replaces the first system message with the systemPrompt, else prepends one', async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 's', baseUrl: openai.url, settings: { systemPrompt: 'Be kind.' } })]);
    // act
    await readText(
      await relay.handle(
        chatRequest({
          messages: [
            { role: 'system', content: 'old' },
            { role: 'user', content: 'hi' },
          ],
        }),
      ),
    );
    await readText(await relay.handle(chatRequest({ messages: [{ role: 'user', content: 'hi' }] })));
    // assert
    expect(openai.requests[0]?.body?.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(openai.requests[1]?.body?.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('sends headerOverride headers and merges paramOverride into the body', async () => {
    // prepare
    const { relay } = testRelay([
      channel({
        id: 'h',
        baseUrl: openai.url,
        settings: { headerOverride: { 'x-team': 'blue' }, paramOverride: { temperature: 0, seed: 7 } },
      }),
    ]);
    // act
    await readText(await relay.handle(chatRequest({ temperature: 1 })));
    // assert
    expect(openai.requests[0]?.headers['x-team']).toBe('blue');
    expect(openai.requests[0]?.body).toMatchObject({ temperature: 0, seed: 7 });
  });

  it('maps the upstream status returned to the caller through statusCodeMapping', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'map', baseUrl: openai.url, settings: { statusCodeMapping: { '400': '422' } } }),
    ]);
    openai.fault({ kind: 'status', status: 400 });
    // act
    const response = await relay.handle(chatRequest({}));
    await readText(response);
    // assert
    expect(response.status).toBe(422);
  });
});

describe('outbound address checks', () => {
  it('never calls a channel whose base URL is on loopback unless it is allow-listed', async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 'loop', baseUrl: openai.url })], {
      allowedHosts: parseAllowList(['ollama.internal']),
    });
    // act
    const response = await relay.handle(chatRequest({}));
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(openai.requests).toHaveLength(0);
    expect(response.status).toBe(503);
    expect(body.error.message).toContain('no channel serves model gpt-4o-mini');
    expect(record.attempts).toEqual([{ channelId: 'loop', status: 0, errorClass: 'refused-address' }]);
  });

  it('never calls a host that resolves to the metadata address, even when allow-listed, and fails over', async () => {
    // prepare
    const resolved: string[] = [];
    const { relay } = testRelay(
      [
        channel({ id: 'meta', baseUrl: 'http://metadata.example:80', settings: { priority: 5 } }),
        channel({ id: 'good', baseUrl: `http://fake.example:${openai.port}` }),
      ],
      {
        allowedHosts: parseAllowList(['metadata.example', 'fake.example']),
        resolve: async (host) => {
          resolved.push(host);
          return host === 'metadata.example'
            ? [{ address: '169.254.169.254', family: 4 }]
            : [{ address: '127.0.0.1', family: 4 }];
        },
      },
    );
    // act
    const response = await relay.handle(chatRequest({}));
    await readText(response);
    const record = await response.done;
    // assert: the only request the fake got is the good channel's (the same address that was checked)
    expect(response.status).toBe(200);
    expect(resolved).toEqual(['metadata.example', 'fake.example']);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]?.headers.host).toBe(`fake.example:${openai.port}`);
    expect(record.attempts[0]).toEqual({ channelId: 'meta', status: 0, errorClass: 'refused-address' });
  });

  it('refuses a link-local IP literal and its IPv4-mapped IPv6 form', async () => {
    // prepare
    const { relay } = testRelay(
      [
        channel({ id: 'v4', baseUrl: 'http://169.254.169.254' }),
        channel({ id: 'v6', baseUrl: 'http://[::ffff:169.254.169.254]' }),
      ],
      { allowedHosts: parseAllowList(['169.254.0.0/16']) },
    );
    // act
    const response = await relay.handle(chatRequest({}));
    await readText(response);
    const record = await response.done;
    // assert
    expect(record.attempts.map((a) => a.errorClass)).toEqual(['refused-address', 'refused-address']);
  });
});

describe('channel health through the relay', () => {
  it('cools a channel down after 3 failures in a row and brings it back at the first success', async () => {
    // prepare
    const { relay, health, clock } = testRelay([channel({ id: 'flaky', baseUrl: openai.url })], { maxAttempts: 1 });
    openai.fault({ kind: 'server-error' }, 3);
    // act: three failures
    for (let i = 0; i < 3; i++) await complete(await relay.handle(chatRequest({})));
    const cooling = await relay.handle(chatRequest({}));
    const coolingBody = JSON.parse(await readText(cooling));
    // assert
    expect(cooling.status).toBe(503);
    expect(coolingBody.error.message).toContain('cooling down or failing');
    expect(openai.requests).toHaveLength(3);
    // act: after the cool-down, one success resets the channel
    clock.advance(61_000);
    const recovered = await relay.handle(chatRequest({}));
    await readText(recovered);
    await recovered.done;
    // assert
    expect(recovered.status).toBe(200);
    expect(health.items.has('flaky')).toBe(false);
  });

  it('auto-disables a channel only after 3 invalid-key failures in a row', async () => {
    // prepare
    const { relay, health } = testRelay([channel({ id: 'badkey', baseUrl: openai.url })], { maxAttempts: 1 });
    openai.fault({ kind: 'invalid-key' }, 3);
    // act
    await complete(await relay.handle(chatRequest({})));
    const afterOne = health.autoDisabled.has('badkey');
    await complete(await relay.handle(chatRequest({})));
    await complete(await relay.handle(chatRequest({})));
    // assert
    expect(afterOne).toBe(false);
    expect(health.autoDisabled.has('badkey')).toBe(true);
  });

  it('does not count a 400 against the channel', async () => {
    // prepare
    const { relay, health } = testRelay([channel({ id: 'ok', baseUrl: openai.url })]);
    openai.fault({ kind: 'status', status: 400 });
    // act
    await complete(await relay.handle(chatRequest({})));
    // assert
    expect(health.items.size).toBe(0);
  });
});

describe('Azure and Anthropic through the relay', () => {
  it('calls Azure at the deployment path with the api-version and api-key', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'az', provider: 'azure', baseUrl: azure.url, key: 'azure-secret-key-0001', models: ['gpt-4.1'] }),
    ]);
    // act
    const response = await relay.handle(chatRequest({ model: 'gpt-4.1' }));
    await readText(response);
    // assert
    expect(response.status).toBe(200);
    expect(azure.requests[0]?.path).toBe('/openai/deployments/gpt-41/chat/completions');
    expect(azure.requests[0]?.query.get('api-version')).toBeTruthy();
    expect(azure.requests[0]?.headers['api-key']).toBe('azure-secret-key-0001');
  });

  it('converts a chat request to Anthropic and the answer back to a chat.completion', async () => {
    // prepare
    const { relay } = testRelay([
      channel({
        id: 'an',
        provider: 'anthropic',
        baseUrl: anthropic.url,
        key: 'anthropic-secret-key-0001',
        models: ['claude-sonnet-4-5'],
      }),
    ]);
    // act
    const response = await relay.handle(
      chatRequest({
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'hi' },
        ],
      }),
    );
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(anthropic.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(anthropic.requests[0]?.body).toMatchObject({ system: 'S', max_tokens: 4096 });
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ finish_reason: 'tool_calls', message: { content: 'Hello from the fake' } }],
      usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
    });
    expect(record).toMatchObject({ promptTokens: 12, completionTokens: 6 });
  });

  it('converts an Anthropic stream to chat.completion.chunk events ending with [DONE]', async () => {
    // prepare
    const { relay } = testRelay([
      channel({
        id: 'an',
        provider: 'anthropic',
        baseUrl: anthropic.url,
        key: 'anthropic-secret-key-0001',
        models: ['claude-sonnet-4-5'],
      }),
    ]);
    // act
    const response = await relay.handle(chatRequest({ model: 'claude-sonnet-4-5', stream: true }));
    const events = sseDataOf(await readText(response));
    const record = await response.done;
    // assert
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello from the fake');
    const args = chunks
      .flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])
      .map((t) => t.function.arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ q: 'cats' });
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(record).toMatchObject({ promptTokens: 12, completionTokens: 6, totalTokens: 18 });
  });

  it('ends an Anthropic stream that sends an error event with an OpenAI error event', async () => {
    // prepare
    const { relay } = testRelay([
      channel({
        id: 'an',
        provider: 'anthropic',
        baseUrl: anthropic.url,
        key: 'anthropic-secret-key-0001',
        models: ['c'],
      }),
    ]);
    anthropic.fault({ kind: 'stream-error-event' });
    // act
    const response = await relay.handle(chatRequest({ model: 'c', stream: true }));
    const events = sseDataOf(await readText(response));
    // assert
    expect(JSON.parse(events.at(-1) as string).error.message).toBe('Overloaded');
  });

  it('does not route embeddings to an Anthropic channel', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'an', provider: 'anthropic', baseUrl: anthropic.url, models: ['voyage-embedding'] }),
    ]);
    // act
    const response = await relay.handle(
      chatRequest({ model: 'voyage-embedding', input: 'x' }, { endpoint: 'embeddings' }),
    );
    await readText(response);
    // assert
    expect(response.status).toBe(503);
    expect(anthropic.requests).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('never puts a channel key in a response body, a usage record or a log line', async () => {
    // prepare
    const key = 'sk-secret-never-shown-0123456789';
    const lines: string[] = [];
    const logger = createLogger('relay-test', 'DEBUG');
    const { relay, usage } = testRelay(
      [
        channel({ id: 'k1', baseUrl: openai.url, key, settings: { priority: 1 } }),
        channel({ id: 'k2', baseUrl: `http://user:pa55word-secret@127.0.0.1:${openai.port}`, key: `${key}-2` }),
      ],
      { logger },
    );
    openai.fault({ kind: 'status', status: 500, body: { error: { message: `bad key ${key}` } } });
    openai.fault({ kind: 'status', status: 500, body: { error: { message: `bad ${key}-2 pa55word-secret` } } });
    const output = captureOutput();
    // act
    let text: string;
    try {
      const response = await relay.handle(chatRequest({}));
      text = await readText(response);
      await response.done;
    } finally {
      output.restore();
    }
    lines.push(output.text());
    // assert
    expect(text).toContain('bad');
    for (const secret of [key, 'pa55word-secret']) {
      expect(text).not.toContain(secret);
      expect(JSON.stringify(usage.records)).not.toContain(secret);
      expect(lines.join('')).not.toContain(secret);
    }
    expect(lines.join('')).toContain('upstream error');
  });
});

describe('models list and channel test', () => {
  it('lists the models of enabled, servable channels in the caller groups, filtered by the key allow-list', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'a', models: ['m1', 'm2'], settings: { modelMapping: { alias: 'm1' } } }),
      channel({ id: 'b', models: ['m3'], status: 'disabled' }),
      channel({ id: 'c', models: ['m4'], provider: 'tencent' }),
      channel({ id: 'd', models: ['m5'], settings: { groups: ['vip'] } }),
    ]);
    // act
    const all = await relay.listModels(CALLER);
    const allowed = await relay.listModels({ keyId: 'k', groups: ['default', 'vip'], models: ['m1', 'm5', 'm3'] });
    // assert
    expect(all).toEqual(['alias', 'm1', 'm2']);
    expect(allowed).toEqual(['m1', 'm5']);
  });

  it('tests a channel with its testModel and reports status, latency and the scrubbed error', async () => {
    // prepare
    const relay = createRelay({
      channels: { snapshot: () => Promise.reject(new Error('not used')) },
      health: {
        view: async () => ({ get: () => undefined, isCoolingDown: () => false }),
        recordFailure: async () => {},
        recordSuccess: async () => {},
      },
      usage: { write: async () => {} },
      clock: { now: () => Date.now() },
      random: Math.random,
      allowedHosts: parseAllowList(['127.0.0.1']),
    });
    const key = 'sk-secret-test-0123456789';
    const tested = channel({ id: 't', baseUrl: openai.url, key, models: ['a', 'b'], settings: { testModel: 'b' } });
    openai.fault({ kind: 'status', status: 401, body: { error: { message: `invalid key ${key}` } } });
    // act
    const failed = await relay.testChannel(tested);
    const passed = await relay.testChannel(
      channel({ id: 'e', baseUrl: openai.url, models: ['text-embedding-3-small'] }),
    );
    // assert
    expect(failed).toMatchObject({ ok: false, status: 401, model: 'b', message: 'invalid key ***' });
    expect(openai.requests[0]?.body).toMatchObject({ model: 'b', max_tokens: 8 });
    expect(passed).toMatchObject({ ok: true, status: 200, model: 'text-embedding-3-small' });
    expect(openai.requests[1]?.path).toBe('/v1/embeddings');
    relay.close();
  });
});
