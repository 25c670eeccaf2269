import type { RelayChannel, RelayRequest } from './contract.ts';
import type { ProviderAdapter } from './providers/types.ts';

/** The body sent upstream for one attempt: mapped model, the channel's settings, stream usage asked for. */
export function prepareBody(
  request: Pick<RelayRequest, 'body' | 'endpoint'>,
  channel: RelayChannel,
  adapter: ProviderAdapter,
  model: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.body, model };
  const prompt = channel.settings.systemPrompt;
  if (request.endpoint === 'chat' && prompt !== undefined && prompt !== '' && Array.isArray(body.messages)) {
    // One API's setSystemPrompt (relay/controller/helper.go): the first message's content when it is a system
    // message, else a system message prepended.
    const messages = [...(body.messages as unknown[])];
    const first = messages[0] as Record<string, unknown> | undefined;
    if (first !== undefined && first.role === 'system') messages[0] = { ...first, content: prompt };
    else messages.unshift({ role: 'system', content: prompt });
    body.messages = messages;
  }
  // OpenAI's embeddings and Jina's rerank have no `stream`: an upstream never streams them (answered as JSON).
  if (request.endpoint === 'embeddings' || request.endpoint === 'rerank') delete body.stream;
  if (body.stream === true && adapter.streamUsageOption) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  } else {
    // Not a stream, or an upstream that may reject the field (New API removes it the same way).
    delete body.stream_options;
  }
  if (channel.settings.paramOverride) Object.assign(body, channel.settings.paramOverride);
  return body;
}
