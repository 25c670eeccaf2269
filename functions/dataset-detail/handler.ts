import { documentClient } from '#shared/clients/dynamodb';
import { catalogEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { type DatasetDetailDeps, datasetDetail } from './dataset-detail.ts';

const config = loadConfig(catalogEnvSchema);
const logger = createLogger('dataset-detail', config.LOG_LEVEL);
const deps: DatasetDetailDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
};

/** GET /api/core/dataset/detail?id=<id> behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  datasetDetail({ query: datasetQuery(event, idQuerySchema), caller }, deps),
);
