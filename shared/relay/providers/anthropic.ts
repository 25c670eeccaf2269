import type { SseEvent } from '../sse.ts';
import { baseUrlOf, type ProviderAdapter, type StreamConverter } from './types.ts';

/*
 * Anthropic's Messages API behind OpenAI's chat protocol (docs/relay.md, "Providers"). Written from Anthropic's API
 * reference (Messages, streaming events) and checked against One API's `relay/adaptor/anthropic/main.go`
 * (songquanpeng/one-api 8df4a26) and Portkey's `src/providers/anthropic/chatComplete.ts` (Portkey-AI/gateway main of
 * 2026-11). Embeddings are not served.
 */

export const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; this is sent when the caller gave none (One API sends 4096 too). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Json = Record<string, unknown>;
type Block = Json;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter((p): p is Json => isObject(p) && p.type === 'text' && typeof p.text === 'string')
      .map((p) => p.text as string)
      .join('\n');
  }
  return '';
}

/** An OpenAI image URL as an Anthropic image source: data URLs as base64, http(s) URLs as url. */
export function imageSource(url: string): Json {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: 'base64', media_type: match[1], data: match[2] };
  return { type: 'url', url };
}

function contentBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url') {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : isObject(image) ? image.url : undefined;
      if (typeof url === 'string') blocks.push({ type: 'image', source: imageSource(url) });
    }
  }
  return blocks;
}

function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** OpenAI chat messages as Anthropic's system text and alternating messages (consecutive same-role turns merged). */
export function toAnthropicMessages(messages: readonly unknown[]): { system?: string; messages: Json[] } {
  const system: string[] = [];
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (!isObject(message)) continue;
    const role = message.role;
    if (role === 'system' || role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push(text);
    } else if (role === 'user') {
      push('user', contentBlocks(message.content));
    } else if (role === 'assistant') {
      const blocks = contentBlocks(message.content);
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          if (!isObject(call) || !isObject(call.function)) continue;
          blocks.push({
            type: 'tool_use',
            id: call.id,
            name: call.function.name,
            input: parseArguments(call.function.arguments),
          });
        }
      }
      push('assistant', blocks);
    } else if (role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) }]);
    }
  }
  return {
    ...(system.length > 0 ? { system: system.join('\n') } : {}),
    messages: out.map((m) =>
      m.content.length === 1 && m.content[0]?.type === 'text' ? { role: m.role, content: m.content[0].text } : m,
    ),
  };
}

function toolChoice(choice: unknown): Json | undefined {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === 'string') {
    return { type: 'tool', name: choice.function.name };
  }
  return undefined;
}

/** An OpenAI chat request as an Anthropic Messages request. */
export function toAnthropicRequest(body: Readonly<Json>, stream: boolean): Json {
  const { system, messages } = toAnthropicMessages(Array.isArray(body.messages) ? body.messages : []);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  const request: Json = { model: body.model, messages, max_tokens: maxTokens };
  if (system !== undefined) request.system = system;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  if (typeof body.stop === 'string') request.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) request.stop_sequences = body.stop;
  if (Array.isArray(body.tools)) {
    request.tools = body.tools
      .filter((t): t is Json => isObject(t) && isObject(t.function))
      .map((t) => {
        const fn = t.function as Json;
        return {
          name: fn.name,
          ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
          input_schema: isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
        };
      });
  }
  const choice = toolChoice(body.tool_choice);
  if (choice !== undefined) request.tool_choice = choice;
  if (typeof body.user === 'string') request.metadata = { user_id: body.user };
  if (stream) request.stream = true;
  return request;
}

const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReason(stopReason: unknown): string | null {
  if (typeof stopReason !== 'string') return null;
  return FINISH_REASONS[stopReason] ?? 'stop';
}

function usageOf(usage: unknown): Json | undefined {
  if (!isObject(usage)) return undefined;
  const prompt = typeof usage.input_tokens === 'number' ? usage.input_tokens : 0;
  const completion = typeof usage.output_tokens === 'number' ? usage.output_tokens : 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The text of an Anthropic message's content blocks of one type (`text` or `thinking`), joined. */
export function blockText(blocks: readonly Record<string, unknown>[], type: 'text' | 'thinking'): string {
  return blocks
    .filter((b) => b.type === type)
    .map((b) => String(b[type] ?? ''))
    .join('');
}

/** One `chat.completion.chunk` of a converted stream: a delta's choices, or none and the usage (the last chunk). */
export function completionChunk(id: string, created: number, model: string, choices: Json[], usage?: Json): Json {
  return { id, object: 'chat.completion.chunk', created, model, choices, ...(usage === undefined ? {} : { usage }) };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An Anthropic Messages response as an OpenAI chat.completion. */
export function fromAnthropicResponse(json: Json, requestedModel: string): Json {
  const blocks = Array.isArray(json.content) ? json.content.filter(isObject) : [];
  const text = blockText(blocks, 'text');
  const toolCalls = blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
  const message: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  const thinking = blockText(blocks, 'thinking');
  if (thinking !== '') message.reasoning_content = thinking;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = usageOf(json.usage);
  return {
    id: typeof json.id === 'string' ? json.id : 'chatcmpl-anthropic',
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof json.model === 'string' ? json.model : requestedModel,
    choices: [{ index: 0, message, finish_reason: finishReason(json.stop_reason), logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/** Anthropic's stream events as OpenAI chat.completion.chunk objects. */
export class AnthropicStreamConverter implements StreamConverter {
  private id = 'chatcmpl-anthropic';
  private model: string;
  private readonly created = nowSeconds();
  private inputTokens = 0;
  private outputTokens = 0;
  /** Anthropic content block index -> OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();
  private finish: string | null = null;

  constructor(requestedModel: string) {
    this.model = requestedModel;
  }

  private chunk(delta: Json, finish: string | null = null): Json {
    return completionChunk(this.id, this.created, this.model, [
      { index: 0, delta, finish_reason: finish, logprobs: null },
    ]);
  }

  convert(event: SseEvent): readonly Json[] {
    let data: Json;
    try {
      const parsed: unknown = JSON.parse(event.data);
      if (!isObject(parsed)) return [];
      data = parsed;
    } catch {
      return [];
    }
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'message_start': {
        const message = isObject(data.message) ? data.message : {};
        if (typeof message.id === 'string') this.id = message.id;
        if (typeof message.model === 'string') this.model = message.model;
        const usage = isObject(message.usage) ? message.usage : {};
        if (typeof usage.input_tokens === 'number') this.inputTokens = usage.input_tokens;
        if (typeof usage.output_tokens === 'number') this.outputTokens = usage.output_tokens;
        return [this.chunk({ role: 'assistant', content: '' })];
      }
      case 'content_block_start': {
        const block = isObject(data.content_block) ? data.content_block : {};
        if (block.type === 'tool_use' && typeof data.index === 'number') {
          const index = this.toolIndex.size;
          this.toolIndex.set(data.index, index);
          return [
            this.chunk({
              tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }],
            }),
          ];
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
          return [this.chunk({ content: block.text })];
        }
        return [];
      }
      case 'content_block_delta': {
        const delta = isObject(data.delta) ? data.delta : {};
        if (delta.type === 'text_delta') return [this.chunk({ content: String(delta.text ?? '') })];
        // Extended thinking as the `reasoning_content` delta New API and DeepSeek use.
        if (delta.type === 'thinking_delta') return [this.chunk({ reasoning_content: String(delta.thinking ?? '') })];
        if (delta.type === 'input_json_delta' && typeof data.index === 'number') {
          const index = this.toolIndex.get(data.index) ?? 0;
          return [this.chunk({ tool_calls: [{ index, function: { arguments: String(delta.partial_json ?? '') } }] })];
        }
        return [];
      }
      case 'message_delta': {
        const delta = isObject(data.delta) ? data.delta : {};
        const usage = isObject(data.usage) ? data.usage : {};
        if (typeof usage.output_tokens === 'number') this.outputTokens = usage.output_tokens;
        if (typeof usage.input_tokens === 'number') this.inputTokens = usage.input_tokens;
        this.finish = finishReason(delta.stop_reason);
        return [this.chunk({}, this.finish ?? 'stop')];
      }
      case 'message_stop':
        return [
          completionChunk(this.id, this.created, this.model, [], {
            prompt_tokens: this.inputTokens,
            completion_tokens: this.outputTokens,
            total_tokens: this.inputTokens + this.outputTokens,
          }),
        ];
      case 'error': {
        const error = isObject(data.error) ? data.error : {};
        throw new UpstreamStreamError(
          String(error.message ?? 'upstream stream error'),
          String(error.type ?? 'api_error'),
        );
      }
      default:
        return [];
    }
  }
}

/** An error event from the upstream in the middle of a stream. */
export class UpstreamStreamError extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

export const anthropic: ProviderAdapter = {
  endpoints: ['chat'],
  streamUsageOption: false,
  buildRequest({ channel, body, stream }) {
    return {
      url: `${baseUrlOf(channel, 'https://api.anthropic.com')}/v1/messages`,
      headers: {
        'content-type': 'application/json',
        'x-api-key': channel.key,
        'anthropic-version': ANTHROPIC_VERSION,
      },
      body: JSON.stringify(toAnthropicRequest(body, stream)),
    };
  },
  convertResponse: fromAnthropicResponse,
  streamConverter: (model) => new AnthropicStreamConverter(model),
  errorMessage(body) {
    if (!isObject(body) || !isObject(body.error)) return undefined;
    return {
      message: String(body.error.message ?? ''),
      type: String(body.error.type ?? 'upstream_error'),
      code: typeof body.error.type === 'string' ? body.error.type : null,
    };
  },
};
