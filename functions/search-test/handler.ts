import { documentClient, dynamoClient } from '#shared/clients/dynamodb';
import { kbSearchEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { DynamoChunkReader } from '#shared/kb/chunk-reader';
import { createVectorSearch } from '#shared/kb/search/factory';
import { DynamoFullTextIndex } from '#shared/kb/search/full-text-index';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { searchModels } from './embedder.ts';
import { searchTestBodySchema } from './schema.ts';
import { type SearchTestDeps, searchTest } from './search-test.ts';

const config = loadConfig(kbSearchEnvSchema);
const logger = createLogger('search-test', config.LOG_LEVEL);
const tables = { vectors: config.KB_VECTORS_TABLE, terms: config.KB_TERMS_TABLE };
const { embedder, extender, reranker } = searchModels(logger);
const deps: SearchTestDeps = {
  datasets: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  defaultVectorModel: config.MODEL_CATALOG.vector.default,
  ...(config.MODEL_CATALOG.rerank ? { rerankModels: config.MODEL_CATALOG.rerank } : {}),
  reader: new DynamoChunkReader(documentClient, config.KB_CONTENT_TABLE),
  fullText: new DynamoFullTextIndex(documentClient, config.KB_TERMS_TABLE),
  // The exact search keeps a warm cache per knowledge base across invocations (module scope).
  vectors: createVectorSearch(
    { document: documentClient, raw: dynamoClient },
    tables,
    config.KB_VECTOR_SEARCH,
    config.KB_VECTOR_DIMENSIONS,
  ),
  ...(embedder ? { embedder } : {}),
  ...(extender ? { extender } : {}),
  ...(reranker ? { reranker } : {}),
};

/** POST /api/core/dataset/searchTest behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  searchTest({ body: datasetBody(event, searchTestBodySchema), caller }, deps),
);
