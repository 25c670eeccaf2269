import type { SseEvent } from '../sse.ts';
import { toAnthropicRequest, UpstreamStreamError } from './anthropic.ts';
import type { StreamConverter } from './types.ts';

/*
 * OpenAI chat ↔ Bedrock Runtime's Converse API (docs/relay.md, "Providers"). Written from the Amazon Bedrock API
 * Reference (Converse, ConverseStream, ContentBlock, ToolConfiguration, ConverseStreamOutput). The request goes through
 * the Anthropic conversion first (system joined, consecutive turns merged, tool calls and results as blocks: the shape
 * Converse shares with Messages), then each block is renamed into Converse's.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Converse's default for the output limit when the caller sets none (Claude on Bedrock requires one). */
export const BEDROCK_DEFAULT_MAX_TOKENS = 4096;

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

function converseBlock(block: unknown): Json | undefined {
  if (typeof block === 'string') return block === '' ? undefined : { text: block };
  if (!isObject(block)) return undefined;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' && block.text !== '' ? { text: block.text } : undefined;
    case 'image': {
      const source = isObject(block.source) ? block.source : {};
      const format = String(source.media_type ?? '').replace(/^image\//, '');
      // Converse takes image bytes (or S3), never a URL: a URL image is named in text instead.
      if (source.type === 'base64' && IMAGE_FORMATS.has(format)) {
        return { image: { format, source: { bytes: source.data } } };
      }
      return typeof source.url === 'string' ? { text: `[image: ${source.url}]` } : undefined;
    }
    case 'tool_use':
      return { toolUse: { toolUseId: block.id, name: block.name, input: isObject(block.input) ? block.input : {} } };
    case 'tool_result': {
      const text = typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? '');
      return {
        toolResult: {
          toolUseId: block.tool_use_id,
          content: [{ text: text === '' ? ' ' : text }],
          ...(block.is_error === true ? { status: 'error' } : {}),
        },
      };
    }
    default:
      return undefined;
  }
}

function converseMessages(messages: unknown): Json[] {
  if (!Array.isArray(messages)) return [];
  const out: Json[] = [];
  for (const message of messages) {
    if (!isObject(message)) continue;
    const blocks = (Array.isArray(message.content) ? message.content : [message.content])
      .map(converseBlock)
      .filter((b): b is Json => b !== undefined);
    if (blocks.length > 0) out.push({ role: message.role, content: blocks });
  }
  return out;
}

function toolConfig(request: Json): Json | undefined {
  if (!Array.isArray(request.tools) || request.tools.length === 0) return undefined;
  const tools = request.tools.filter(isObject).map((tool) => ({
    toolSpec: {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      inputSchema: { json: isObject(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} } },
    },
  }));
  const choice = isObject(request.tool_choice) ? request.tool_choice : {};
  const toolChoice =
    choice.type === 'auto'
      ? { auto: {} }
      : choice.type === 'any'
        ? { any: {} }
        : choice.type === 'tool'
          ? { tool: { name: choice.name } }
          : undefined;
  // Converse has no "none": the tools stay (a history with tool blocks needs them) and the model chooses.
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/** An OpenAI chat request as a Converse request body (the model id goes in the URL). */
export function toConverseRequest(body: Readonly<Json>): Json {
  const anthropic = toAnthropicRequest(body, false);
  const inference: Json = { maxTokens: anthropic.max_tokens ?? BEDROCK_DEFAULT_MAX_TOKENS };
  if (typeof anthropic.temperature === 'number') inference.temperature = anthropic.temperature;
  if (typeof anthropic.top_p === 'number') inference.topP = anthropic.top_p;
  if (Array.isArray(anthropic.stop_sequences)) inference.stopSequences = anthropic.stop_sequences;
  const request: Json = { messages: converseMessages(anthropic.messages), inferenceConfig: inference };
  if (typeof anthropic.system === 'string' && anthropic.system !== '') request.system = [{ text: anthropic.system }];
  const tools = toolConfig(anthropic);
  if (tools) request.toolConfig = tools;
  // Model-specific fields the caller sends as Converse names them (e.g. Claude's `thinking`), passed on.
  if (isObject(body.additionalModelRequestFields))
    request.additionalModelRequestFields = body.additionalModelRequestFields;
  return request;
}

const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

const finishReason = (stop: unknown): string | null =>
  typeof stop === 'string' ? (Object.hasOwn(FINISH, stop) ? (FINISH[stop] as string) : 'stop') : null;

function usageOf(usage: unknown): Json | undefined {
  if (!isObject(usage)) return undefined;
  const prompt = typeof usage.inputTokens === 'number' ? usage.inputTokens : 0;
  const completion = typeof usage.outputTokens === 'number' ? usage.outputTokens : 0;
  const total = typeof usage.totalTokens === 'number' ? usage.totalTokens : prompt + completion;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const newId = () => `chatcmpl-bedrock-${Math.random().toString(36).slice(2, 14)}`;

/** A Converse response as an OpenAI chat.completion (Converse names no model: the one sent is reported). */
export function fromConverseResponse(json: Json, model: string): Json {
  const output = isObject(json.output) ? json.output : {};
  const message = isObject(output.message) ? output.message : {};
  const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const text = blocks.map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
  const toolCalls = blocks
    .filter((b) => isObject(b.toolUse))
    .map((b) => {
      const use = b.toolUse as Json;
      return {
        id: use.toolUseId,
        type: 'function',
        function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) },
      };
    });
  const reasoning = blocks
    .map((b) => {
      const r = isObject(b.reasoningContent) ? b.reasoningContent : {};
      return isObject(r.reasoningText) && typeof r.reasoningText.text === 'string' ? r.reasoningText.text : '';
    })
    .join('');
  const answer: Json = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning !== '') answer.reasoning_content = reasoning;
  if (toolCalls.length > 0) answer.tool_calls = toolCalls;
  const usage = usageOf(json.usage);
  return {
    id: newId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: answer, finish_reason: finishReason(json.stopReason), logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/** ConverseStream's events (decoded from the event stream, one per SseEvent named by its type) as chat chunks. */
export class ConverseStreamConverter implements StreamConverter {
  private readonly id = newId();
  private readonly created = nowSeconds();
  /** Converse content block index → OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();

  constructor(private readonly model: string) {}

  private chunk(delta: Json, finish: string | null = null): Json {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  }

  convert(event: SseEvent): readonly Json[] {
    let data: Json = {};
    try {
      const parsed: unknown = JSON.parse(event.data);
      if (isObject(parsed)) data = parsed;
    } catch {
      // An exception's payload may not be JSON; named by its type below.
    }
    const type = event.event ?? '';
    if (type.endsWith('Exception') || type === 'error') {
      throw new UpstreamStreamError(typeof data.message === 'string' ? data.message : type, type);
    }
    const index = typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : 0;
    switch (type) {
      case 'messageStart':
        return [this.chunk({ role: 'assistant', content: '' })];
      case 'contentBlockStart': {
        const start = isObject(data.start) ? data.start : {};
        if (!isObject(start.toolUse)) return [];
        const toolIndex = this.toolIndex.size;
        this.toolIndex.set(index, toolIndex);
        const call = { index: toolIndex, id: start.toolUse.toolUseId, type: 'function' };
        return [this.chunk({ tool_calls: [{ ...call, function: { name: start.toolUse.name, arguments: '' } }] })];
      }
      case 'contentBlockDelta': {
        const delta = isObject(data.delta) ? data.delta : {};
        if (typeof delta.text === 'string') return [this.chunk({ content: delta.text })];
        if (isObject(delta.toolUse) && typeof delta.toolUse.input === 'string') {
          const toolIndex = this.toolIndex.get(index) ?? 0;
          return [this.chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.toolUse.input } }] })];
        }
        const reasoning = isObject(delta.reasoningContent) ? delta.reasoningContent : {};
        if (typeof reasoning.text === 'string') return [this.chunk({ reasoning_content: reasoning.text })];
        return [];
      }
      case 'messageStop':
        return [this.chunk({}, finishReason(data.stopReason) ?? 'stop')];
      case 'metadata': {
        const usage = usageOf(data.usage);
        if (!usage) return [];
        return [
          {
            id: this.id,
            object: 'chat.completion.chunk',
            created: this.created,
            model: this.model,
            choices: [],
            usage,
          },
        ];
      }
      default:
        return [];
    }
  }
}
