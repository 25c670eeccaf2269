import { type Embedder, EmbeddingUnavailableError } from '../contract.ts';
import { countTokens as cl100kTokens } from '../tokens.ts';
import { RRF_BASE_K, RRF_K, rrfConcat } from './rrf.ts';
import type {
  ChunkRefReader,
  FullTextSearch,
  Reranker,
  ScoredRef,
  ScoreType,
  SearchResultItem,
  VectorSearch,
} from './types.ts';

/*
 * The search of one knowledge base as FastGPT runs it (packages/service/core/dataset/search/controller.ts,
 * searchDatasetData, read at v4.12–v4.14; docs/knowledge-base-search.md): recall by embedding, full text or both;
 * each query's lists fused (RRF, k = 60); rerank when asked and a rerank model is there; embedding and full-text lists
 * fused with weights (`embeddingWeight`), then with the rerank list (`rerankWeight`); repeated text left out; the
 * similarity filter; the token budget.
 */

export type SearchMode = 'embedding' | 'fullTextRecall' | 'mixedRecall';

export interface SearchDatasetInput {
  readonly teamId: string;
  readonly datasetId: string;
  /** The knowledge base's `vectorModel`. */
  readonly vectorModel: string;
  /** The question, then any extension queries. */
  readonly queries: readonly string[];
  /** What a rerank model is asked about (the queries joined). */
  readonly reRankQuery: string;
  /** Token budget of the answer. */
  readonly limit: number;
  readonly similarity: number;
  readonly searchMode: SearchMode;
  readonly embeddingWeight: number;
  readonly usingReRank: boolean;
  readonly rerankModel?: string;
  readonly rerankWeight: number;
}

export interface SearchDatasetDeps {
  /** Absent when no channel can embed: embedding recall then fails, mixed recall runs on full text alone. */
  readonly embedder?: Embedder;
  readonly vectors: VectorSearch;
  readonly fullText: FullTextSearch;
  readonly reader: ChunkRefReader;
  /** Absent: rerank is skipped as FastGPT skips it with no rerank model. */
  readonly reranker?: Reranker;
  readonly countTokens?: (text: string) => number;
}

export interface SearchDatasetResult {
  readonly list: SearchResultItem[];
  readonly searchMode: SearchMode;
  readonly limit: number;
  readonly similarity: number;
  readonly usingReRank: boolean;
  readonly usingSimilarityFilter: boolean;
}

/**
 * Full-text hits read beyond the recall size: a removed chunk's postings may stay until its batch is gone, and the
 * reader leaves such a chunk out (shared/kb/search/full-text-index.ts).
 */
const FULL_TEXT_SPARE = 20;

/** FastGPT's recall sizes per mode (countRecallLimit). */
export function recallLimits(mode: SearchMode): { embedding: number; fullText: number } {
  if (mode === 'embedding') return { embedding: 100, fullText: 0 };
  if (mode === 'fullTextRecall') return { embedding: 0, fullText: 100 };
  return { embedding: 80, fullText: 60 };
}

/** The text FastGPT compares to leave out repeats: q and a with everything but letters and digits removed. */
const sameTextKey = (item: SearchResultItem) => `${item.q}${item.a}`.replace(/[^\p{L}\p{N}]/gu, '');

function uniqueText(items: readonly SearchResultItem[]): SearchResultItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = sameTextKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function searchDataset(input: SearchDatasetInput, deps: SearchDatasetDeps): Promise<SearchDatasetResult> {
  const limits = recallLimits(input.searchMode);
  let usingReRank = input.usingReRank && deps.reranker !== undefined && Boolean(input.rerankModel);
  // Mixed recall with no way to embed runs on full text alone (docs/knowledge-base-search.md, "No embedding channel").
  const embedLimit = input.searchMode === 'mixedRecall' && !deps.embedder ? 0 : limits.embedding;

  const perQuery = await Promise.all(
    input.queries.map(async (query) => {
      const [embedded, fullText] = await Promise.all([
        embedLimit > 0
          ? embeddingRecall(input, deps, query, embedLimit).catch((error: unknown) => {
              // Mixed recall whose question cannot be embedded (no channel serves the vector model, or every one
              // failed) runs on full text alone, as with no embedder; embedding recall alone answers the error.
              if (input.searchMode === 'mixedRecall' && error instanceof EmbeddingUnavailableError) return [];
              throw error;
            })
          : [],
        limits.fullText > 0
          ? deps.fullText.search(input.teamId, input.datasetId, query, limits.fullText + FULL_TEXT_SPARE)
          : [],
      ]);
      return { embedded, fullText };
    }),
  );
  const refs = perQuery.flatMap((q) => [...q.embedded, ...q.fullText]);
  const chunks = new Map(
    (await deps.reader.readRefs(input.teamId, input.datasetId, refs)).map((chunk) => [chunk.id, chunk]),
  );
  const toItems = (found: readonly ScoredRef[], type: ScoreType, cap: number): SearchResultItem[] => {
    const items: SearchResultItem[] = [];
    for (const ref of found) {
      const chunk = chunks.get(ref.dataId);
      if (!chunk || items.some((i) => i.id === chunk.id)) continue;
      items.push({ ...chunk, score: [{ type, value: ref.score, index: items.length }] });
      if (items.length >= cap) break;
    }
    return items;
  };
  const embeddingResults = rrfConcat(
    perQuery.map((q) => ({ k: RRF_K, list: toItems(q.embedded, 'embedding', embedLimit) })),
  ).slice(0, embedLimit);
  const fullTextResults = rrfConcat(
    perQuery.map((q) => ({ k: RRF_K, list: toItems(q.fullText, 'fullText', limits.fullText) })),
  ).slice(0, limits.fullText);

  let reRankResults: SearchResultItem[] = [];
  if (usingReRank && deps.reranker && input.rerankModel) {
    // FastGPT's candidates: the embedding list, then the full-text items not in it, repeated text left out (at most
    // 100 in one-list modes, 140 in mixed recall).
    const seen = new Set(embeddingResults.map((i) => i.id));
    const candidates = uniqueText([...embeddingResults, ...fullTextResults.filter((i) => !seen.has(i.id))]);
    try {
      const ranked = await deps.reranker.rerank(
        input.rerankModel,
        input.reRankQuery,
        candidates.map((i) => ({ id: i.id, text: `${i.q}\n${i.a}` })),
      );
      if (ranked.length === 0) throw new Error('Rerank returned nothing');
      const byId = new Map(candidates.map((c) => [c.id, c]));
      reRankResults = ranked.flatMap((r, index) => {
        const target = byId.get(r.id);
        return target ? [{ ...target, score: [{ type: 'reRank' as const, value: r.score || 0, index }] }] : [];
      });
      // `usingReRank` says the order was reranked: an answer that names none of the candidates did not rerank.
      if (reRankResults.length === 0) throw new Error('Rerank named no candidate');
    } catch {
      // FastGPT answers without rerank when the rerank call fails, and says so (`usingReRank: false`).
      usingReRank = false;
    }
  }

  const embK = Math.round(RRF_BASE_K * (1 - input.embeddingWeight));
  const fullTextK = Math.round(RRF_BASE_K * input.embeddingWeight);
  const searchResults = rrfConcat([
    { k: embK, list: embeddingResults },
    { k: fullTextK, list: fullTextResults },
  ]);
  let fused = searchResults;
  if (reRankResults.length > 0) {
    fused =
      input.rerankWeight === 1
        ? reRankResults
        : rrfConcat([
            { k: Math.round(RRF_BASE_K * input.rerankWeight), list: searchResults },
            { k: Math.round(RRF_BASE_K * (1 - input.rerankWeight)), list: reRankResults },
          ]);
  }
  const unique = uniqueText(fused);

  let usingSimilarityFilter = false;
  let filtered = unique;
  const below = (type: ScoreType) => (item: SearchResultItem) => {
    const score = item.score.find((s) => s.type === type);
    return !(score && score.value < input.similarity);
  };
  if (usingReRank) {
    usingSimilarityFilter = true;
    filtered = unique.filter(below('reRank'));
  } else if (input.searchMode === 'embedding') {
    usingSimilarityFilter = true;
    filtered = unique.filter(below('embedding'));
  }

  return {
    list: cutToTokenBudget(filtered, input.limit, deps.countTokens ?? cl100kTokens),
    searchMode: input.searchMode,
    limit: input.limit,
    similarity: input.similarity,
    usingReRank,
    usingSimilarityFilter,
  };
}

async function embeddingRecall(
  input: SearchDatasetInput,
  deps: SearchDatasetDeps,
  query: string,
  limit: number,
): Promise<ScoredRef[]> {
  if (!deps.embedder) {
    throw new EmbeddingUnavailableError(`No channel can embed with ${input.vectorModel}`, false);
  }
  const [vector] = await deps.embedder.embed(input.vectorModel, [query]);
  if (!vector || vector.length === 0) throw new EmbeddingUnavailableError('The embedding came back empty', true);
  return deps.vectors.nearest(input.teamId, input.datasetId, vector, limit);
}

/**
 * FastGPT's token budget (filterDatasetDataByMaxTokens): items are taken in order until their q + a tokens pass the
 * budget; the item that passes it is kept; an empty cut keeps the first item.
 */
export function cutToTokenBudget(
  items: readonly SearchResultItem[],
  budget: number,
  count: (text: string) => number,
): SearchResultItem[] {
  const out: SearchResultItem[] = [];
  let total = 0;
  for (const item of items) {
    out.push(item);
    total += count(item.q + item.a);
    if (total > budget) break;
  }
  return out.length === 0 ? items.slice(0, 1) : out;
}
