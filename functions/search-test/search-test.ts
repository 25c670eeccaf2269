import { requireRecord } from '#shared/dataset-tree';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { EmbeddingUnavailableError } from '#shared/kb/contract';
import { type SearchDatasetDeps, searchDataset } from '#shared/kb/search/search-dataset';
import type { QueryExtender, SearchResultItem } from '#shared/kb/search/types';
import { type RerankModels, rerankModelFor } from '#shared/model-catalog';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { SearchTestBody } from './schema.ts';

export interface SearchTestDeps extends SearchDatasetDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  /** The vector model of a knowledge base that names none: the catalogue's default, as FastGPT uses its default. */
  readonly defaultVectorModel: string;
  /** The catalogue's rerank models (MODEL_CATALOG `rerank`): the default reranks when a request names none. */
  readonly rerankModels?: RerankModels;
  /** Absent: `datasetSearchUsingExtensionQuery` is accepted and ignored (docs/knowledge-base-search.md). */
  readonly extender?: QueryExtender;
  readonly now?: () => number;
}

/** FastGPT's searchTest answer (SearchTestResponse). */
export interface SearchTestResult {
  list: SearchResultItem[];
  duration: string;
  queryExtensionModel?: string;
  usingReRank: boolean;
  searchMode: string;
  limit: number;
  similarity: number;
  usingSimilarityFilter: boolean;
}

/**
 * POST /api/core/dataset/searchTest: the caller's knowledge base searched as FastGPT searches it. Another team's id,
 * or one that does not exist, is 501002 (never revealing which).
 */
export async function searchTest(
  input: { body: SearchTestBody; caller: CallerContext },
  deps: SearchTestDeps,
): Promise<SearchTestResult> {
  const now = deps.now ?? Date.now;
  const start = now();
  const { body, caller } = input;
  const dataset = await requireRecord(deps.datasets, caller.teamId, body.datasetId, 'datasetId');

  const queries = [body.text];
  let queryExtensionModel: string | undefined;
  if (body.datasetSearchUsingExtensionQuery && body.datasetSearchExtensionModel && deps.extender) {
    try {
      const extra = await deps.extender.extend(
        body.datasetSearchExtensionModel,
        body.text,
        body.datasetSearchExtensionBg,
      );
      const fresh = extra.map((q) => q.trim()).filter((q) => q.length > 0 && q !== body.text);
      if (fresh.length > 0) {
        queries.push(...fresh.slice(0, 5));
        queryExtensionModel = body.datasetSearchExtensionModel;
      }
    } catch {
      // FastGPT searches with the question alone when the extension fails.
    }
  }

  const rerankModel = rerankModelFor(deps.rerankModels, body.rerankModel);
  try {
    const result = await searchDataset(
      {
        teamId: caller.teamId,
        datasetId: dataset.id,
        vectorModel: dataset.vectorModel ?? deps.defaultVectorModel,
        queries,
        reRankQuery: queries.join('\n'),
        limit: body.limit,
        similarity: body.similarity,
        searchMode: body.searchMode,
        embeddingWeight: body.embeddingWeight,
        usingReRank: body.usingReRank,
        ...(rerankModel ? { rerankModel } : {}),
        rerankWeight: body.rerankWeight,
      },
      deps,
    );
    return {
      list: result.list,
      duration: `${((now() - start) / 1000).toFixed(3)}s`,
      ...(queryExtensionModel ? { queryExtensionModel } : {}),
      usingReRank: result.usingReRank,
      searchMode: result.searchMode,
      limit: result.limit,
      similarity: result.similarity,
      usingSimilarityFilter: result.usingSimilarityFilter,
    };
  } catch (error) {
    if (error instanceof EmbeddingUnavailableError) {
      throw datasetErrors.embeddingUnavailable(
        `The question could not be embedded with ${dataset.vectorModel ?? deps.defaultVectorModel}: ${error.message}. ` +
          'Full-text search (searchMode "fullTextRecall") works without it',
      );
    }
    throw error;
  }
}
