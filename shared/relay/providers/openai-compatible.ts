import { baseUrlOf, ENDPOINT_PATHS, type ProviderAdapter } from './types.ts';

/**
 * An upstream that speaks OpenAI's chat and embeddings protocol: URL = base (or default) + version path + endpoint,
 * key as `Authorization: Bearer`. Paths checked against One API (songquanpeng/one-api 8df4a26:
 * `relay/adaptor/openai/helper.go` GetFullRequestURL, `relay/channeltype/url.go`) and New API's adaptors
 * (QuantumNous/new-api main of 2026-11: `relay/channel/<name>/adaptor.go` GetRequestURL).
 */
export interface OpenAiCompatibleSpec {
  /** Used when the channel's base URL is empty. */
  readonly defaultBaseUrl?: string;
  /** Between the base URL and `/chat/completions`: `/v1` for most, `` when the base carries its own. */
  readonly versionPath: string;
  /** Extra headers every request carries (e.g. OpenAI's organization). */
  readonly headers?: (settings: { organization?: string }) => Record<string, string>;
  readonly embeddings?: boolean;
  /** Whether the upstream serves chat (default true); Jina and Cohere are reached for embeddings and rerank only. */
  readonly chat?: boolean;
  /**
   * Whether the upstream serves Jina's and Cohere's rerank at `{base}{versionPath}/rerank` (default false; docs/relay.md,
   * "Rerank" says which slugs and why).
   */
  readonly rerank?: boolean;
  /**
   * Whether the upstream takes `stream_options` (default true). New API sends it only to the channel types in its
   * `streamSupportedChannels` (relay/common/relay_info.go) and removes it for the others: some reject unknown fields.
   */
  readonly streamOptions?: boolean;
}

export function openAiCompatible(spec: OpenAiCompatibleSpec): ProviderAdapter {
  return {
    endpoints: [
      ...(spec.chat === false ? [] : (['chat'] as const)),
      ...(spec.embeddings === false ? [] : (['embeddings'] as const)),
      ...(spec.rerank === true ? (['rerank'] as const) : []),
    ],
    streamUsageOption: spec.streamOptions !== false,
    buildRequest({ channel, endpoint, body }) {
      const url = `${baseUrlOf(channel, spec.defaultBaseUrl)}${spec.versionPath}${ENDPOINT_PATHS[endpoint]}`;
      return {
        url,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${channel.key}`,
          ...(spec.headers?.(channel.settings) ?? {}),
        },
        body: JSON.stringify(body),
      };
    },
  };
}
