import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RelayRequest } from '#shared/relay/contract';
import { endpointAdapter } from '#shared/relay/providers/endpoints';
import { rerankPromptTokens } from '#shared/relay/providers/rerank';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { CALLER, channel, readText, testRelay } from '#test/support/relay-fixtures';
import { seededRandom } from '#test/support/seeded-random';

/*
 * Rerank through the routing core (docs/relay.md, "Rerank"): routed like embeddings (group, model, tiers, weights,
 * failover, health, usage), sent in Jina's and Cohere's wire format to the channels whose provider serves it.
 */

const MODEL = 'bge-reranker-v2-m3';
let jina: FakeUpstream;
let cohere: FakeUpstream;

beforeAll(async () => {
  jina = await startFakeOpenAi();
  cohere = await startFakeOpenAi({ rerankStyle: 'cohere' });
});
afterAll(async () => {
  await jina.close();
  await cohere.close();
});
afterEach(() => {
  for (const fake of [jina, cohere]) {
    fake.clearFaults();
    fake.requests.length = 0;
  }
});

function rerankRequest(body: Record<string, unknown> = {}): RelayRequest {
  return {
    requestId: 'req-rerank',
    endpoint: 'rerank',
    body: {
      model: MODEL,
      query: 'tides of the sea',
      documents: ['green plants and sunlight', 'the sea rises with the tides'],
      top_n: 2,
      return_documents: false,
      ...body,
    },
    caller: CALLER,
    signal: new AbortController().signal,
  };
}

describe('rerank through the routing core', () => {
  it("sends Jina's body to {base}/v1/rerank and answers the results with the usage recorded", async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 'sf', provider: 'siliconflow', baseUrl: jina.url, models: [MODEL] })]);
    // act
    const response = await relay.handle(rerankRequest({ stream: true }));
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(200);
    expect(body.results.map((r: { index: number }) => r.index)).toEqual([1, 0]);
    expect(body.results[0].relevance_score).toBeGreaterThan(body.results[1].relevance_score);
    const sent = jina.requests[0];
    expect(sent?.path).toBe('/v1/rerank');
    expect(sent?.headers.authorization).toBe('Bearer sk-secret-sf-0123456789abcdef');
    // A caller's `stream` is never sent: rerank answers JSON only.
    expect(sent?.body).toEqual({
      model: MODEL,
      query: 'tides of the sea',
      documents: ['green plants and sunlight', 'the sea rises with the tides'],
      top_n: 2,
      return_documents: false,
    });
    expect(record).toMatchObject({ endpoint: 'rerank', channelId: 'sf', status: 200, stream: false });
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.totalTokens).toBe(record.promptTokens);
    relay.close();
  });

  it("maps the model and reaches Cohere's rerank, whose answer carries no token usage", async () => {
    // prepare
    const { relay } = testRelay([
      channel({
        id: 'co',
        provider: 'cohere',
        baseUrl: cohere.url,
        models: [],
        settings: { modelMapping: { [MODEL]: 'rerank-v3.5' } },
      }),
    ]);
    // act
    const response = await relay.handle(rerankRequest());
    const body = JSON.parse(await readText(response));
    const record = await response.done;
    // assert
    expect(response.status).toBe(200);
    expect(body.results[0]).toMatchObject({ index: 1 });
    expect(cohere.requests[0]?.body?.model).toBe('rerank-v3.5');
    expect(record).toMatchObject({ requestedModel: MODEL, upstreamModel: 'rerank-v3.5', channelId: 'co' });
    // Cohere bills rerank in search units, not tokens: unknown, never zero.
    expect(record.promptTokens).toBeUndefined();
    relay.close();
  });

  it.each([
    ['a 429', { kind: 'rate-limited' } as const, 'rate-limited', 429],
    ['a 500', { kind: 'server-error' } as const, 'server', 500],
    ['a reset', { kind: 'reset' } as const, 'connect', 0],
  ])(
    'fails over to the next tier after %s and counts the failure in the health of the channel',
    async (_name, fault, errorClass, status) => {
      // prepare
      const { relay, health } = testRelay([
        channel({ id: 'first', provider: 'jina', baseUrl: jina.url, models: [MODEL], settings: { priority: 10 } }),
        channel({ id: 'second', provider: 'xinference', baseUrl: cohere.url, models: [MODEL] }),
      ]);
      jina.fault(fault);
      // act
      const response = await relay.handle(rerankRequest());
      await readText(response);
      const record = await response.done;
      // assert
      expect(response.status).toBe(200);
      expect(record.attempts).toEqual([
        { channelId: 'first', status, errorClass },
        { channelId: 'second', status: 200 },
      ]);
      expect(cohere.requests[0]?.path).toBe('/v1/rerank');
      expect((await health.view()).get('first')).toMatchObject({ failures: 1, lastErrorClass: errorClass });
      relay.close();
    },
  );

  it("returns the upstream's 4xx as it is, without failing over", async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'first', baseUrl: jina.url, models: [MODEL], settings: { priority: 10 } }),
      channel({ id: 'second', baseUrl: cohere.url, models: [MODEL] }),
    ]);
    // act: the fake refuses a body without documents, as Jina does (422)
    const response = await relay.handle(rerankRequest({ documents: [] }));
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(422);
    expect(body.error.message).toContain('documents');
    expect(cohere.requests).toHaveLength(0);
    relay.close();
  });

  it('shares rerank among a tier by weight, as embeddings', async () => {
    // prepare
    const { relay } = testRelay(
      [
        channel({ id: 'heavy', baseUrl: jina.url, models: [MODEL], settings: { weight: 90 } }),
        channel({ id: 'light', baseUrl: cohere.url, models: [MODEL], settings: { weight: 0 } }),
      ],
      { random: seededRandom(7) },
    );
    // act
    for (let i = 0; i < 40; i++) await readText(await relay.handle(rerankRequest()));
    // assert: shares 100 : 10
    expect(jina.requests.length).toBeGreaterThan(cohere.requests.length * 3);
    expect(cohere.requests.length).toBeGreaterThan(0);
    relay.close();
  });

  it('answers 503 none-servable when only channels that cannot rerank list the model', async () => {
    // prepare
    const { relay } = testRelay([
      channel({ id: 'ds', provider: 'deepseek', baseUrl: jina.url, models: [MODEL] }),
      channel({ id: 'az', provider: 'azure', baseUrl: jina.url, models: [MODEL] }),
    ]);
    // act
    const response = await relay.handle(rerankRequest());
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(503);
    expect(body.error.code).toBe('no_channel_none_servable');
    expect(body.error.message).toContain('do not serve rerank');
    expect(jina.requests).toHaveLength(0);
    relay.close();
  });

  it('answers 503 when no channel of the group lists the model', async () => {
    // prepare
    const { relay } = testRelay([channel({ id: 'sf', provider: 'siliconflow', baseUrl: jina.url })]);
    // act
    const response = await relay.handle(rerankRequest());
    const body = JSON.parse(await readText(response));
    // assert
    expect(response.status).toBe(503);
    expect(body.error.code).toBe('no_channel_none');
    relay.close();
  });
});

describe('the channel test of a rerank model', () => {
  it('asks the channel to rerank, and a chat model to chat', async () => {
    // prepare
    const { relay } = testRelay([]);
    const reranker = channel({
      id: 'j',
      provider: 'jina',
      baseUrl: jina.url,
      models: ['jina-reranker-v2-base-multilingual'],
    });
    const chatter = channel({ id: 'o', provider: 'openai', baseUrl: jina.url, models: ['gpt-4o-mini'] });
    // act
    const reranked = await relay.testChannel(reranker);
    const chatted = await relay.testChannel(chatter);
    // assert
    expect(reranked).toMatchObject({ ok: true, status: 200, model: 'jina-reranker-v2-base-multilingual' });
    expect(chatted).toMatchObject({ ok: true, status: 200 });
    expect(jina.requests.map((r) => r.path)).toEqual(['/v1/rerank', '/v1/chat/completions']);
    expect(jina.requests[0]?.body).toMatchObject({ query: 'hi', documents: ['hi'], top_n: 1 });
    relay.close();
  });
});

describe('which providers rerank', () => {
  it.each([
    ['openai', 'https://api.openai.com/v1/rerank'],
    ['siliconflow', 'https://api.siliconflow.cn/v1/rerank'],
    ['jina', 'https://api.jina.ai/v1/rerank'],
    ['cohere', 'https://api.cohere.ai/v1/rerank'],
  ])('%s reranks at %s', (provider, url) => {
    const adapter = endpointAdapter(provider, 'rerank');
    const built = adapter?.buildRequest({
      channel: channel({ id: 'c', provider }),
      endpoint: 'rerank',
      body: { model: MODEL },
      stream: false,
    });
    expect(built?.url).toBe(url);
  });

  it.each(['custom', 'xinference'])('%s reranks at the operator base URL + /v1/rerank', (provider) => {
    const built = endpointAdapter(provider, 'rerank')?.buildRequest({
      channel: channel({ id: 'c', provider, baseUrl: 'http://10.0.0.5:9997/' }),
      endpoint: 'rerank',
      body: {},
      stream: false,
    });
    expect(built?.url).toBe('http://10.0.0.5:9997/v1/rerank');
  });

  it.each(['deepseek', 'azure', 'anthropic', 'aws', 'vertex-ai', 'zhipu', 'ali', 'gemini'])(
    '%s does not',
    (provider) => {
      expect(endpointAdapter(provider, 'rerank')).toBeUndefined();
    },
  );

  it('serves neither chat nor messages on jina and cohere, and embeddings on jina only', () => {
    expect(endpointAdapter('jina', 'chat')).toBeUndefined();
    expect(endpointAdapter('jina', 'messages')).toBeUndefined();
    expect(endpointAdapter('jina', 'embeddings')).toBeDefined();
    expect(endpointAdapter('cohere', 'chat')).toBeUndefined();
    expect(endpointAdapter('cohere', 'embeddings')).toBeUndefined();
  });

  it('reads the token usage in each spelling upstreams use', () => {
    expect(rerankPromptTokens({ usage: { total_tokens: 12 } })).toBe(12);
    expect(rerankPromptTokens({ usage: { prompt_tokens: 9, total_tokens: 12 } })).toBe(9);
    expect(rerankPromptTokens({ meta: { tokens: { input_tokens: 30, output_tokens: 0 } } })).toBe(30);
    expect(rerankPromptTokens({ meta: { billed_units: { input_tokens: 5 } } })).toBe(5);
    expect(rerankPromptTokens({ meta: { billed_units: { search_units: 1 } } })).toBeUndefined();
  });
});
