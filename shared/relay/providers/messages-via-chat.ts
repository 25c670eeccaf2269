import type { SseEvent } from '../sse.ts';
import { blockText, UpstreamStreamError } from './anthropic.ts';
import { anthropicErrorEvent, inputOutputUsage } from './passthrough.ts';
import { type EventRelay, type ProviderAdapter, sseEvent, type TokenUsage } from './types.ts';

/*
 * Anthropic's Messages API served by an OpenAI-compatible channel (docs/relay.md, "Endpoints"): the Messages request
 * becomes an OpenAI chat request for the channel's own chat adapter, and the answer (or its stream) becomes a Messages
 * answer (message, content blocks, tool_use, stop_reason, usage; message_start, content_block_start/delta/stop,
 * message_delta, message_stop). Written from Anthropic's API reference (Messages; "Streaming Messages") and the types
 * of `@anthropic-ai/sdk` 1.14.0 (`resources/messages`); New API's `relay/channel/claude` does the reverse direction.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Json => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

function imageUrl(source: unknown): string | undefined {
  if (!isObject(source)) return undefined;
  if (source.type === 'base64' && typeof source.data === 'string')
    return `data:${String(source.media_type ?? 'image/png')};base64,${source.data}`;
  if (source.type === 'url' && typeof source.url === 'string') return source.url;
  return undefined;
}

/** One Anthropic message as OpenAI chat messages (tool results become `tool` messages, ahead of the user's text). */
function toChatMessages(message: Json): Json[] {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  if (typeof message.content === 'string') return [{ role, content: message.content }];
  const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  if (role === 'assistant') {
    const text = blockText(blocks, 'text');
    const toolCalls = blocks
      .filter((b) => b.type === 'tool_use')
      .map((b) => ({
        id: String(b.id ?? ''),
        type: 'function',
        function: { name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) },
      }));
    const out: Json = { role, content: text === '' && toolCalls.length > 0 ? null : text };
    if (toolCalls.length > 0) out.tool_calls = toolCalls;
    return [out];
  }
  const tools: Json[] = [];
  const parts: Json[] = [];
  for (const block of blocks) {
    if (block.type === 'tool_result') {
      const text = textOf(block.content);
      tools.push({
        role: 'tool',
        tool_call_id: String(block.tool_use_id ?? ''),
        content: block.is_error === true && text === '' ? 'error' : text,
      });
    } else if (block.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') {
      const url = imageUrl(block.source);
      if (url !== undefined) parts.push({ type: 'image_url', image_url: { url } });
    }
  }
  const onlyText = parts.every((p) => p.type === 'text');
  const user: Json[] =
    parts.length === 0 ? [] : [{ role, content: onlyText ? parts.map((p) => String(p.text)).join('\n') : parts }];
  return [...tools, ...user];
}

function toolChoice(choice: unknown): unknown {
  if (!isObject(choice)) return undefined;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: String(choice.name ?? '') } };
    default:
      return undefined;
  }
}

/** A Messages request as an OpenAI chat request (fields OpenAI has no counterpart for are left out). */
export function messagesToChat(body: Readonly<Json>, streamUsage: boolean): Json {
  const messages: Json[] = [];
  const system = textOf(body.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  for (const m of Array.isArray(body.messages) ? body.messages : [])
    if (isObject(m)) messages.push(...toChatMessages(m));
  const out: Json = { model: body.model, messages };
  if (typeof body.max_tokens === 'number') out.max_tokens = body.max_tokens;
  for (const field of ['temperature', 'top_p'] as const) if (typeof body[field] === 'number') out[field] = body[field];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) out.stop = body.stop_sequences;
  if (Array.isArray(body.tools)) {
    out.tools = body.tools.filter(isObject).map((t) => ({
      type: 'function',
      function: {
        name: String(t.name ?? ''),
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
        parameters: isObject(t.input_schema) ? t.input_schema : { type: 'object' },
      },
    }));
  }
  const choice = toolChoice(body.tool_choice);
  if (choice !== undefined) out.tool_choice = choice;
  if (isObject(body.metadata) && typeof body.metadata.user_id === 'string') out.user = body.metadata.user_id;
  if (body.stream === true) {
    out.stream = true;
    if (streamUsage) out.stream_options = { include_usage: true };
  }
  return out;
}

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** OpenAI's finish_reason as Anthropic's stop_reason. */
export function stopReason(finish: unknown): string | null {
  if (typeof finish !== 'string') return null;
  return STOP_REASONS[finish] ?? 'end_turn';
}

function parseInput(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function anthropicUsage(usage: unknown): Json {
  const prompt = isObject(usage) && typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const completion = isObject(usage) && typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  return { input_tokens: prompt, output_tokens: completion };
}

const messageId = (id: unknown) =>
  `msg_${typeof id === 'string' && id !== '' ? id.replace(/^chatcmpl-/, '') : 'relay'}`;

/** An OpenAI chat.completion as an Anthropic message. */
export function chatToMessage(json: Json, requestedModel: string): Json {
  const choice = Array.isArray(json.choices) && isObject(json.choices[0]) ? json.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const content: Json[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    content.push({ type: 'text', text: message.content });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : []) {
    const fn = isObject(call.function) ? call.function : {};
    content.push({
      type: 'tool_use',
      id: String(call.id ?? ''),
      name: String(fn.name ?? ''),
      input: parseInput(fn.arguments),
    });
  }
  return {
    id: messageId(json.id),
    type: 'message',
    role: 'assistant',
    model: typeof json.model === 'string' ? json.model : requestedModel,
    content,
    stop_reason: stopReason(choice.finish_reason) ?? 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(json.usage),
  };
}

const event = (type: string, body: Json) => sseEvent(type, JSON.stringify({ type, ...body }));

/** OpenAI chat chunks as Anthropic's stream events, block by block. */
export class ChatToMessagesStream implements EventRelay {
  private started = false;
  private finished = false;
  /** The open content block: its index and kind; -1 = none open. */
  private index = -1;
  private open: 'text' | 'tool' | undefined;
  /** OpenAI's tool call index -> the content block index it opened. */
  private readonly toolBlocks = new Map<number, number>();
  private stop: string | null = null;
  private readonly tokens: TokenUsage = {};
  private rawUsage: unknown;

  constructor(private readonly model: string) {}

  relay(sse: SseEvent): readonly string[] {
    if (sse.data === '[DONE]') return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(sse.data);
    } catch {
      return [];
    }
    if (!isObject(chunk)) return [];
    if (isObject(chunk.error)) {
      throw new UpstreamStreamError(String(chunk.error.message ?? 'upstream stream error'), 'api_error');
    }
    const out: string[] = [];
    if (!this.started) {
      this.started = true;
      out.push(
        event('message_start', {
          message: {
            id: messageId(chunk.id),
            type: 'message',
            role: 'assistant',
            model: typeof chunk.model === 'string' ? chunk.model : this.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          },
        }),
      );
    }
    if (isObject(chunk.usage)) {
      this.rawUsage = chunk.usage;
      inputOutputUsage(
        { input_tokens: chunk.usage.prompt_tokens, output_tokens: chunk.usage.completion_tokens },
        this.tokens,
      );
    }
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
    const delta = choice && isObject(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content !== '') {
      if (this.open !== 'text') out.push(...this.startBlock('text', { type: 'text', text: '' }));
      out.push(event('content_block_delta', { index: this.index, delta: { type: 'text_delta', text: delta.content } }));
    }
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isObject) : []) {
      const at = typeof call.index === 'number' ? call.index : 0;
      const fn = isObject(call.function) ? call.function : {};
      if (!this.toolBlocks.has(at)) {
        out.push(
          ...this.startBlock('tool', {
            type: 'tool_use',
            id: String(call.id ?? `toolu_${at}`),
            name: String(fn.name ?? ''),
            input: {},
          }),
        );
        this.toolBlocks.set(at, this.index);
      }
      if (typeof fn.arguments === 'string' && fn.arguments !== '') {
        const index = this.toolBlocks.get(at) ?? this.index;
        out.push(
          event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fn.arguments } }),
        );
      }
    }
    if (choice && typeof choice.finish_reason === 'string') this.stop = stopReason(choice.finish_reason);
    return out;
  }

  end(): readonly string[] {
    if (this.finished || !this.started) return [];
    this.finished = true;
    const out = this.closeBlock();
    out.push(
      event('message_delta', {
        delta: { stop_reason: this.stop ?? 'end_turn', stop_sequence: null },
        usage: anthropicUsage(this.rawUsage),
      }),
      event('message_stop', {}),
    );
    return out;
  }

  usage(): TokenUsage {
    return { ...this.tokens };
  }

  private startBlock(kind: 'text' | 'tool', block: Json): string[] {
    const out = this.closeBlock();
    this.index++;
    this.open = kind;
    out.push(event('content_block_start', { index: this.index, content_block: block }));
    return out;
  }

  private closeBlock(): string[] {
    if (this.open === undefined) return [];
    this.open = undefined;
    return [event('content_block_stop', { index: this.index })];
  }
}

/** The Messages endpoint over an OpenAI-protocol chat adapter (OpenAI-compatible providers, Azure). */
export function messagesViaChat(chat: ProviderAdapter): ProviderAdapter {
  return {
    endpoints: ['messages'],
    streamUsageOption: false,
    buildRequest(input) {
      return chat.buildRequest({
        ...input,
        endpoint: 'chat',
        body: messagesToChat(input.body, chat.streamUsageOption),
      });
    },
    ...(chat.credentialHeaders ? { credentialHeaders: chat.credentialHeaders.bind(chat) } : {}),
    convertResponse: chatToMessage,
    eventRelay: (model) => new ChatToMessagesStream(model),
    streamErrorEvent: (message) => anthropicErrorEvent(message),
  };
}
