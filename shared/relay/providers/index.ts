import { anthropic } from './anthropic.ts';
import { azure } from './azure.ts';
import { bedrock } from './bedrock.ts';
import { openAiCompatible } from './openai-compatible.ts';
import type { ProviderAdapter } from './types.ts';
import { vertexAdapter } from './vertex.ts';

/*
 * Every provider slug the relay serves, one adapter each (docs/relay.md, "Providers"); adding a provider is adding a
 * row here, never a branch in the routing core. Slugs are those of functions/import-legacygw/providers.ts. Version
 * paths checked against One API (songquanpeng/one-api 8df4a26: relay/channeltype/url.go and each
 * relay/adaptor/<name>/adaptor.go GetRequestURL) and New API (QuantumNous/new-api main of 2026-11).
 */

const v1 = (defaultBaseUrl?: string, rerank = false) =>
  openAiCompatible({ versionPath: '/v1', rerank, ...(defaultBaseUrl ? { defaultBaseUrl } : {}) });
/** An OpenAI-compatible upstream outside New API's `streamSupportedChannels`: no `stream_options` sent. */
const v1Plain = (defaultBaseUrl?: string, rerank = false) =>
  openAiCompatible({ versionPath: '/v1', streamOptions: false, rerank, ...(defaultBaseUrl ? { defaultBaseUrl } : {}) });
/**
 * Rerank (`{base}/v1/rerank`, Jina's and Cohere's body) where New API relays it (docs/relay.md, "Rerank"): its OpenAI
 * adaptor, which serves OpenAI, custom, the OpenAI resellers, 360 and 01.AI, and its SiliconFlow, Xinference, Jina and
 * Cohere adaptors.
 */
const RERANK = true;

export const ADAPTERS: Readonly<Record<string, ProviderAdapter>> = {
  openai: openAiCompatible({
    defaultBaseUrl: 'https://api.openai.com',
    versionPath: '/v1',
    rerank: RERANK,
    headers: (s): Record<string, string> => (s.organization ? { 'openai-organization': s.organization } : {}),
  }),
  // One API's type 8: the request path (/v1/chat/completions) appended to the operator's base URL.
  custom: v1(undefined, RERANK),
  // One API's type 50: the base URL carries its own version path, so /v1 is not added.
  'openai-compatible': openAiCompatible({ versionPath: '', rerank: RERANK }),
  api2d: v1('https://oa.api2d.net', RERANK),
  closeai: v1('https://api.closeai-proxy.xyz', RERANK),
  'openai-sb': v1('https://api.openai-sb.com', RERANK),
  'openai-max': v1('https://api.openaimax.com', RERANK),
  ohmygpt: v1('https://api.ohmygpt.com', RERANK),
  ails: v1('https://api.caipacity.com', RERANK),
  aiproxy: v1('https://api.aiproxy.io', RERANK),
  api2gpt: v1('https://api.api2gpt.com', RERANK),
  aigc2d: v1('https://api.aigc2d.com', RERANK),
  deepseek: v1('https://api.deepseek.com'),
  moonshot: v1('https://api.moonshot.cn'),
  mistral: v1Plain('https://api.mistral.ai'),
  // The default base already ends in /openai.
  groq: v1Plain('https://api.groq.com/openai'),
  xai: v1('https://api.x.ai'),
  // The default base already ends in /api.
  openrouter: v1Plain('https://openrouter.ai/api'),
  siliconflow: v1Plain('https://api.siliconflow.cn', RERANK),
  lingyiwanwu: v1Plain('https://api.lingyiwanwu.com', RERANK),
  stepfun: v1Plain('https://api.stepfun.com'),
  together: v1Plain('https://api.together.xyz'),
  // One API's CompatibleChannels (relay/adaptor/openai/compatible.go) serve these with the OpenAI adaptor.
  ai360: v1Plain('https://ai.360.cn', RERANK),
  baichuan: v1Plain('https://api.baichuan-ai.com'),
  // New API's perplexity adaptor: {base}/chat/completions, no version path; chat only.
  perplexity: openAiCompatible({
    defaultBaseUrl: 'https://api.perplexity.ai',
    versionPath: '',
    embeddings: false,
    streamOptions: false,
  }),
  // A self-hosted Xinference server's OpenAI-compatible API (no default base).
  xinference: v1Plain(undefined, RERANK),
  ollama: v1('http://localhost:11434'),
  // Zhipu's v4 API is OpenAI's protocol and takes the API key as a bearer token; One API's zhipu adaptor sends glm-4
  // and later through /api/paas/v4 (v3-only models such as chatglm_pro are not served).
  zhipu: openAiCompatible({ defaultBaseUrl: 'https://open.bigmodel.cn', versionPath: '/api/paas/v4' }),
  'zhipu-v4': openAiCompatible({ defaultBaseUrl: 'https://open.bigmodel.cn', versionPath: '/api/paas/v4' }),
  // DashScope's compatible mode.
  ali: openAiCompatible({ defaultBaseUrl: 'https://dashscope.aliyuncs.com', versionPath: '/compatible-mode/v1' }),
  'baidu-v2': openAiCompatible({ defaultBaseUrl: 'https://qianfan.baidubce.com', versionPath: '/v2' }),
  doubao: openAiCompatible({ defaultBaseUrl: 'https://ark.cn-beijing.volces.com', versionPath: '/api/v3' }),
  // Gemini's OpenAI endpoint; gemini-openai's stored default base already ends in /v1beta/openai.
  gemini: openAiCompatible({
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    versionPath: '/v1beta/openai',
  }),
  'gemini-openai': openAiCompatible({
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    versionPath: '',
  }),
  novita: openAiCompatible({
    defaultBaseUrl: 'https://api.novita.ai/v3/openai',
    versionPath: '',
    streamOptions: false,
  }),
  // New API's Jina adaptor: embeddings and rerank, no chat.
  jina: openAiCompatible({
    defaultBaseUrl: 'https://api.jina.ai',
    versionPath: '/v1',
    chat: false,
    rerank: RERANK,
    streamOptions: false,
  }),
  // Cohere's chat is a protocol of its own (New API converts it); its rerank takes Jina's body (New API's cohere adaptor).
  cohere: openAiCompatible({
    defaultBaseUrl: 'https://api.cohere.ai',
    versionPath: '/v1',
    chat: false,
    embeddings: false,
    rerank: RERANK,
    streamOptions: false,
  }),
  azure,
  anthropic,
  // The service account's access token, then Vertex's OpenAI-compatible endpoint (vertex.ts).
  'vertex-ai': vertexAdapter(),
  // Converse / ConverseStream signed with SigV4 by the channel's ak|sk|region or the function's role (bedrock.ts).
  aws: bedrock,
};

/** Why a provider without an adapter is not servable (the review API, console and routes report show it). */
const NOT_SERVABLE: Readonly<Record<string, string>> = {
  baidu: "Baidu's v1 API needs an access-token exchange and its own protocol",
  xunfei: "iFlytek Spark's v1 API is a WebSocket protocol",
  tencent: 'Tencent Hunyuan needs TC3 request signing',
  palm: 'Google PaLM is retired',
};

/** The adapter for a provider slug; undefined = not servable yet. */
export function adapterFor(provider: string): ProviderAdapter | undefined {
  return Object.hasOwn(ADAPTERS, provider) ? ADAPTERS[provider] : undefined;
}

/** True when the relay can send a channel of this provider traffic. */
export function isServable(provider: string): boolean {
  return adapterFor(provider) !== undefined;
}

/** Why a provider is not servable, or undefined when it is. */
export function servabilityReason(provider: string): string | undefined {
  if (isServable(provider)) return undefined;
  const why = Object.hasOwn(NOT_SERVABLE, provider) ? NOT_SERVABLE[provider] : 'no relay adapter speaks its protocol';
  return `provider "${provider}" is not servable yet: ${why}`;
}
