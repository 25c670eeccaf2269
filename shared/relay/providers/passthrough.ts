import type { SseEvent } from '../sse.ts';
import { ANTHROPIC_VERSION } from './anthropic.ts';
import {
  type AdapterInput,
  baseUrlOf,
  type EventRelay,
  type ProviderAdapter,
  sseEvent,
  type TokenUsage,
} from './types.ts';

/*
 * Endpoints passed through unchanged to an upstream that speaks them (docs/relay.md, "Endpoints"): Anthropic's
 * Messages to anthropic channels, OpenAI's Responses to the providers that serve it. The body goes as the caller sent it
 * (model mapped, the channel's paramOverride applied); each stream event goes on as it arrives, its name kept, and the
 * relay only reads the usage out of it. Event shapes from Anthropic's API reference ("Streaming Messages") and OpenAI's
 * (`openai/openai-node` 6.49.0, `src/resources/responses/responses.ts`: ResponseStreamEvent, ResponseUsage).
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Usage in Anthropic's and the Responses API's spelling (`input_tokens`, `output_tokens`, maybe `total_tokens`). */
export function inputOutputUsage(value: unknown, into: TokenUsage = {}): TokenUsage {
  if (!isObject(value)) return into;
  const input = num(value.input_tokens);
  const output = num(value.output_tokens);
  const total = num(value.total_tokens);
  if (input !== undefined) into.promptTokens = input;
  if (output !== undefined) into.completionTokens = output;
  if (total !== undefined) into.totalTokens = total;
  else if (into.promptTokens !== undefined && into.completionTokens !== undefined)
    into.totalTokens = into.promptTokens + into.completionTokens;
  return into;
}

function parse(data: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Anthropic's error event, `{"type":"error","error":{"type","message"}}`, as its SDKs read it. */
export function anthropicErrorEvent(message: string, type = 'api_error'): string {
  return sseEvent('error', JSON.stringify({ type: 'error', error: { type, message } }));
}

/** Anthropic's Messages stream passed on: usage from message_start (input) and message_delta (output, cumulative). */
class MessagesEventRelay implements EventRelay {
  private readonly tokens: TokenUsage = {};
  relay(event: SseEvent): readonly string[] {
    const json = parse(event.data);
    if (json?.type === 'message_start' && isObject(json.message)) inputOutputUsage(json.message.usage, this.tokens);
    else if (json?.type === 'message_delta') inputOutputUsage(json.usage, this.tokens);
    return [sseEvent(event.event, event.data)];
  }
  end(): readonly string[] {
    return [];
  }
  usage(): TokenUsage {
    return { ...this.tokens };
  }
}

/** OpenAI's Responses stream passed on: usage from the final `response.completed` (or incomplete/failed) event. */
class ResponsesEventRelay implements EventRelay {
  private tokens: TokenUsage = {};
  relay(event: SseEvent): readonly string[] {
    const json = parse(event.data);
    if (json !== undefined && typeof json.type === 'string' && json.type.startsWith('response.')) {
      const response = json.response;
      if (isObject(response) && isObject(response.usage)) this.tokens = inputOutputUsage(response.usage);
    }
    return [sseEvent(event.event, event.data)];
  }
  end(): readonly string[] {
    return [];
  }
  usage(): TokenUsage {
    return { ...this.tokens };
  }
}

const json = (body: Json) => JSON.stringify(body);

/**
 * `POST /v1/messages` to an anthropic channel, unchanged: `x-api-key` = the channel's key, the caller's
 * `anthropic-version` (else ANTHROPIC_VERSION) and `anthropic-beta` passed on.
 */
export const anthropicMessages: ProviderAdapter = {
  endpoints: ['messages'],
  streamUsageOption: false,
  buildRequest({ channel, body, headers }: AdapterInput) {
    const beta = headers?.['anthropic-beta'];
    return {
      url: `${baseUrlOf(channel, 'https://api.anthropic.com')}/v1/messages`,
      headers: {
        'content-type': 'application/json',
        'x-api-key': channel.key,
        'anthropic-version': headers?.['anthropic-version'] || ANTHROPIC_VERSION,
        ...(beta ? { 'anthropic-beta': beta } : {}),
      },
      body: json(body),
    };
  },
  eventRelay: () => new MessagesEventRelay(),
  streamErrorEvent: (message) => anthropicErrorEvent(message),
};

/**
 * `POST /v1/responses` passed through to `target(input)`'s URL with the provider's own headers; `model` renames the
 * body's model where the provider wants another name (Azure's deployment).
 */
export function responsesPassthrough(
  target: (input: AdapterInput) => { url: string; headers: Record<string, string> },
  model?: (name: string) => string,
): ProviderAdapter {
  return {
    endpoints: ['responses'],
    streamUsageOption: false,
    buildRequest(input) {
      const { url, headers } = target(input);
      const body = model ? { ...input.body, model: model(String(input.body.model ?? '')) } : input.body;
      return { url, headers: { 'content-type': 'application/json', ...headers }, body: json(body) };
    },
    eventRelay: () => new ResponsesEventRelay(),
    streamErrorEvent: (message) =>
      sseEvent('error', JSON.stringify({ type: 'error', code: 'stream_interrupted', message, param: null })),
  };
}
