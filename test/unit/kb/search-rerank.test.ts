import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { searchTestBodySchema } from '#functions/search-test/schema';
import { type SearchTestDeps, searchTest } from '#functions/search-test/search-test';
import type { SearchableChunk } from '#shared/kb/contract';
import { KB_RELAY_KEY_ID, relayReranker } from '#shared/kb/relay-models';
import type { ScoredRef } from '#shared/kb/search/types';
import { parseModelCatalog, rerankModelFor } from '#shared/model-catalog';
import type { DatasetRecord } from '#shared/repositories/datasets';
import * as z from '#shared/zod';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { channel, type TestRelay, testRelay } from '#test/support/relay-fixtures';

/*
 * searchTest's rerank through the relay's routing core (docs/knowledge-base-search.md, "Rerank"): the recalled
 * candidates sent to a channel that lists the rerank model, merged as FastGPT merges them (score type `reRank`,
 * `rerankWeight` in RRF), and the answer without rerank, `usingReRank: false`, when the call fails or nothing serves it.
 */

const DATASET = '6740a1f2c3d4e5f6a7b8c9d0';
const RERANKER = 'bge-reranker-v2-m3';
const caller = { scope: 'dataset' as const, teamId: 'team-a', tmbId: 'member-a', tokenId: 'token-a' };

const chunk = (id: string, q: string): SearchableChunk => ({
  id,
  datasetId: DATASET,
  collectionId: 'c1',
  chunkIndex: 0,
  q,
  a: '',
  updateTime: '2026-11-27T00:00:00.000Z',
  sourceName: `${id}.txt`,
});
// Full text ranks them a, b, c; only c answers the question.
const CHUNKS = [
  chunk('a', 'The harbour of the town is busy'),
  chunk('b', 'Green plants turn sunlight into sugar'),
  chunk('c', 'The tides of the sea rise twice a day'),
];
const QUESTION = 'When do the tides of the sea rise?';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeOpenAi();
});
afterAll(async () => upstream.close());
afterEach(() => {
  upstream.clearFaults();
  upstream.requests.length = 0;
});

function world(models: string[], rerankModels?: SearchTestDeps['rerankModels']): { deps: SearchTestDeps } & TestRelay {
  const relay = testRelay([channel({ id: 'sf', provider: 'siliconflow', baseUrl: upstream.url, models })]);
  const byId = new Map(CHUNKS.map((c) => [c.id, c]));
  const fullText: ScoredRef[] = CHUNKS.map((c, i) => ({ dataId: c.id, collectionId: 'c1', score: 3 - i }));
  const deps: SearchTestDeps = {
    datasets: {
      get: async (teamId, id) =>
        teamId === 'team-a' && id === DATASET
          ? ({ teamId, id, type: 'dataset', vectorModel: 'text-embedding-3-small' } as DatasetRecord)
          : undefined,
    },
    defaultVectorModel: 'text-embedding-3-small',
    vectors: { nearest: async () => [] },
    fullText: { search: async () => fullText },
    reader: {
      readRefs: async (_t, _d, refs) => refs.flatMap((r) => (byId.has(r.dataId) ? [byId.get(r.dataId)!] : [])),
    },
    reranker: relayReranker(relay.relay, 'default'),
    ...(rerankModels ? { rerankModels } : {}),
  };
  return { ...relay, deps };
}

const body = (fields: Record<string, unknown>) =>
  z.parse(searchTestBodySchema, { datasetId: DATASET, text: QUESTION, searchMode: 'fullTextRecall', ...fields });

describe('searchTest rerank through the relay', () => {
  it('reranks the recalled chunks through the channel that lists the model and answers usingReRank true', async () => {
    // prepare
    const w = world([RERANKER]);
    // act
    const result = await searchTest(
      { body: body({ usingReRank: true, rerankModel: RERANKER, rerankWeight: 1 }), caller },
      w.deps,
    );
    // assert
    expect(result.usingReRank).toBe(true);
    expect(result.usingSimilarityFilter).toBe(true);
    expect(result.list.map((i) => i.id)).toEqual(['c', 'a', 'b']);
    expect(result.list[0]?.score).toEqual([{ type: 'reRank', value: expect.any(Number), index: 0 }]);
    const sent = upstream.requests.find((r) => r.path === '/v1/rerank');
    expect(sent?.body).toEqual({
      model: RERANKER,
      query: QUESTION,
      documents: CHUNKS.map((c) => c.q),
      top_n: 3,
      return_documents: false,
    });
    const [record] = w.usage.records;
    expect(record).toMatchObject({ endpoint: 'rerank', keyId: KB_RELAY_KEY_ID, channelId: 'sf', status: 200 });
    w.relay.close();
  });

  it('fuses the rerank list with the search result by rerankWeight, scores of both kept', async () => {
    // prepare
    const w = world([RERANKER]);
    // act
    const result = await searchTest(
      { body: body({ usingReRank: true, rerankModel: RERANKER, rerankWeight: 0.5 }), caller },
      w.deps,
    );
    // assert: k = 60 for both lists, so a (1st and 2nd: 1/61 + 1/62) edges out c (3rd and 1st: 1/63 + 1/61)
    expect(result.usingReRank).toBe(true);
    const top = result.list[0];
    expect(top?.score.map((s) => s.type).sort()).toEqual(['fullText', 'reRank', 'rrf']);
    expect(result.list.map((i) => i.id)).toEqual(['a', 'c', 'b']);
    w.relay.close();
  });

  it('answers in recall order with usingReRank false when every rerank attempt fails', async () => {
    // prepare
    const w = world([RERANKER]);
    upstream.faultAlways({ kind: 'server-error' });
    // act
    const result = await searchTest({ body: body({ usingReRank: true, rerankModel: RERANKER }), caller }, w.deps);
    // assert
    expect(result.usingReRank).toBe(false);
    expect(result.usingSimilarityFilter).toBe(false);
    expect(result.list.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(result.list.flatMap((i) => i.score.map((s) => s.type))).not.toContain('reRank');
    expect(w.usage.records[0]).toMatchObject({ endpoint: 'rerank', status: 500 });
    w.relay.close();
  });

  it('answers without rerank when no channel lists the rerank model, asking no upstream', async () => {
    // prepare
    const w = world(['text-embedding-3-small']);
    // act
    const result = await searchTest({ body: body({ usingReRank: true, rerankModel: RERANKER }), caller }, w.deps);
    // assert
    expect(result.usingReRank).toBe(false);
    expect(result.list.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(upstream.requests).toHaveLength(0);
    w.relay.close();
  });

  it('reranks with no model named only when the catalogue has a default rerank model, as FastGPT', async () => {
    // prepare
    const withDefault = world([RERANKER], { models: [RERANKER], default: RERANKER });
    const without = world([RERANKER]);
    // act
    const defaulted = await searchTest({ body: body({ usingReRank: true }), caller }, withDefault.deps);
    const unknown = await searchTest(
      { body: body({ usingReRank: true, rerankModel: 'nope' }), caller },
      withDefault.deps,
    );
    const none = await searchTest({ body: body({ usingReRank: true }), caller }, without.deps);
    // assert: a model the catalogue does not list is its default (FastGPT's getRerankModel)
    expect(defaulted.usingReRank).toBe(true);
    expect(unknown.usingReRank).toBe(true);
    expect(upstream.requests.map((r) => r.body?.model)).toEqual([RERANKER, RERANKER]);
    expect(none.usingReRank).toBe(false);
    withDefault.relay.close();
    without.relay.close();
  });

  it('never reranks when usingReRank is not asked for', async () => {
    // prepare
    const w = world([RERANKER], { models: [RERANKER], default: RERANKER });
    // act
    const result = await searchTest({ body: body({ rerankModel: RERANKER }), caller }, w.deps);
    // assert
    expect(result.usingReRank).toBe(false);
    expect(upstream.requests).toHaveLength(0);
    w.relay.close();
  });
});

describe("the catalogue's rerank models (MODEL_CATALOG rerank)", () => {
  const base = {
    vector: { models: ['text-embedding-3-small'], default: 'text-embedding-3-small' },
    agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
    vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
  };

  it('are optional, and kept by name with their default', () => {
    expect(parseModelCatalog(base).rerank).toBeUndefined();
    const parsed = parseModelCatalog({ ...base, rerank: { models: [RERANKER, 'rerank-v3.5'], default: RERANKER } });
    expect(parsed.rerank).toEqual({ models: [RERANKER, 'rerank-v3.5'], default: RERANKER });
  });

  it.each([
    [{ models: ['x'], default: 'y' }, 'rerank.default: default is not in its models list'],
    [{ models: [], default: 'y' }, 'rerank.models: needs at least one model'],
    [{ models: ['x', 'x'], default: 'x' }, 'rerank.models: names a model twice'],
    [{ models: ['x'], default: 'x', requestUrl: 'http://a' }, 'rerank'],
  ])('refuse %j at cold start', (rerank, where) => {
    const [path, message] = where.split(': ');
    expect(() => parseModelCatalog({ ...base, rerank })).toThrow(`MODEL_CATALOG is invalid at ${path}`);
    if (message) expect(() => parseModelCatalog({ ...base, rerank })).toThrow(message);
  });

  it('pick the model asked for when listed, else the default; with none configured, the one asked for', () => {
    const models = { models: ['r1', 'r2'], default: 'r1' };
    expect(rerankModelFor(models, 'r2')).toBe('r2');
    expect(rerankModelFor(models, 'other')).toBe('r1');
    expect(rerankModelFor(models, undefined)).toBe('r1');
    expect(rerankModelFor(undefined, 'other')).toBe('other');
    expect(rerankModelFor(undefined, undefined)).toBeUndefined();
  });
});
