import * as z from 'zod';
import { searchTestBodySchema } from '#functions/search-test/schema';
import { datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import { datasetError, type RouteContract, type TopicContracts } from './contract-parts.ts';

/*
 * The contract of the knowledge base's search (docs/knowledge-base-search.md), registered in openapi/contracts.ts.
 * The answer is FastGPT's SearchTestResponse (projects/app/src/pages/api/core/dataset/searchTest.ts, v4.11–v4.16).
 */

const scoreSchema = z.strictObject({
  type: z.enum(['embedding', 'fullText', 'reRank', 'rrf']),
  value: z.number(),
  index: z.int().nonnegative(),
});

/** One found chunk, as FastGPT lists it (SearchDataResponseItemType). */
export const searchItemSchema = z
  .strictObject({
    id: z.string(),
    q: z.string(),
    a: z.string(),
    chunkIndex: z.int().nonnegative(),
    datasetId: z.string(),
    collectionId: z.string(),
    sourceName: z.string(),
    sourceId: z.string().optional(),
    updateTime: z.string(),
    score: z.array(scoreSchema).min(1),
  })
  .meta({ description: 'A chunk found, with the score of each recall that found it and its rank there (`index`)' });

export const searchTestResultSchema = z.strictObject({
  list: z.array(searchItemSchema),
  duration: z
    .string()
    .regex(/^\d+\.\d{3}s$/)
    .meta({ description: 'Seconds the search took, e.g. `0.042s`' }),
  queryExtensionModel: z.string().optional(),
  usingReRank: z.boolean(),
  searchMode: z.enum(['embedding', 'fullTextRecall', 'mixedRecall']),
  limit: z.number().nonnegative(),
  similarity: z.number(),
  usingSimilarityFilter: z.boolean(),
});

export const searchTestContract: RouteContract = {
  operationId: 'searchDataset',
  summary: 'Search a knowledge base (embedding, full text or mixed)',
  description:
    "FastGPT's search test: recall by embedding (the question embedded with the knowledge base's `vectorModel`), by full text (BM25 over word segments, Chinese, Japanese and English alike; needs no embedding channel) or both fused by reciprocal rank with `embeddingWeight`. `limit` is a token budget (default 5,000, at most 20,000): chunks are taken in order until it is passed, at least one. `similarity` filters embedding (or rerank) scores. Rerank runs only when a rerank model is configured (none is yet: `usingReRank` answers false); the query extension is accepted and ignored until a chat model is wired. An unknown `searchMode` is `embedding`. Unknown fields are ignored.",
  request: {
    body: searchTestBodySchema,
    bodyExample: {
      datasetId: '6740a1f2c3d4e5f6a7b8c9d0',
      text: 'How tall is the Eiffel Tower?',
      searchMode: 'mixedRecall',
    },
  },
  success: {
    status: 200,
    description: 'The chunks found, best first, cut to the token budget',
    body: datasetSuccessBodySchema(searchTestResultSchema),
    example: {
      code: 200,
      statusText: '',
      message: '',
      data: {
        list: [
          {
            id: '6740a1f2c3d4e5f6a7b8c9d1',
            q: 'The Eiffel Tower is about 330 metres tall.',
            a: '',
            chunkIndex: 0,
            datasetId: '6740a1f2c3d4e5f6a7b8c9d0',
            collectionId: '6740a1f2c3d4e5f6a7b8c9d2',
            sourceName: 'paris.md',
            updateTime: '2026-11-27T10:00:00.000Z',
            score: [
              { type: 'fullText', value: 2.31, index: 0 },
              { type: 'embedding', value: 0.83, index: 0 },
              { type: 'rrf', value: 0.0328, index: 0 },
            ],
          },
        ],
        duration: '0.042s',
        usingReRank: false,
        searchMode: 'mixedRecall',
        limit: 5000,
        similarity: 0,
        usingSimilarityFilter: false,
      },
    },
  },
  errors: [
    datasetError('invalidParams'),
    datasetError('missingParams'),
    datasetError('unExistDataset'),
    datasetError('embeddingUnavailable'),
    datasetError('unauthorized'),
    datasetError('unAuthApiKey'),
  ],
};

export const KB_SEARCH_CONTRACTS: TopicContracts = {
  dataset: { 'POST /api/core/dataset/searchTest': searchTestContract },
};
