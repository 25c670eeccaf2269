import { documentClient } from '#shared/clients/dynamodb';
import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { updateDatasetBodySchema } from './schema.ts';
import { type UpdateDatasetDeps, updateDataset } from './update-dataset.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('update-dataset', config.LOG_LEVEL);
const deps: UpdateDatasetDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
  modelPolicy: config.MODEL_POLICY,
  now: () => new Date(),
};

/** PUT /api/core/dataset/update behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  updateDataset({ body: datasetBody(event, updateDatasetBodySchema), caller }, deps),
);
