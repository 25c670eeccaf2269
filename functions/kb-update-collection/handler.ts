import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { updateCollectionBodySchema } from '#shared/schemas/kb-content';
import { updateCollection } from './kb-update-collection.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-update-collection', config.LOG_LEVEL);
const deps = contentWiring(config);

/** PUT and POST /api/core/dataset/collection/update behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  updateCollection({ body: datasetBody(event, updateCollectionBodySchema), caller }, deps),
);
