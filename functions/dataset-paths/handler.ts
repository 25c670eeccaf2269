import { documentClient } from '#shared/clients/dynamodb';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { type DatasetPathsDeps, datasetPaths } from './dataset-paths.ts';
import { pathsQuerySchema } from './schema.ts';

const config = loadConfig(datasetsEnvSchema);
const logger = createLogger('dataset-paths', config.LOG_LEVEL);
const deps: DatasetPathsDeps = { repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE) };

/** GET /api/core/dataset/paths?sourceId=<id>&type=current|parent behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  datasetPaths({ query: datasetQuery(event, pathsQuerySchema), caller }, deps),
);
