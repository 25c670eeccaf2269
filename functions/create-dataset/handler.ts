import { documentClient } from '#shared/clients/dynamodb';
import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { newObjectId } from '#shared/ids';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { type CreateDatasetDeps, createDataset } from './create-dataset.ts';
import { createDatasetBodySchema } from './schema.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('create-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: CreateDatasetDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
  modelPolicy: config.MODEL_POLICY,
  now: () => new Date(),
  newId: () => newObjectId(),
};

/** POST /api/core/dataset/create behind the authorizer. */
export const handler = datasetHandler(
  logger,
  async (event, caller) => {
    const { id } = await createDataset({ body: datasetBody(event, createDatasetBodySchema), caller }, deps);
    addMetric(metrics, BUSINESS_METRICS.datasetsCreated, 1);
    return id;
  },
  metrics,
);
