import { documentClient } from '#shared/clients/dynamodb';
import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { newObjectId } from '#shared/ids';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import type { CreateDatasetDeps } from '../create-dataset/create-dataset.ts';
import { createDatasetFolder } from './create-dataset-folder.ts';
import { createDatasetFolderBodySchema } from './schema.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('create-dataset-folder', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: CreateDatasetDeps = {
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE),
  catalog: config.MODEL_CATALOG,
  modelPolicy: config.MODEL_POLICY,
  now: () => new Date(),
  newId: () => newObjectId(),
};

/**
 * POST /api/core/dataset/folder/create behind the authorizer. FastGPT answers `data: {}`; this answers
 * the new folder's id, which no FastGPT client is hurt by and a script can use.
 */
export const handler = datasetHandler(
  logger,
  async (event, caller) => {
    const { id } = await createDatasetFolder({ body: datasetBody(event, createDatasetFolderBodySchema), caller }, deps);
    addMetric(metrics, BUSINESS_METRICS.datasetsCreated, 1);
    return id;
  },
  metrics,
);
