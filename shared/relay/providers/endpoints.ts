import type { RelayEndpoint } from '../contract.ts';
import { azureDeploymentName } from './azure.ts';
import { bedrockMessages } from './bedrock.ts';
import { anthropicCountTokens, bedrockCountTokens } from './count-tokens.ts';
import { ADAPTERS, adapterFor } from './index.ts';
import { messagesViaChat } from './messages-via-chat.ts';
import { anthropicMessages, responsesPassthrough } from './passthrough.ts';
import { rerankVia } from './rerank.ts';
import { baseUrlOf, type ProviderAdapter } from './types.ts';

/*
 * Which adapter serves a provider on each endpoint (docs/relay.md, "Endpoints" and "Providers"); the routing core asks
 * here and nowhere else, so a provider gains an endpoint by a row, never by a branch in the core.
 *
 * - chat, embeddings: the provider's adapter (providers/index.ts), where it lists the endpoint.
 * - messages: anthropic channels pass it through; aws (Bedrock) converts it to Converse through chat; every provider whose chat speaks OpenAI's protocol (no conversion of
 *   its own) serves it converted to chat.
 * - responses: passed through where the upstream serves OpenAI's Responses API: openai, custom and openai-compatible
 *   (the same URL rule as their chat, `/responses` in place of `/chat/completions`), and azure through Azure's v1 API
 *   (`{base}/openai/v1/responses`, `api-key`, the deployment as model, as for chat). No other provider is a candidate.
 * - count_tokens: anthropic passes it through, aws answers it with Bedrock's CountTokens; no other provider.
 * - rerank: the OpenAI-compatible providers whose adapter lists it (providers/index.ts `RERANK`), at
 *   `{base}{versionPath}/rerank` with the adapter's headers (rerank.ts).
 */

const sameRulesAsChat = (provider: string): ProviderAdapter => {
  const chat = ADAPTERS[provider] as ProviderAdapter;
  return responsesPassthrough((input) => chat.buildRequest({ ...input, endpoint: 'responses' }));
};

const RESPONSES: Readonly<Record<string, ProviderAdapter>> = {
  openai: sameRulesAsChat('openai'),
  custom: sameRulesAsChat('custom'),
  'openai-compatible': sameRulesAsChat('openai-compatible'),
  azure: responsesPassthrough(
    ({ channel }) => ({
      url: `${baseUrlOf(channel, undefined)}/openai/v1/responses`,
      headers: { 'api-key': channel.key },
    }),
    (model) => azureDeploymentName(model),
  ),
};

/** `/v1/messages` with an adapter of its own: anthropic passes it through; Bedrock converts it through chat (bedrock.ts). */
const MESSAGES: Readonly<Record<string, ProviderAdapter>> = {
  anthropic: anthropicMessages,
  aws: bedrockMessages,
};

/** `/v1/messages/count_tokens`: the providers that count tokens for Anthropic's request (count-tokens.ts). */
const COUNT_TOKENS: Readonly<Record<string, ProviderAdapter>> = {
  anthropic: anthropicCountTokens,
  aws: bedrockCountTokens,
};

const viaChat = new Map<ProviderAdapter, ProviderAdapter>();
const reranks = new Map<ProviderAdapter, ProviderAdapter>();

/** The adapter that serves `provider` on `endpoint`; undefined = not a candidate for that endpoint. */
export function endpointAdapter(provider: string, endpoint: RelayEndpoint): ProviderAdapter | undefined {
  const adapter = adapterFor(provider);
  if (adapter === undefined) return undefined;
  switch (endpoint) {
    case 'chat':
    case 'embeddings':
      return adapter.endpoints.includes(endpoint) ? adapter : undefined;
    case 'messages': {
      if (Object.hasOwn(MESSAGES, provider)) return MESSAGES[provider];
      if (!adapter.endpoints.includes('chat') || adapter.convertResponse !== undefined) return undefined;
      let converted = viaChat.get(adapter);
      if (converted === undefined) {
        converted = messagesViaChat(adapter);
        viaChat.set(adapter, converted);
      }
      return converted;
    }
    case 'responses':
      return Object.hasOwn(RESPONSES, provider) ? RESPONSES[provider] : undefined;
    case 'count_tokens':
      return Object.hasOwn(COUNT_TOKENS, provider) ? COUNT_TOKENS[provider] : undefined;
    case 'rerank': {
      if (!adapter.endpoints.includes('rerank')) return undefined;
      let rerank = reranks.get(adapter);
      if (rerank === undefined) {
        rerank = rerankVia(adapter);
        reranks.set(adapter, rerank);
      }
      return rerank;
    }
  }
}
