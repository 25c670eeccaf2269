import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { collectionDetailOf } from './kb-collection-detail.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-collection-detail', config.LOG_LEVEL);
const deps = contentWiring(config);

/** GET /api/core/dataset/collection/detail?id= behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  collectionDetailOf({ query: datasetQuery(event, idQuerySchema), caller }, deps),
);
