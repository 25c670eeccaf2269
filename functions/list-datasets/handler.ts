import { documentClient } from '#shared/clients/dynamodb';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { LIST_LIMITS, type ListDatasetsDeps, listDatasets } from './list-datasets.ts';
import { listDatasetsBodySchema } from './schema.ts';

const config = loadConfig(datasetsEnvSchema);
const logger = createLogger('list-datasets', config.LOG_LEVEL);
const deps: ListDatasetsDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  limits: LIST_LIMITS,
};

/** POST /api/core/dataset/list behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  listDatasets({ body: datasetBody(event, listDatasetsBodySchema), caller }, deps),
);
