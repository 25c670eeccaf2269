import type { ChannelTestResult, RelayChannel, RelayEndpoint } from './contract.ts';
import { classifyError, scrub } from './errors.ts';
import type { Clock } from './health.ts';
import { type Outbound, readBounded } from './outbound.ts';
import { endpointAdapter } from './providers/endpoints.ts';
import { adapterFor } from './providers/index.ts';
import type { TokenPost } from './providers/types.ts';
import { prepareBody } from './request-body.ts';
import { upstreamModel } from './routing.ts';

/*
 * The channel test (`POST /api/channel/{id}/test`, docs/relay.md): one minimal request through one channel, outside
 * routing and health; its status, latency and the upstream's message, never the key.
 */

export interface ChannelTestDeps {
  readonly clock: Clock;
  readonly outbound: Outbound;
  readonly tokenPost: TokenPost;
}

const TEST_BODIES: Readonly<Record<'chat' | 'embeddings' | 'rerank', (model: string) => Record<string, unknown>>> = {
  chat: (model) => ({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
  embeddings: (model) => ({ model, input: 'hi' }),
  rerank: (model) => ({ model, query: 'hi', documents: ['hi'], top_n: 1 }),
};

/**
 * Sends the channel's test request: its `testModel`, else its first model; embeddings for an embedding model, rerank
 * for a rerank model.
 */
export async function testChannel(channel: RelayChannel, deps: ChannelTestDeps): Promise<ChannelTestResult> {
  const { clock, outbound, tokenPost } = deps;
  const started = clock.now();
  const model = channel.settings.testModel || channel.models[0] || '';
  const result = (ok: boolean, status: number, message?: string): ChannelTestResult => ({
    ok,
    status,
    latencyMs: clock.now() - started,
    model,
    ...(message !== undefined ? { message: scrub(message, channel) } : {}),
  });
  const providerAdapter = adapterFor(channel.provider);
  if (!providerAdapter) return result(false, 0, `provider ${channel.provider} is not servable yet`);
  // A rerank model (New API tests one by its name too) is asked to rerank where the provider serves it.
  const rerank = /rerank/i.test(model) ? endpointAdapter(channel.provider, 'rerank') : undefined;
  const adapter = rerank ?? providerAdapter;
  const endpoint: RelayEndpoint = rerank
    ? 'rerank'
    : /embedding/i.test(model) && adapter.endpoints.includes('embeddings')
      ? 'embeddings'
      : 'chat';
  const body = TEST_BODIES[endpoint](model);
  const controller = new AbortController();
  try {
    const upstream = adapter.buildRequest({
      channel,
      endpoint,
      body: prepareBody({ body, endpoint }, channel, adapter, upstreamModel(channel, model)),
      stream: false,
    });
    const credentials = adapter.credentialHeaders
      ? await adapter.credentialHeaders(channel, tokenPost, upstream)
      : undefined;
    const res = await outbound.send({
      url: upstream.url,
      headers: { ...upstream.headers, ...credentials, ...(channel.settings.headerOverride ?? {}) },
      body: upstream.body,
      signal: controller.signal,
    });
    const status = res.statusCode ?? 0;
    const text = await readBounded(res);
    if (status >= 200 && status < 300) return result(true, status);
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } };
      // The adapter's reading first: Bedrock's `{"message"}` may echo a signature's canonical request.
      const converted = adapter.errorMessage?.(parsed);
      if (converted) message = converted.message;
      else if (typeof parsed.error?.message === 'string') message = parsed.error.message;
    } catch {
      // Not JSON: the text itself, bounded.
    }
    return result(false, status, message.slice(0, 1024));
  } catch (error) {
    const errorClass = classifyError(error, controller.signal);
    return result(false, 0, `the upstream could not be reached (${errorClass})`);
  }
}
