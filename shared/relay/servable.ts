/*
 * Which providers the relay can serve (docs/channel-review-api.md, "Channel"), for the review API and the console. Stand-in for relay-core's
 * `isServable(provider)` in shared/relay/providers/index.ts: at merge, one of the two becomes the only source of truth
 * (this list must then be derived from the adapters, never kept by hand beside them).
 */

/** Provider slugs with a relay adapter: OpenAI-compatible ones, Azure OpenAI and Anthropic. */
export const SERVABLE_PROVIDERS: ReadonlySet<string> = new Set([
  'openai',
  'custom',
  'openai-compatible',
  'deepseek',
  'moonshot',
  'mistral',
  'groq',
  'xai',
  'openrouter',
  'siliconflow',
  'zhipu',
  'ali',
  'baidu-v2',
  'doubao',
  'ollama',
  'gemini',
  'gemini-openai',
  'azure',
  'anthropic',
  'api2d',
  'closeai',
  'openai-sb',
  'openai-max',
  'ohmygpt',
  'ails',
  'aiproxy',
  'api2gpt',
  'aigc2d',
  'together',
  'novita',
  'lingyiwanwu',
  'stepfun',
  'ai360',
  'baichuan',
  'minimax',
]);

/** Whether the relay can send a channel of this provider traffic, and why not when it cannot. */
export function isServableProvider(provider: string): { servable: true } | { servable: false; reason: string } {
  if (SERVABLE_PROVIDERS.has(provider)) return { servable: true };
  return { servable: false, reason: `The relay has no adapter for provider ${provider} yet` };
}
