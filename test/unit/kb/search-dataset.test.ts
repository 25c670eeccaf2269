import { describe, expect, it } from 'vitest';
import type { Embedder, SearchableChunk } from '#shared/kb/contract';
import { rrfConcat } from '#shared/kb/search/rrf';
import { cutToTokenBudget, type SearchDatasetInput, searchDataset } from '#shared/kb/search/search-dataset';
import type { ChunkRef, ScoredRef, SearchResultItem } from '#shared/kb/search/types';

/*
 * The search core with fakes: FastGPT's recall sizes, fusion weights, rerank, repeats, similarity and token budget
 * (packages/service/core/dataset/search/controller.ts, read at v4.12–v4.14).
 */

const chunk = (id: string, q = `text of ${id}`): SearchableChunk => ({
  id,
  datasetId: 'd',
  collectionId: 'c',
  chunkIndex: 0,
  q,
  a: '',
  updateTime: '2026-11-27T00:00:00.000Z',
  sourceName: 'source.txt',
});

function world(options: {
  chunks: SearchableChunk[];
  embedding?: ScoredRef[];
  fullText?: ScoredRef[];
  embedder?: Embedder | null;
  rerank?: (ids: string[]) => { id: string; score: number }[];
}) {
  const calls = {
    embed: [] as string[],
    vectorTopK: [] as number[],
    fullTextLimit: [] as number[],
    read: [] as ChunkRef[][],
  };
  const byId = new Map(options.chunks.map((c) => [c.id, c]));
  return {
    calls,
    deps: {
      ...(options.embedder === null
        ? {}
        : {
            embedder: options.embedder ?? {
              async embed(_model: string, texts: readonly string[]) {
                calls.embed.push(...texts);
                return texts.map(() => [1, 0]);
              },
            },
          }),
      vectors: {
        async nearest(_t: string, _d: string, _v: readonly number[], topK: number) {
          calls.vectorTopK.push(topK);
          return (options.embedding ?? []).slice(0, topK);
        },
      },
      fullText: {
        async search(_t: string, _d: string, _q: string, limit: number) {
          calls.fullTextLimit.push(limit);
          return (options.fullText ?? []).slice(0, limit);
        },
      },
      reader: {
        async readRefs(_t: string, _d: string, refs: readonly ChunkRef[]) {
          calls.read.push([...refs]);
          return refs.flatMap((r) => (byId.has(r.dataId) ? [byId.get(r.dataId)!] : []));
        },
      },
      ...(options.rerank
        ? {
            reranker: {
              async rerank(_m: string, _q: string, docs: readonly { id: string; text: string }[]) {
                return options.rerank!(docs.map((d) => d.id));
              },
            },
          }
        : {}),
      countTokens: (text: string) => text.length,
    },
  };
}

const input = (overrides: Partial<SearchDatasetInput> = {}): SearchDatasetInput => ({
  teamId: 't',
  datasetId: 'd',
  vectorModel: 'text-embedding-3-small',
  queries: ['question'],
  reRankQuery: 'question',
  limit: 5000,
  similarity: 0,
  searchMode: 'embedding',
  embeddingWeight: 0.5,
  usingReRank: false,
  rerankWeight: 0.5,
  ...overrides,
});

const refs = (...ids: [string, number][]): ScoredRef[] =>
  ids.map(([dataId, score]) => ({ dataId, collectionId: 'c', score }));

describe('searchDataset', () => {
  it('recalls 100 by embedding, scoring each item with its embedding score and rank, nothing fused', async () => {
    const w = world({ chunks: [chunk('a'), chunk('b')], embedding: refs(['a', 0.9], ['b', 0.8]) });
    const result = await searchDataset(input(), w.deps);
    expect(w.calls.vectorTopK).toEqual([100]);
    expect(w.calls.fullTextLimit).toEqual([]);
    expect(w.calls.embed).toEqual(['question']);
    expect(result.list.map((i) => [i.id, i.score])).toEqual([
      ['a', [{ type: 'embedding', value: 0.9, index: 0 }]],
      ['b', [{ type: 'embedding', value: 0.8, index: 1 }]],
    ]);
    expect(result.usingSimilarityFilter).toBe(true);
  });

  it('drops embedding results under the similarity, and full-text results never', async () => {
    const w = world({
      chunks: [chunk('a'), chunk('b')],
      embedding: refs(['a', 0.9], ['b', 0.3]),
      fullText: refs(['b', 2]),
    });
    expect((await searchDataset(input({ similarity: 0.5 }), w.deps)).list.map((i) => i.id)).toEqual(['a']);
    const fullText = await searchDataset(input({ similarity: 0.99, searchMode: 'fullTextRecall' }), w.deps);
    expect(fullText.list.map((i) => i.id)).toEqual(['b']);
    expect(fullText.usingSimilarityFilter).toBe(false);
  });

  it('recalls 80 by embedding and 60 by full text in mixed mode and fuses them with weighted k', async () => {
    // With embeddingWeight 0.8: k = 24 for the embedding list and 96 for the full-text list (FastGPT's 120 split).
    const w = world({
      chunks: [chunk('e'), chunk('f'), chunk('both')],
      embedding: refs(['e', 0.9], ['both', 0.8]),
      fullText: refs(['f', 9], ['both', 5]),
    });
    const result = await searchDataset(input({ searchMode: 'mixedRecall', embeddingWeight: 0.8 }), w.deps);
    expect(w.calls.vectorTopK).toEqual([80]);
    expect(w.calls.fullTextLimit).toEqual([80]);
    const rrf = (id: string) => result.list.find((i) => i.id === id)!.score.find((s) => s.type === 'rrf')!.value;
    expect(rrf('e')).toBeCloseTo(1 / 25);
    expect(rrf('f')).toBeCloseTo(1 / 97);
    expect(rrf('both')).toBeCloseTo(1 / 26 + 1 / 98);
    expect(result.list.map((i) => i.id)).toEqual(['both', 'e', 'f']);
    expect(result.list[0]!.score.map((s) => s.type)).toEqual(['embedding', 'fullText', 'rrf']);
  });

  it('ranks the full-text list first when embeddingWeight is low', async () => {
    const w = world({ chunks: [chunk('e'), chunk('f')], embedding: refs(['e', 0.9]), fullText: refs(['f', 3]) });
    const result = await searchDataset(input({ searchMode: 'mixedRecall', embeddingWeight: 0.2 }), w.deps);
    expect(result.list.map((i) => i.id)).toEqual(['f', 'e']);
  });

  it('runs mixed recall on full text alone when nothing can embed, and fails embedding recall clearly', async () => {
    const w = world({ chunks: [chunk('f')], fullText: refs(['f', 3]), embedder: null });
    const mixed = await searchDataset(input({ searchMode: 'mixedRecall' }), w.deps);
    expect(mixed.list.map((i) => i.id)).toEqual(['f']);
    await expect(searchDataset(input(), w.deps)).rejects.toThrow(/No channel can embed with text-embedding-3-small/);
  });

  it('fuses each query of an extension with k = 60 before the lists are weighed', async () => {
    const w = world({ chunks: [chunk('a'), chunk('b')], embedding: refs(['a', 0.9], ['b', 0.8]) });
    const result = await searchDataset(input({ queries: ['q1', 'q2'] }), w.deps);
    expect(w.calls.embed).toEqual(['q1', 'q2']);
    const a = result.list.find((i) => i.id === 'a')!;
    expect(a.score.find((s) => s.type === 'rrf')?.value).toBeCloseTo(2 / 61);
  });

  it('leaves out chunks the reader does not show, and repeated text (letters and digits compared)', async () => {
    const w = world({
      chunks: [chunk('a', 'Hello, world!'), chunk('b', 'hello world'), chunk('c', 'Hello world')],
      embedding: refs(['gone', 0.99], ['a', 0.9], ['b', 0.8], ['c', 0.7]),
    });
    const result = await searchDataset(input(), w.deps);
    // "Hello world" repeats a's text exactly once punctuation is gone; "hello world" differs in case, as in FastGPT.
    expect(result.list.map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('reranks with weight, filters by the rerank score, and answers usingReRank true', async () => {
    const w = world({
      chunks: [chunk('a'), chunk('b'), chunk('c')],
      embedding: refs(['a', 0.9], ['b', 0.8], ['c', 0.7]),
      rerank: () => [
        { id: 'c', score: 0.95 },
        { id: 'b', score: 0.5 },
        { id: 'a', score: 0.1 },
      ],
    });
    const result = await searchDataset(
      input({ usingReRank: true, rerankModel: 'bge-reranker', rerankWeight: 1, similarity: 0.3 }),
      w.deps,
    );
    expect(result.usingReRank).toBe(true);
    expect(result.list.map((i) => [i.id, i.score])).toEqual([
      ['c', [{ type: 'reRank', value: 0.95, index: 0 }]],
      ['b', [{ type: 'reRank', value: 0.5, index: 1 }]],
    ]);
  });

  it('skips rerank with no reranker or no model, and answers without it when the rerank call fails', async () => {
    const noReranker = world({ chunks: [chunk('a')], embedding: refs(['a', 0.9]) });
    expect((await searchDataset(input({ usingReRank: true, rerankModel: 'm' }), noReranker.deps)).usingReRank).toBe(
      false,
    );
    const failing = world({
      chunks: [chunk('a')],
      embedding: refs(['a', 0.9]),
      rerank: () => {
        throw new Error('down');
      },
    });
    const result = await searchDataset(input({ usingReRank: true, rerankModel: 'm' }), failing.deps);
    expect(result.usingReRank).toBe(false);
    expect(result.list.map((i) => i.id)).toEqual(['a']);
  });

  it('answers usingReRank false when the rerank answer names none of the candidates', async () => {
    const stranger = world({
      chunks: [chunk('a'), chunk('b')],
      embedding: refs(['a', 0.9], ['b', 0.8]),
      rerank: () => [{ id: 'not-a-candidate', score: 0.99 }],
    });
    const result = await searchDataset(input({ usingReRank: true, rerankModel: 'm', rerankWeight: 1 }), stranger.deps);
    expect(result.usingReRank).toBe(false);
    expect(result.list.map((i) => i.id)).toEqual(['a', 'b']);
  });
});

describe('token budget', () => {
  const items = ['aaaa', 'bbbb', 'cccc'].map((q, i) => ({ ...chunk(String(i), q), score: [] }) as SearchResultItem);

  it('keeps items until the budget is passed, the passing item included, as FastGPT cuts', () => {
    expect(cutToTokenBudget(items, 5, (t) => t.length).map((i) => i.q)).toEqual(['aaaa', 'bbbb']);
    expect(cutToTokenBudget(items, 8, (t) => t.length).map((i) => i.q)).toEqual(['aaaa', 'bbbb', 'cccc']);
  });

  it('keeps at least one item, even over a zero budget', () => {
    expect(cutToTokenBudget(items, 0, (t) => t.length)).toHaveLength(1);
    expect(cutToTokenBudget([], 0, (t) => t.length)).toEqual([]);
  });
});

describe('rrfConcat', () => {
  it('returns one non-empty list as it is, without an rrf score', () => {
    const list = [{ ...chunk('a'), score: [{ type: 'embedding' as const, value: 1, index: 0 }] }];
    expect(
      rrfConcat([
        { k: 60, list },
        { k: 60, list: [] },
      ]),
    ).toEqual(list);
  });

  it('keeps the best value of a score type an item has in two lists', () => {
    const one = [{ ...chunk('a'), score: [{ type: 'fullText' as const, value: 1, index: 0 }] }];
    const two = [{ ...chunk('a'), score: [{ type: 'fullText' as const, value: 3, index: 0 }] }];
    const fused = rrfConcat([
      { k: 60, list: one },
      { k: 60, list: two },
    ]);
    expect(fused[0]!.score).toEqual([
      { type: 'fullText', value: 3, index: 0 },
      { type: 'rrf', value: 2 / 61, index: 0 },
    ]);
  });
});
