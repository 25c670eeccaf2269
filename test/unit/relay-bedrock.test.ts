import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RelayChannel } from '#shared/relay/contract';
import { isServable } from '#shared/relay/providers/index';
import { type FakeBedrock, startFakeBedrock } from '#test/support/fake-bedrock';
import { channel, chatRequest, complete, sseDataOf, testRelay } from '#test/support/relay-fixtures';

// Bedrock through the relay (docs/relay.md, "Providers"): Converse and ConverseStream at a fake Bedrock Runtime that
// verifies every SigV4 signature with the channel's secret (test/support/fake-bedrock.ts).

const KEYS = { accessKeyId: 'AKIAFAKEBEDROCK00002', secretAccessKey: 'bedrockSecret/0123456789abcdefghijKLMNOPQ' };
const ROLE = {
  accessKeyId: 'ASIAFAKEBEDROCKROLE02',
  secretAccessKey: 'roleSecret/zyxwvutsrq0123456789ABCDEFGHIJ',
  sessionToken: 'IQoJb3JpZ2luX2VjEFakeRoleSessionToken0123456789abcdefghijklmnopqrstuvwxyz==',
};

let upstream: FakeBedrock;
let roleUpstream: FakeBedrock;
let tools: FakeBedrock;

beforeAll(async () => {
  [upstream, roleUpstream, tools] = await Promise.all([
    startFakeBedrock({ credentials: KEYS, region: 'us-east-1' }),
    startFakeBedrock({ credentials: ROLE, region: 'eu-west-1' }),
    startFakeBedrock({
      credentials: KEYS,
      region: 'us-east-1',
      toolCall: { name: 'get_weather', arguments: { city: 'Paris' } },
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([upstream.close(), roleUpstream.close(), tools.close()]);
});

const aws = (id: string, over: Partial<RelayChannel> = {}) =>
  channel({
    id,
    provider: 'aws',
    baseUrl: upstream.url,
    key: `${KEYS.accessKeyId}|${KEYS.secretAccessKey}|us-east-1`,
    models: ['claude-3-5-sonnet-20240620'],
    ...over,
  });

const ask = (body: Record<string, unknown> = {}, endpoint: 'chat' | 'messages' | 'count_tokens' = 'chat') =>
  chatRequest({ model: 'claude-3-5-sonnet-20240620', ...body }, { endpoint });

describe('Bedrock channels through the relay', () => {
  it('is servable', () => {
    expect(isServable('aws')).toBe(true);
  });

  it('answers chat through Converse, signed, with the inference profile of the channel region', async () => {
    const { relay } = testRelay([aws('b1')]);
    const before = upstream.requests.length;

    const answer = await complete(
      await relay.handle(
        ask({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hi' },
          ],
          max_tokens: 32,
          temperature: 0.2,
          stop: 'END',
        }),
      ),
    );

    expect(answer.record.status).toBe(200);
    const json = JSON.parse(answer.text);
    expect(json.object).toBe('chat.completion');
    expect(json.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'Hello from Bedrock' },
      finish_reason: 'stop',
    });
    expect(json.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    expect(answer.record).toMatchObject({ promptTokens: 11, completionTokens: 7, totalTokens: 18 });
    const sent = upstream.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/model/us.anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse']);
    expect(sent[0]?.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 32, temperature: 0.2, stopSequences: ['END'] },
    });
  });

  it('streams ConverseStream as chat chunks, usage only when asked for', async () => {
    const { relay } = testRelay([aws('b2')]);

    const plain = await complete(await relay.handle(ask({ stream: true })));
    const counted = await complete(await relay.handle(ask({ stream: true, stream_options: { include_usage: true } })));

    const chunks = sseDataOf(plain.text);
    expect(chunks.at(-1)).toBe('[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c));
    expect(parsed.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello from Bedrock');
    expect(parsed.at(-1).choices[0].finish_reason).toBe('stop');
    expect(plain.text).not.toContain('"usage"');
    expect(plain.record).toMatchObject({ stream: true, promptTokens: 11, completionTokens: 7 });
    expect(counted.text).toContain('"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}');
    expect(upstream.requests.at(-1)?.path).toMatch(/\/converse-stream$/);
  });

  it('converts tools and tool calls both ways, streamed and not', async () => {
    const { relay } = testRelay([aws('b3', { baseUrl: tools.url })]);
    const body = {
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
    };

    const whole = JSON.parse((await complete(await relay.handle(ask(body)))).text);
    const streamed = sseDataOf((await complete(await relay.handle(ask({ ...body, stream: true })))).text);

    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.choices[0].message.tool_calls).toEqual([
      { id: 'tooluse_fake', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(tools.requests[0]?.body?.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather',
            inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
          },
        },
      ],
      toolChoice: { any: {} },
    });
    const calls = streamed.filter((c) => c.includes('tool_calls')).map((c) => JSON.parse(c).choices[0]);
    expect(calls[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      id: 'tooluse_fake',
      function: { name: 'get_weather' },
    });
    expect(calls.at(-1).finish_reason).toBe('tool_calls');
  });

  it("answers Anthropic's Messages through Converse, streamed and not", async () => {
    const { relay } = testRelay([aws('b4')]);
    const messages = { max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], system: 'Be brief.' };

    const whole = JSON.parse((await complete(await relay.handle(ask(messages, 'messages')))).text);
    const streamed = await complete(await relay.handle(ask({ ...messages, stream: true }, 'messages')));

    expect(whole).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from Bedrock' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 11, output_tokens: 7 },
    });
    expect(streamed.text).toContain('event: message_start');
    expect(streamed.text).toContain('"text_delta"');
    expect(streamed.text).toContain('event: message_stop');
    expect(streamed.record).toMatchObject({ promptTokens: 11, completionTokens: 7 });
  });

  it("counts a Messages request's tokens with Bedrock's CountTokens on the foundation model", async () => {
    const { relay } = testRelay([aws('b8')]);
    const before = upstream.requests.length;

    const answer = await complete(
      await relay.handle(ask({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }, 'count_tokens')),
    );

    expect(JSON.parse(answer.text)).toEqual({ input_tokens: 42 });
    const sent = upstream.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/count-tokens']);
    expect(sent[0]?.body).toEqual({
      input: { converse: { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], system: [{ text: 'Be brief.' }] } },
    });
  });

  it('fails over to the next channel on throttling and on a reset, never twice to the same', async () => {
    const backup = await startFakeBedrock({ credentials: KEYS, region: 'us-east-1', reply: 'from backup' });
    const { relay } = testRelay([aws('first', { settings: { priority: 10 } }), aws('second', { baseUrl: backup.url })]);
    upstream.fault({ kind: 'rate-limited' });

    const answer = await complete(await relay.handle(ask({ stream: true })));
    await backup.close();

    expect(answer.text).toContain('from');
    expect(answer.record.attempts).toEqual([
      { channelId: 'first', status: 429, errorClass: 'rate-limited' },
      { channelId: 'second', status: 200 },
    ]);
  });

  it("signs with the function's role for a channel that names no key", async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ROLE.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', ROLE.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', ROLE.sessionToken);
    const { relay } = testRelay([
      aws('role', { key: '', baseUrl: roleUpstream.url, settings: { region: 'eu-west-1' } }),
    ]);
    // The form an operator can set (a key is never empty after an edit): no access key, no secret, the region.
    const named = aws('role-named', { key: '||eu-west-1', baseUrl: roleUpstream.url });

    const answer = await complete(await relay.handle(ask()));
    const test = await relay.testChannel(named);
    vi.unstubAllEnvs();

    expect(answer.record.status).toBe(200);
    expect(roleUpstream.modelIds.at(-2)).toBe('eu.anthropic.claude-3-5-sonnet-20240620-v1:0');
    expect(roleUpstream.requests.at(-2)?.headers['x-amz-security-token']).toBe(ROLE.sessionToken);
    expect(test).toMatchObject({ ok: true, status: 200 });
    expect(roleUpstream.requests.at(-1)?.headers['x-amz-security-token']).toBe(ROLE.sessionToken);
  });

  it('puts no secret, session token or signature in an answer, a usage record or a log line', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ROLE.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', ROLE.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', ROLE.sessionToken);
    const lines: string[] = [];
    const logger = {
      warn: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      info: (...a: unknown[]) => lines.push(JSON.stringify(a)),
      error: (...a: unknown[]) => lines.push(JSON.stringify(a)),
    };
    const wrongSecret = aws('wrong', { key: `${KEYS.accessKeyId}|notTheSecret0123456789abcdefghijklmnop|us-east-1` });
    const { relay, usage } = testRelay([wrongSecret], { logger } as never);
    const { relay: roleRelay, usage: roleUsage } = testRelay(
      [aws('role2', { key: '', baseUrl: roleUpstream.url, settings: { region: 'eu-west-1' } })],
      { logger } as never,
    );
    roleUpstream.fault({ kind: 'bad-signature-echo' });

    const refused = await complete(await relay.handle(ask()));
    const echoed = await complete(await roleRelay.handle(ask()));
    const signature = String(roleUpstream.requests.at(-1)?.headers.authorization).split('Signature=')[1] as string;
    vi.unstubAllEnvs();

    expect(refused.record.status).toBe(403);
    expect(echoed.record.status).toBe(403);
    expect(JSON.parse(echoed.text).error.message).toMatch(/^The request signature we calculated does not match/);
    const everything = [
      refused.text,
      echoed.text,
      JSON.stringify(usage.records),
      JSON.stringify(roleUsage.records),
      ...lines,
    ].join('\n');
    for (const secret of [
      'notTheSecret0123456789',
      ROLE.secretAccessKey,
      ROLE.sessionToken,
      signature,
      'x-amz-security-token',
    ]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("refuses a base URL at the metadata address, as the relay's address rules refuse any", async () => {
    const { relay } = testRelay([aws('meta', { baseUrl: 'http://169.254.169.254' })]);

    const answer = await complete(await relay.handle(ask()));

    expect(answer.record.status).toBe(503);
    expect(answer.record.attempts).toEqual([{ channelId: 'meta', status: 0, errorClass: 'refused-address' }]);
  });

  it("tests a channel through Converse, and shows no echoed credential in the test's message", async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ROLE.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', ROLE.secretAccessKey);
    vi.stubEnv('AWS_SESSION_TOKEN', ROLE.sessionToken);
    const role = aws('role3', { key: '', baseUrl: roleUpstream.url, settings: { region: 'eu-west-1' } });
    const { relay } = testRelay([role]);

    const passed = await relay.testChannel(role);
    roleUpstream.fault({ kind: 'bad-signature-echo' });
    const failed = await relay.testChannel(role);
    vi.unstubAllEnvs();

    expect(passed).toMatchObject({ ok: true, status: 200, model: 'claude-3-5-sonnet-20240620' });
    expect(failed).toMatchObject({ ok: false, status: 403 });
    expect(failed.message).toMatch(/^The request signature we calculated does not match/);
    expect(JSON.stringify(failed)).not.toContain(ROLE.sessionToken);
    expect(JSON.stringify(failed)).not.toContain('x-amz-date:');
  });

  it('ends a stream that fails after its first byte with an error event naming the exception', async () => {
    const { relay } = testRelay([aws('b5')]);
    upstream.fault({ kind: 'stream-error-event' });

    const answer = await complete(await relay.handle(ask({ stream: true })));

    expect(answer.text).toContain('The model stream failed.');
    expect(answer.record.status).toBe(200);
  });

  it('fails over when a stream drops before its first event and counts a JSON answer to a stream as a failure', async () => {
    const { relay } = testRelay([aws('b6', { settings: { priority: 5 } }), aws('b7')]);
    upstream.fault({ kind: 'wrong-content-type' });

    const answer = await complete(await relay.handle(ask({ stream: true })));

    expect(answer.record.attempts.map((a) => [a.channelId, a.status])).toEqual([
      ['b6', 200],
      ['b7', 200],
    ]);
    expect(answer.record.attempts[0]?.errorClass).toBe('server');
  });
});
