import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { datasetIdQuerySchema } from '#shared/schemas/kb-content';
import { trainingStatus } from './kb-training-status.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-training-status', config.LOG_LEVEL);
const deps = contentWiring(config);

/**
 * GET /api/core/dataset/training/getDatasetTrainingQueue (pending and failed counts) and GET
 * …/training/hasDatasetTrainingError (`{hasError}`, FastGPT ≥ 4.15's dataset page) behind the authorizer.
 */
export const handler = datasetHandler(logger, async (event, caller) => {
  const { datasetId } = datasetQuery(event, datasetIdQuerySchema);
  const status = await trainingStatus({ datasetId, caller }, deps);
  const path = event.resource || event.path;
  return path.endsWith('/hasDatasetTrainingError') ? { hasError: status.hasError } : status;
});
