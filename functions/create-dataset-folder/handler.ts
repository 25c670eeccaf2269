import { createDatasetEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { createDatasetDeps } from '../create-dataset/deps.ts';
import { createDatasetFolder } from './create-dataset-folder.ts';
import { createDatasetFolderBodySchema } from './schema.ts';

const config = loadConfig(createDatasetEnvSchema);
const logger = createLogger('create-dataset-folder', config.LOG_LEVEL);
const metrics = createMetrics();
const deps = createDatasetDeps(config);

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
