import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { dataDetailOf } from './kb-data-detail.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-data-detail', config.LOG_LEVEL);
const deps = contentWiring(config);

/** GET /api/core/dataset/data/detail?id= behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  dataDetailOf({ query: datasetQuery(event, idQuerySchema), caller }, deps),
);
