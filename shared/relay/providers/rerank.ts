import type { ProviderAdapter } from './types.ts';

/*
 * Rerank (docs/relay.md, "Rerank"): Jina's and Cohere's `POST {base}/v1/rerank`, the wire format New API and AI Proxy
 * relay. The body `{model, query, documents, top_n, return_documents}` goes upstream as it is (model mapped); the
 * answer `{results: [{index, relevance_score, document?}], usage}` comes back as it is, with its token usage spelled the
 * one way the relay records it. Upstreams spell it three ways: Jina `usage.total_tokens` (New API's RerankHandler counts
 * it as prompt tokens), Xinference and AI Proxy `meta.tokens.input_tokens`, and `meta.billed_units.input_tokens` where
 * Cohere bills tokens (New API's cohere rerank handler reads it); Cohere bills rerank in `search_units`, which are not
 * tokens: no usage then, never a zero.
 */

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

/** The prompt tokens a rerank answer reports, whichever way it spells them; undefined when it reports none. */
export function rerankPromptTokens(json: Readonly<Record<string, unknown>>): number | undefined {
  const usage = json.usage;
  return (
    count(field(usage, 'prompt_tokens')) ??
    count(field(usage, 'total_tokens')) ??
    count(field(field(json.meta, 'tokens'), 'input_tokens')) ??
    count(field(field(json.meta, 'billed_units'), 'input_tokens'))
  );
}

/** The rerank form of an OpenAI-compatible adapter: its URL rule and headers, the answer's usage made Jina's. */
export function rerankVia(adapter: ProviderAdapter): ProviderAdapter {
  return {
    endpoints: ['rerank'],
    streamUsageOption: false,
    buildRequest: (input) => adapter.buildRequest({ ...input, endpoint: 'rerank', stream: false }),
    convertResponse(json) {
      const prompt = rerankPromptTokens(json);
      if (prompt === undefined) return json;
      const total = count(field(json.usage, 'total_tokens')) ?? prompt;
      return { ...json, usage: { prompt_tokens: prompt, total_tokens: total } };
    },
  };
}
