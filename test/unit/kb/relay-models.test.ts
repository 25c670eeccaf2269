import { describe, expect, it } from 'vitest';
import { EmbeddingUnavailableError } from '#shared/kb/contract';
import { KB_RELAY_KEY_ID, relayChat, relayEmbedder, relayReranker } from '#shared/kb/relay-models';
import type { RelayRequest, RelayResponse, UsageRecord } from '#shared/relay/contract';

/** A routing core answering one scripted response, recording what it was asked. */
function fakeRelay(status: number, body: unknown) {
  const requests: RelayRequest[] = [];
  return {
    requests,
    async handle(request: RelayRequest): Promise<RelayResponse> {
      requests.push(request);
      const text = JSON.stringify(body);
      return {
        status,
        headers: { 'content-type': 'application/json', 'x-request-id': request.requestId },
        body: (async function* () {
          yield new TextEncoder().encode(text.slice(0, 5));
          yield new TextEncoder().encode(text.slice(5));
        })(),
        done: Promise.resolve({} as UsageRecord),
      };
    },
  };
}

describe('the relay embedder', () => {
  it('asks the routing core for embeddings in the knowledge base group and answers vectors in input order', async () => {
    const relay = fakeRelay(200, {
      object: 'list',
      data: [
        { object: 'embedding', index: 1, embedding: [2, 2] },
        { object: 'embedding', index: 0, embedding: [1, 1] },
      ],
    });

    const vectors = await relayEmbedder(relay, 'kb').embed('text-embedding-3-small', ['a', 'b']);

    expect(vectors).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(relay.requests[0]).toMatchObject({
      endpoint: 'embeddings',
      body: { model: 'text-embedding-3-small', input: ['a', 'b'] },
      caller: { keyId: KB_RELAY_KEY_ID, groups: ['kb'] },
    });
  });

  it("takes the routing core's parsed answer without reading the body again", async () => {
    const answer = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [3, 4] }] };
    const relay = {
      async handle(request: RelayRequest): Promise<RelayResponse> {
        return {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-request-id': request.requestId },
          body: (async function* () {
            yield* [];
            throw new Error('the body was read');
          })(),
          done: Promise.resolve({} as UsageRecord),
          takeJson: () => answer,
        };
      },
    };

    await expect(relayEmbedder(relay, 'kb').embed('m', ['a'])).resolves.toEqual([[3, 4]]);
  });

  it('says no channel serves the model for the group, not worth retrying', async () => {
    const relay = fakeRelay(503, {
      error: {
        message: 'no channel serves model m for group g: none',
        type: 'service_unavailable',
        code: 'no_channel_none',
      },
    });

    const failure = await relayEmbedder(relay, 'default')
      .embed('text-embedding-3-large', ['a'])
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(EmbeddingUnavailableError);
    expect(failure).toMatchObject({
      message: 'no channel serves text-embedding-3-large for group default',
      retryable: false,
    });
  });

  it('names why when every channel is disabled', async () => {
    const relay = fakeRelay(503, { error: { code: 'no_channel_all_disabled', message: 'x' } });

    await expect(relayEmbedder(relay, 'default').embed('m', ['a'])).rejects.toMatchObject({
      message: 'no channel serves m for group default (all disabled)',
    });
  });

  it("calls an upstream's 5xx or 429 retryable and a 400 not, without the upstream's text", async () => {
    for (const [status, retryable] of [
      [500, true],
      [429, true],
      [400, false],
    ] as const) {
      const relay = fakeRelay(status, { error: { message: 'secret upstream text sk-123' } });

      const failure = await relayEmbedder(relay, 'default')
        .embed('m', ['a'])
        .catch((e: unknown) => e as Error);

      expect(failure).toMatchObject({ retryable, message: `the embeddings call for m failed (HTTP ${status})` });
      expect((failure as Error).message).not.toContain('sk-123');
    }
  });

  it('refuses an answer that lacks a vector', async () => {
    const relay = fakeRelay(200, { data: [{ index: 0, embedding: [1] }] });

    await expect(relayEmbedder(relay, 'default').embed('m', ['a', 'b'])).rejects.toMatchObject({ retryable: true });
  });
});

describe('the relay chat model', () => {
  it("answers the first choice's text", async () => {
    const relay = fakeRelay(200, { choices: [{ message: { role: 'assistant', content: 'Q1: a\nA1: b' } }] });

    const text = await relayChat(relay, 'default')('gpt-4o-mini', [{ role: 'user', content: 'x' }]);

    expect(text).toBe('Q1: a\nA1: b');
    expect(relay.requests[0]).toMatchObject({ endpoint: 'chat', body: { model: 'gpt-4o-mini' } });
  });
});

describe('the relay reranker', () => {
  const docs = [
    { id: 'x', text: 'first' },
    { id: 'empty', text: '  ' },
    { id: 'y', text: 'second' },
  ];

  it("sends Jina's body with every document that has text and answers ids best first", async () => {
    const relay = fakeRelay(200, {
      results: [
        { index: 1, relevance_score: 0.9 },
        { index: 0, relevance_score: 0.2 },
      ],
      usage: { total_tokens: 5 },
    });

    const ranked = await relayReranker(relay, 'kb').rerank('bge-reranker', 'q', docs);

    expect(ranked).toEqual([
      { id: 'y', score: 0.9 },
      { id: 'x', score: 0.2 },
    ]);
    expect(relay.requests[0]).toMatchObject({
      endpoint: 'rerank',
      body: { model: 'bge-reranker', query: 'q', documents: ['first', 'second'], top_n: 2, return_documents: false },
      caller: { keyId: KB_RELAY_KEY_ID, groups: ['kb'] },
    });
  });

  it('leaves out results whose index is not one of the documents sent, or repeats one', async () => {
    const relay = fakeRelay(200, {
      results: [
        { index: 7, relevance_score: 1 },
        { index: 0, relevance_score: 0.5 },
        { index: 0, relevance_score: 0.4 },
        { index: '1', relevance_score: 0.3 },
        { index: 1 },
      ],
    });

    const ranked = await relayReranker(relay, 'kb').rerank('m', 'q', docs);

    expect(ranked).toEqual([
      { id: 'x', score: 0.5 },
      { id: 'y', score: 0 },
    ]);
  });

  it('asks nothing when no document has text', async () => {
    const relay = fakeRelay(200, { results: [] });

    expect(await relayReranker(relay, 'kb').rerank('m', 'q', [{ id: 'e', text: '' }])).toEqual([]);
    expect(relay.requests).toHaveLength(0);
  });

  it('refuses an answer without results, and says when no channel serves the model', async () => {
    await expect(relayReranker(fakeRelay(200, { data: [] }), 'kb').rerank('m', 'q', docs)).rejects.toMatchObject({
      message: 'the rerank answer of m has no results',
    });
    const none = fakeRelay(503, { error: { code: 'no_channel_none_servable', message: 'x' } });
    await expect(relayReranker(none, 'kb').rerank('m', 'q', docs)).rejects.toMatchObject({
      message: 'no channel serves m for group kb (none servable)',
      retryable: false,
    });
  });
});
