import type { RelayChannel } from '../contract.ts';
import { ConverseStreamConverter, fromConverseResponse, toConverseRequest } from './bedrock-converse.ts';
import { decodeEventStream } from './bedrock-eventstream.ts';
import { bedrockModelId } from './bedrock-models.ts';
import { bedrockAccess, roleCredentials, signBedrockRequest } from './bedrock-sign.ts';
import { ChatToMessagesStream, chatToMessage, messagesToChat } from './messages-via-chat.ts';
import { anthropicErrorEvent } from './passthrough.ts';
import type { EventRelay, ProviderAdapter } from './types.ts';

/*
 * AWS Bedrock (`aws`, One API's type 33 "AWS Claude", New API's AWS; docs/relay.md, "Providers"): OpenAI chat through
 * Bedrock Runtime's Converse (`POST {base}/model/{modelId}/converse`) and ConverseStream (`…/converse-stream`, answered
 * as a binary event stream), signed with SigV4 by the channel's `ak|sk|region`, or by the function's own role when
 * the channel names no key. `{base}` = the channel's base URL, else `https://bedrock-runtime.{region}.amazonaws.com`;
 * either is checked by the relay's address rules like any other (shared/relay/outbound.ts).
 */

export const BEDROCK_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

/** A path label encoded as the AWS SDK encodes it (RFC 3986: `!'()*` too): model ids hold `:`, ARNs `/`. */
export const encodeLabel = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The Bedrock Runtime base URL of a channel. */
export function bedrockBaseUrl(channel: RelayChannel): string {
  const base = channel.baseUrl.trim();
  if (base !== '') return base.replace(/\/+$/, '');
  return `https://bedrock-runtime.${bedrockAccess(channel).region}.amazonaws.com`;
}

/** Bedrock's error text without what a signature error may echo (canonical request, string to sign, tokens). */
export function safeBedrockMessage(text: string): string {
  const cut = text.search(/the canonical string|string-to-sign|canonical request/i);
  const kept = cut >= 0 ? text.slice(0, cut) : text;
  return kept
    .replace(/[A-Za-z0-9+/=_-]{40,}/g, '***')
    .trim()
    .slice(0, 1024);
}

function errorMessage(body: unknown) {
  if (typeof body !== 'object' || body === null) return undefined;
  const json = body as Record<string, unknown>;
  const text = typeof json.message === 'string' ? json.message : typeof json.Message === 'string' ? json.Message : '';
  return { message: safeBedrockMessage(text) || 'Bedrock answered an error', type: 'upstream_error', code: null };
}

async function signed(channel: RelayChannel, request: { url: string; headers: Record<string, string>; body: string }) {
  const access = bedrockAccess(channel);
  return signBedrockRequest({
    url: request.url,
    headers: request.headers,
    body: request.body,
    region: access.region,
    credentials: access.credentials ?? roleCredentials(),
  });
}

/** Chat (and, converted, Anthropic's Messages) through Converse. */
export const bedrock: ProviderAdapter = {
  endpoints: ['chat'],
  streamUsageOption: false,
  streamContentType: BEDROCK_STREAM_CONTENT_TYPE,
  buildRequest({ channel, body, stream }) {
    const model = bedrockModelId(String(body.model ?? ''), bedrockAccess(channel).region);
    return {
      url: `${bedrockBaseUrl(channel)}/model/${encodeLabel(model)}/${stream ? 'converse-stream' : 'converse'}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(toConverseRequest(body)),
    };
  },
  credentialHeaders: (channel, _post, request) => signed(channel, request),
  decodeStream: decodeEventStream,
  convertResponse: fromConverseResponse,
  streamConverter: (model) => new ConverseStreamConverter(model),
  errorMessage,
};

/** Chat chunks fed to the Messages stream writer, one upstream event at a time. */
class ConverseToMessagesStream implements EventRelay {
  private readonly chat: ConverseStreamConverter;
  private readonly messages: ChatToMessagesStream;

  constructor(model: string) {
    this.chat = new ConverseStreamConverter(model);
    this.messages = new ChatToMessagesStream(model);
  }

  relay(event: Parameters<EventRelay['relay']>[0]): readonly string[] {
    return this.chat.convert(event).flatMap((chunk) => this.messages.relay({ data: JSON.stringify(chunk) }));
  }

  end(): readonly string[] {
    return this.messages.end();
  }

  usage() {
    return this.messages.usage();
  }
}

/** `/v1/messages` on Bedrock: Messages → chat → Converse, and the answer back the same way. */
export const bedrockMessages: ProviderAdapter = {
  endpoints: ['messages'],
  streamUsageOption: false,
  streamContentType: BEDROCK_STREAM_CONTENT_TYPE,
  buildRequest(input) {
    return bedrock.buildRequest({ ...input, endpoint: 'chat', body: messagesToChat(input.body, false) });
  },
  credentialHeaders: (channel, _post, request) => signed(channel, request),
  decodeStream: decodeEventStream,
  convertResponse: (json, model) => chatToMessage(fromConverseResponse(json, model), model),
  eventRelay: (model) => new ConverseToMessagesStream(model),
  streamErrorEvent: (message) => anthropicErrorEvent(message),
  errorMessage,
};
