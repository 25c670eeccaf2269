import { documentClient } from '#shared/clients/dynamodb';
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { type DeleteDatasetDeps, deleteDataset } from './delete-dataset.ts';

const config = loadConfig(datasetsEnvSchema);
const logger = createLogger('delete-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: DeleteDatasetDeps = {
  // DynamoDB takes many BatchWriteItem calls at once; eight in flight keeps a 10,000-record delete short.
  repo: new DynamoDatasetRepository(documentClient, config.DATASETS_TABLE, { writeConcurrency: 8 }),
  now: () => new Date(),
};

/** DELETE /api/core/dataset/delete?id=<id> behind the authorizer. */
export const handler = datasetHandler(
  logger,
  async (event, caller) => {
    const { deleted } = await deleteDataset({ query: datasetQuery(event, idQuerySchema), caller }, deps);
    addMetric(metrics, BUSINESS_METRICS.datasetsDeleted, deleted);
    return null;
  },
  metrics,
);
