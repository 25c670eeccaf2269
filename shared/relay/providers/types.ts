import type { RelayChannel, RelayEndpoint } from '../contract.ts';
import type { SseEvent } from '../sse.ts';

/** What an adapter sends upstream for one attempt. */
export interface UpstreamRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One attempt's input: the OpenAI body with the mapped model and the channel's settings already applied. */
export interface AdapterInput {
  readonly channel: RelayChannel;
  readonly endpoint: RelayEndpoint;
  readonly body: Record<string, unknown>;
  readonly stream: boolean;
  /** The caller's protocol headers (RelayRequest.headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Token counts as the relay records them; undefined = unknown. */
export interface TokenUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens?: number;
}

/**
 * For streams that are not OpenAI chat chunks (Anthropic's Messages events, OpenAI's Responses events): each upstream
 * event as the SSE text the caller receives (event names kept), and the usage seen so far.
 */
export interface EventRelay {
  /** An `UpstreamStreamError` thrown here ends the stream with the adapter's error event. */
  relay(event: SseEvent): readonly string[];
  /** What follows the upstream's last event (e.g. the closing events of a converted stream). */
  end(): readonly string[];
  usage(): TokenUsage;
}

/** Turns a provider's stream events into OpenAI chat.completion.chunk objects (zero or more per event). */
export interface StreamConverter {
  /** An `error` thrown here ends the stream with an OpenAI error event. */
  convert(event: SseEvent): readonly Record<string, unknown>[];
}

/** One provider's protocol: data, plus conversion only where it differs from OpenAI's. */
export interface ProviderAdapter {
  readonly endpoints: readonly RelayEndpoint[];
  /** Whether the upstream is asked for usage in streams with `stream_options.include_usage` (OpenAI's protocol). */
  readonly streamUsageOption: boolean;
  buildRequest(input: AdapterInput): UpstreamRequest;
  /** The upstream's successful JSON answer as OpenAI's; absent = already OpenAI's. */
  convertResponse?(json: Record<string, unknown>, requestedModel: string): Record<string, unknown>;
  /** A converter for one stream; absent = the upstream's events are OpenAI's and pass through. */
  streamConverter?(requestedModel: string): StreamConverter;
  /** The upstream's error body as OpenAI's envelope (message, type, code); absent = parsed as OpenAI's. */
  errorMessage?(body: unknown): { message: string; type: string; code: string | null } | undefined;
  /** Relays a stream event by event in the caller's protocol; absent = OpenAI chat chunks (streamConverter's). */
  eventRelay?(requestedModel: string): EventRelay;
  /** The event that ends a stream failing after its first byte; absent = OpenAI's error envelope as `data:`. */
  streamErrorEvent?(message: string): string;
  /**
   * Headers that need a call first (Vertex AI's access token from its service account) or the request itself (Bedrock's
   * SigV4 signature over buildRequest's URL, headers and body), added to buildRequest's. A
   * rejection fails the attempt (failed over like a connection error); `post` goes out through the relay's checked
   * outbound client.
   */
  credentialHeaders?(channel: RelayChannel, post: TokenPost, request: UpstreamRequest): Promise<Record<string, string>>;
  /** The content type a stream answers with (Bedrock's `application/vnd.amazon.eventstream`); absent = SSE. */
  readonly streamContentType?: string;
  /** Cuts a stream's body into events (Bedrock's binary event stream); absent = server-sent events (parseSse). */
  decodeStream?(body: AsyncIterable<Uint8Array>): AsyncIterable<SseEvent>;
}

/** One POST through the relay's outbound client, its answer read whole (bounded). */
export type TokenPost = (
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
) => Promise<{ status: number; text: string }>;

/** The base URL to use: the channel's, else the provider's default; no trailing slash. */
export function baseUrlOf(channel: RelayChannel, fallback: string | undefined): string {
  const base = channel.baseUrl.trim() !== '' ? channel.baseUrl.trim() : (fallback ?? '');
  if (base === '') throw new Error(`channel ${channel.id} has no base URL and its provider has no default`);
  return base.replace(/\/+$/, '');
}

export const ENDPOINT_PATHS: Readonly<Record<RelayEndpoint, string>> = {
  chat: '/chat/completions',
  embeddings: '/embeddings',
  messages: '/messages',
  responses: '/responses',
  count_tokens: '/messages/count_tokens',
  rerank: '/rerank',
};

/** One SSE event with its name, as Anthropic's and OpenAI's Responses streams write them. */
export function sseEvent(event: string | undefined, data: string): string {
  return event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
}
