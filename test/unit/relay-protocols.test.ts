import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAnthropicError } from '#functions/relay/anthropic-errors';
import type { RelayChannel } from '#shared/relay/contract';
import { bedrockMessages } from '#shared/relay/providers/bedrock';
import { endpointAdapter } from '#shared/relay/providers/endpoints';
import { ChatToMessagesStream, chatToMessage, messagesToChat } from '#shared/relay/providers/messages-via-chat';
import { anthropicMessages } from '#shared/relay/providers/passthrough';
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAi } from '#test/support/fake-upstreams';
import { chatRequest, complete, channel as relayChannel, testRelay } from '#test/support/relay-fixtures';

// The conversions and passthroughs behind /v1/messages and /v1/responses (docs/relay.md, "Endpoints").

const channel = (provider: string, baseUrl = 'https://upstream.example'): RelayChannel => ({
  id: 'c1',
  provider,
  name: 'c',
  baseUrl,
  key: 'sk-channel-key-0123456789',
  models: ['m'],
  status: 'enabled',
  settings: {},
});

const events = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      const [name, data] = e.split('\n');
      return { event: name?.slice('event: '.length), data: JSON.parse(data?.slice('data: '.length) ?? '{}') };
    });

describe('Messages to OpenAI chat', () => {
  it('converts system, images, tool use and tool results, tools and tool_choice', () => {
    const chat = messagesToChat(
      {
        model: 'm',
        max_tokens: 100,
        system: [{ type: 'text', text: 'Be brief.' }],
        stop_sequences: ['END'],
        tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } }],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }] },
        ],
        stream: true,
      },
      true,
    );

    expect(chat).toEqual({
      model: 'm',
      max_tokens: 100,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
      ],
    });
  });

  it('converts a chat completion with a tool call back to a message with a tool_use block', () => {
    const message = chatToMessage(
      {
        id: 'chatcmpl-1',
        model: 'gpt-4o',
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      },
      'm',
    );

    expect(message).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 2 },
    });
  });

  it("streams chat chunks as Anthropic's events: text then tool use blocks, stop reason and usage at the end", () => {
    const stream = new ChatToMessagesStream('m');
    const chunk = (delta: object, finish: string | null = null, usage?: object) => ({
      data: JSON.stringify({
        id: 'chatcmpl-1',
        model: 'gpt-4o',
        choices: usage ? [] : [{ delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      }),
    });
    const out = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hi' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
      chunk({}, null, { prompt_tokens: 3, completion_tokens: 2 }),
      { data: '[DONE]' },
    ].flatMap((e) => stream.relay(e));
    out.push(...stream.end());

    const parsed = events(out.join(''));
    expect(parsed.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(parsed[4]?.data).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'f' } });
    expect(parsed[6]?.data).toMatchObject({ index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } });
    expect(parsed[8]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(stream.usage()).toEqual({ promptTokens: 3, completionTokens: 2, totalTokens: 5 });
  });
});

describe('the adapters of each endpoint', () => {
  it('passes Messages to anthropic channels with the caller version, else the default', () => {
    const withVersion = anthropicMessages.buildRequest({
      channel: channel('anthropic'),
      endpoint: 'messages',
      body: { model: 'm' },
      stream: false,
      headers: { 'anthropic-version': '2024-01-01', 'anthropic-beta': 'b1' },
    });
    const without = anthropicMessages.buildRequest({
      channel: channel('anthropic'),
      endpoint: 'messages',
      body: {},
      stream: false,
    });

    expect(withVersion.url).toBe('https://upstream.example/v1/messages');
    expect(withVersion.headers).toMatchObject({
      'x-api-key': 'sk-channel-key-0123456789',
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'b1',
    });
    expect(without.headers['anthropic-version']).toBe('2023-06-01');
    expect(without.headers['anthropic-beta']).toBeUndefined();
  });

  it('serves /v1/responses on openai, azure, custom and openai-compatible only', () => {
    const serving = ['openai', 'azure', 'custom', 'openai-compatible', 'deepseek', 'anthropic', 'gemini', 'aws'].filter(
      (p) => endpointAdapter(p, 'responses') !== undefined,
    );
    const url = (p: string) =>
      endpointAdapter(p, 'responses')?.buildRequest({
        channel: channel(p),
        endpoint: 'responses',
        body: { model: 'gpt-4.1' },
        stream: false,
      });

    expect(serving).toEqual(['openai', 'azure', 'custom', 'openai-compatible']);
    expect(url('openai')?.url).toBe('https://upstream.example/v1/responses');
    expect(url('openai-compatible')?.url).toBe('https://upstream.example/responses');
    expect(url('azure')).toMatchObject({
      url: 'https://upstream.example/openai/v1/responses',
      body: '{"model":"gpt-41"}',
    });
  });

  it('serves /v1/messages on anthropic, aws and every OpenAI-protocol chat provider, never on unservable ones', () => {
    expect(endpointAdapter('anthropic', 'messages')).toBe(anthropicMessages);
    expect(endpointAdapter('aws', 'messages')).toBe(bedrockMessages);
    expect(
      endpointAdapter('deepseek', 'messages')?.buildRequest({
        channel: channel('deepseek'),
        endpoint: 'messages',
        body: { model: 'm', messages: [] },
        stream: false,
      }).url,
    ).toBe('https://upstream.example/v1/chat/completions');
    expect(endpointAdapter('tencent', 'messages')).toBeUndefined();
  });
});

describe("Anthropic's error envelope", () => {
  it("converts OpenAI's envelope, keeps Anthropic's, wraps text", () => {
    const openAi = JSON.stringify({
      error: { message: 'no channel', type: 'service_unavailable', code: 'x', param: null },
    });
    const anthropic = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } });

    expect(JSON.parse(toAnthropicError(503, openAi))).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'no channel' },
    });
    expect(JSON.parse(toAnthropicError(401, openAi)).error.type).toBe('authentication_error');
    expect(JSON.parse(toAnthropicError(429, openAi)).error.type).toBe('rate_limit_error');
    expect(toAnthropicError(529, anthropic)).toBe(anthropic);
    expect(JSON.parse(toAnthropicError(502, '<html>'))).toEqual({
      type: 'error',
      error: { type: 'api_error', message: '<html>' },
    });
  });
});

describe('/v1/messages streams that fail after their first byte', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
  });
  afterAll(async () => {
    await Promise.all([openai.close(), anthropic.close()]);
  });

  const messages = (model: string) =>
    chatRequest(
      { model, max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { endpoint: 'messages' },
    );

  it("end with Anthropic's error event when an OpenAI upstream drops mid-stream, and pass an anthropic one's on", async () => {
    const { relay } = testRelay([
      relayChannel({ id: 'oa', baseUrl: openai.url, models: ['gpt-4o-mini'] }),
      relayChannel({ id: 'an', provider: 'anthropic', baseUrl: anthropic.url, models: ['claude'] }),
    ]);
    openai.fault({ kind: 'drop-mid-stream', afterEvents: 2 });
    anthropic.fault({ kind: 'stream-error-event' });

    const dropped = await complete(await relay.handle(messages('gpt-4o-mini')));
    const passed = await complete(await relay.handle(messages('claude')));

    const droppedEvents = events(dropped.text);
    expect(droppedEvents[0]?.event).toBe('message_start');
    expect(droppedEvents.at(-1)).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'api_error', message: 'the upstream stream ended unexpectedly' } },
    });
    expect(dropped.record).toMatchObject({ endpoint: 'messages', status: 200 });
    expect(events(passed.text).at(-1)).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    expect(dropped.text + passed.text).not.toContain('sk-secret-');
  });
});
