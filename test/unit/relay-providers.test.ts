import { describe, expect, it } from 'vitest';
import { AnthropicStreamConverter, fromAnthropicResponse, toAnthropicRequest } from '#shared/relay/providers/anthropic';
import { AZURE_DEFAULT_API_VERSION, azureDeploymentName } from '#shared/relay/providers/azure';
import { adapterFor, isServable, servabilityReason } from '#shared/relay/providers/index';
import { channel } from '#test/support/relay-fixtures';

const urlOf = (provider: string, baseUrl: string, endpoint: 'chat' | 'embeddings' = 'chat') =>
  adapterFor(provider)?.buildRequest({
    channel: channel({ id: 'x', provider, baseUrl }),
    endpoint,
    body: { model: 'm' },
    stream: false,
  }).url;

describe('relay providers', () => {
  it.each([
    ['openai', '', 'https://api.openai.com/v1/chat/completions'],
    ['custom', 'https://gw.example.com/', 'https://gw.example.com/v1/chat/completions'],
    ['openai-compatible', 'https://gw.example.com/api/v3', 'https://gw.example.com/api/v3/chat/completions'],
    ['deepseek', 'https://api.deepseek.com', 'https://api.deepseek.com/v1/chat/completions'],
    ['groq', '', 'https://api.groq.com/openai/v1/chat/completions'],
    ['openrouter', 'https://openrouter.ai/api', 'https://openrouter.ai/api/v1/chat/completions'],
    ['zhipu', 'https://open.bigmodel.cn', 'https://open.bigmodel.cn/api/paas/v4/chat/completions'],
    ['ali', '', 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions'],
    ['baidu-v2', '', 'https://qianfan.baidubce.com/v2/chat/completions'],
    ['doubao', '', 'https://ark.cn-beijing.volces.com/api/v3/chat/completions'],
    ['ollama', 'http://localhost:11434', 'http://localhost:11434/v1/chat/completions'],
    ['gemini', '', 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions'],
    [
      'gemini-openai',
      'https://generativelanguage.googleapis.com/v1beta/openai',
      'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions',
    ],
  ])('sends %s chat requests to its version path (%s)', (provider, base, expected) => {
    // act
    const url = urlOf(provider, base);
    // assert
    expect(url).toBe(expected);
  });

  it('sends the key as a bearer token and the organization as OpenAI-Organization', () => {
    // act
    const request = adapterFor('openai')?.buildRequest({
      channel: channel({ id: 'o', settings: { organization: 'org-1' } }),
      endpoint: 'embeddings',
      body: { model: 'text-embedding-3-small', input: 'a' },
      stream: false,
    });
    // assert
    expect(request?.url).toBe('https://api.openai.com/v1/embeddings');
    expect(request?.headers.authorization).toBe('Bearer sk-secret-o-0123456789abcdef');
    expect(request?.headers['openai-organization']).toBe('org-1');
  });

  it('builds Azure deployment URLs from the model without dots, with the api-version and api-key', () => {
    // act
    const request = adapterFor('azure')?.buildRequest({
      channel: channel({
        id: 'az',
        provider: 'azure',
        baseUrl: 'https://r.openai.azure.com/',
        settings: { apiVersion: '2024-02-01' },
      }),
      endpoint: 'chat',
      body: { model: 'gpt-3.5-turbo' },
      stream: false,
    });
    // assert
    expect(request?.url).toBe(
      'https://r.openai.azure.com/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-02-01',
    );
    expect(request?.headers['api-key']).toBe('sk-secret-az-0123456789abcdef');
    expect(request?.headers.authorization).toBeUndefined();
    expect(azureDeploymentName('gpt-4.1-mini')).toBe('gpt-41-mini');
    expect(AZURE_DEFAULT_API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('says which providers are not servable and why', () => {
    // assert
    expect(isServable('anthropic')).toBe(true);
    expect(servabilityReason('anthropic')).toBeUndefined();
    expect(isServable('aws')).toBe(true);
    expect(isServable('tencent')).toBe(false);
    expect(servabilityReason('tencent')).toMatch(/TC3/);
    expect(servabilityReason('midjourney')).toMatch(/not servable yet/);
    expect(isServable('__proto__')).toBe(false);
  });

  it('does not serve embeddings through Anthropic', () => {
    // assert
    expect(adapterFor('anthropic')?.endpoints).toEqual(['chat']);
  });
});

describe('Anthropic conversion', () => {
  it('converts an OpenAI chat request to a Messages request', () => {
    // prepare
    const body = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"q":"cat"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
      tools: [{ type: 'function', function: { name: 'look', description: 'Looks', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      stop: 'END',
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: 1,
    };
    // act
    const request = toAnthropicRequest(body, true);
    // assert
    expect(request).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'Be brief.\nAnswer in French.',
      max_tokens: 4096,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'look', input: { q: 'cat' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a cat' }] },
      ],
      tools: [{ name: 'look', description: 'Looks', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      stop_sequences: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      stream: true,
    });
  });

  it('keeps the caller max_tokens', () => {
    // act
    const request = toAnthropicRequest(
      { model: 'c', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 },
      false,
    );
    // assert
    expect(request.max_tokens).toBe(10);
    expect(request.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('converts a Messages response with a tool use to a chat.completion with usage', () => {
    // act
    const out = fromAnthropicResponse(
      {
        id: 'msg_1',
        model: 'claude-x',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'look', input: { q: 'cat' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 4 },
      },
      'claude-requested',
    );
    // assert
    expect(out).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion',
      model: 'claude-x',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Let me look.',
            tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'look', arguments: '{"q":"cat"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
    });
  });

  it('converts stream events to chat.completion.chunk objects with a usage chunk at the end', () => {
    // prepare
    const converter = new AnthropicStreamConverter('claude-requested');
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_2', model: 'claude-x', usage: { input_tokens: 9, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'f', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '1}' } },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ];
    // act
    const chunks = events.flatMap((e) => converter.convert({ event: e.type, data: JSON.stringify(e) }));
    // assert
    const deltas = chunks.map((c) => (c.choices as { delta?: unknown; finish_reason?: unknown }[])[0]);
    expect(
      chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'claude-x' && c.id === 'msg_2'),
    ).toBe(true);
    expect(deltas[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(deltas[1]?.delta).toEqual({ content: 'Hi' });
    expect(deltas[2]?.delta).toEqual({
      tool_calls: [{ index: 0, id: 'toolu_2', type: 'function', function: { name: 'f', arguments: '' } }],
    });
    expect(deltas[3]?.delta).toEqual({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] });
    expect(deltas[5]?.finish_reason).toBe('tool_calls');
    expect(chunks[6]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
    });
    expect(chunks).toHaveLength(7);
  });

  it('passes extended thinking on as reasoning_content, in answers and in streams', () => {
    // prepare
    const converter = new AnthropicStreamConverter('c');
    const delta = { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } };
    // act
    const answer = fromAnthropicResponse(
      {
        content: [
          { type: 'thinking', thinking: 'Let me think.', signature: 's' },
          { type: 'text', text: 'Yes.' },
        ],
      },
      'c',
    );
    const chunks = converter.convert({ data: JSON.stringify(delta) });
    // assert
    expect(answer).toMatchObject({ choices: [{ message: { content: 'Yes.', reasoning_content: 'Let me think.' } }] });
    expect(chunks[0]).toMatchObject({ choices: [{ delta: { reasoning_content: 'Hmm.' } }] });
  });

  it('raises an error event in a stream as an upstream stream error', () => {
    // prepare
    const converter = new AnthropicStreamConverter('c');
    const event = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    // act
    const act = () => converter.convert({ event: 'error', data: JSON.stringify(event) });
    // assert
    expect(act).toThrow('Overloaded');
  });
});
