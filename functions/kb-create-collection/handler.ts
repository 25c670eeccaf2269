import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { createCollectionBodySchema } from '#shared/schemas/kb-content';
import { createCollection } from './kb-create-collection.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-create-collection', config.LOG_LEVEL);
const deps = contentWiring(config);

/** POST /api/core/dataset/collection/create behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  createCollection({ body: datasetBody(event, createCollectionBodySchema), caller }, deps),
);
