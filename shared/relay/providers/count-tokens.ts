import { bedrock, bedrockBaseUrl, encodeLabel } from './bedrock.ts';
import { toConverseRequest } from './bedrock-converse.ts';
import { bedrockFoundationId } from './bedrock-models.ts';
import { bedrockAccess } from './bedrock-sign.ts';
import { messagesToChat } from './messages-via-chat.ts';
import { anthropicMessages } from './passthrough.ts';
import type { ProviderAdapter } from './types.ts';

/*
 * `POST /v1/messages/count_tokens`, Anthropic's token counting (docs/relay.md, "Endpoints"): passed through to an
 * anthropic channel (`{base}/v1/messages/count_tokens`, its headers as for Messages), and on an aws channel answered by
 * Bedrock Runtime's CountTokens (`POST {base}/model/{modelId}/count-tokens`, the Messages body converted to Converse's
 * `input.converse`; the foundation model id, since CountTokens counts for a model, not an inference profile), its
 * `{"inputTokens"}` answered as Anthropic's `{"input_tokens"}`. Both are exact counts by the provider, never an
 * estimate. No other provider is a candidate. Never streamed.
 */

export const anthropicCountTokens: ProviderAdapter = {
  endpoints: ['count_tokens'],
  streamUsageOption: false,
  buildRequest(input) {
    const request = anthropicMessages.buildRequest(input);
    return { ...request, url: `${request.url}/count_tokens` };
  },
};

export const bedrockCountTokens: ProviderAdapter = {
  endpoints: ['count_tokens'],
  streamUsageOption: false,
  buildRequest({ channel, body }) {
    const model = bedrockFoundationId(String(body.model ?? ''));
    // Validated before any URL is built: a key of another shape fails the attempt, never shown.
    bedrockAccess(channel);
    const { messages, system, toolConfig } = toConverseRequest(messagesToChat(body, false));
    return {
      url: `${bedrockBaseUrl(channel)}/model/${encodeLabel(model)}/count-tokens`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        input: { converse: { messages, ...(system ? { system } : {}), ...(toolConfig ? { toolConfig } : {}) } },
      }),
    };
  },
  credentialHeaders: bedrock.credentialHeaders?.bind(bedrock),
  convertResponse: (json) => ({ input_tokens: typeof json.inputTokens === 'number' ? json.inputTokens : 0 }),
  errorMessage: bedrock.errorMessage?.bind(bedrock),
};
