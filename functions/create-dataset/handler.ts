import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { createDataset } from './create-dataset.ts';
import { createDatasetDeps } from './deps.ts';
import { createDatasetBodySchema } from './schema.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('create-dataset', config.LOG_LEVEL);
const metrics = createMetrics();
const deps = createDatasetDeps(config);

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
