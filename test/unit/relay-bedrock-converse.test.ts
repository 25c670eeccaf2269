import { describe, expect, it } from 'vitest';
import { safeBedrockMessage } from '#shared/relay/providers/bedrock';
import {
  ConverseStreamConverter,
  fromConverseResponse,
  toConverseRequest,
} from '#shared/relay/providers/bedrock-converse';
import { decodeEventStream } from '#shared/relay/providers/bedrock-eventstream';
import { bedrockModelId } from '#shared/relay/providers/bedrock-models';
import { eventMessage } from '#test/support/fake-bedrock';

// Bedrock's wire formats (docs/relay.md, "Providers"): OpenAI chat ↔ Converse, the event stream's framing, model ids.

async function* chunks(...parts: Buffer[]) {
  for (const part of parts) yield part;
}

async function events(...parts: Buffer[]) {
  const out = [];
  for await (const event of decodeEventStream(chunks(...parts))) out.push(event);
  return out;
}

const frame = (type: string, payload: unknown) =>
  eventMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify(payload),
  );

describe('OpenAI chat as a Converse request', () => {
  it('converts system, images, tool calls and tool results, merging turns as Converse wants them', () => {
    const converse = toConverseRequest({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use tools.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"q":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a cat' },
        { role: 'user', content: 'And?' },
      ],
      max_completion_tokens: 100,
      top_p: 0.9,
      stop: ['X', 'Y'],
      tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'look' } },
    });

    expect(converse).toEqual({
      system: [{ text: 'Be brief.\nUse tools.' }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'What is this?' },
            { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
            { text: '[image: https://example.com/cat.jpg]' },
          ],
        },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 'c1', name: 'look', input: { q: 1 } } }] },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'c1', content: [{ text: 'a cat' }] } }, { text: 'And?' }],
        },
      ],
      inferenceConfig: { maxTokens: 100, topP: 0.9, stopSequences: ['X', 'Y'] },
      toolConfig: {
        tools: [{ toolSpec: { name: 'look', inputSchema: { json: { type: 'object' } } } }],
        toolChoice: { tool: { name: 'look' } },
      },
    });
  });

  it('reads a Converse answer: text, reasoning, stop reasons and usage', () => {
    const answer = fromConverseResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [{ reasoningContent: { reasoningText: { text: 'hmm' } } }, { text: 'Hi' }],
          },
        },
        stopReason: 'max_tokens',
        usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      },
      'claude',
    );

    expect(answer).toMatchObject({
      object: 'chat.completion',
      model: 'claude',
      choices: [{ message: { role: 'assistant', content: 'Hi', reasoning_content: 'hmm' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(fromConverseResponse({ stopReason: 'guardrail_intervened' }, 'm')).toMatchObject({
      choices: [{ finish_reason: 'content_filter' }],
    });
  });
});

describe("ConverseStream's event stream", () => {
  it('decodes messages cut anywhere across chunks', async () => {
    const bytes = Buffer.concat([
      frame('messageStart', { role: 'assistant' }),
      frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
    ]);

    const decoded = await events(bytes.subarray(0, 5), bytes.subarray(5, 40), bytes.subarray(40));

    expect(decoded).toEqual([
      { event: 'messageStart', data: '{"role":"assistant"}' },
      { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hi"}}' },
    ]);
  });

  it('refuses a message whose CRC does not match, and a stream that ends inside a message', async () => {
    const bytes = frame('messageStart', { role: 'assistant' });
    const corrupt = Buffer.from(bytes);
    corrupt[20] = (corrupt[20] ?? 0) ^ 0xff;

    await expect(events(corrupt)).rejects.toThrow(/checksum|CRC/i);
    await expect(events(bytes.subarray(0, bytes.length - 3))).rejects.toThrow('ended inside a message');
  });

  it('names an exception message by its type, which ends the converted stream with its message', async () => {
    const [exception] = await events(
      eventMessage(
        { ':exception-type': 'throttlingException', ':message-type': 'exception' },
        '{"message":"Too many tokens"}',
      ),
    );

    expect(exception).toEqual({ event: 'throttlingException', data: '{"message":"Too many tokens"}' });
    expect(() => new ConverseStreamConverter('m').convert(exception as never)).toThrow('Too many tokens');
  });
});

describe('model ids and error messages', () => {
  it('maps names as New API does and prefixes the inference profile of the region group', () => {
    expect(bedrockModelId('claude-3-5-sonnet-20240620', 'us-west-2')).toBe(
      'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
    );
    expect(bedrockModelId('claude-3-5-sonnet-20240620', 'ap-northeast-1')).toBe(
      'apac.anthropic.claude-3-5-sonnet-20240620-v1:0',
    );
    expect(bedrockModelId('claude-3-opus-20240229', 'eu-west-1')).toBe('anthropic.claude-3-opus-20240229-v1:0');
    expect(bedrockModelId('nova-pro-v1:0', 'ap-southeast-2')).toBe('amazon.nova-pro-v1:0');
    expect(bedrockModelId('meta.llama3-70b-instruct-v1:0', 'us-east-1')).toBe('meta.llama3-70b-instruct-v1:0');
  });

  it("cuts a signature error's echo and masks token-like strings", () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

    const safe = safeBedrockMessage(
      `The request signature we calculated does not match. key ${secret}\n\nThe Canonical String for this request should have been\n'POST\n/model\nx-amz-security-token:abc'`,
    );

    expect(safe).toBe('The request signature we calculated does not match. key ***');
  });
});
