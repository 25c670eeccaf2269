import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { DATASET_REQUEST_ERRORS, datasetHandler } from '#shared/envelopes/dataset';
import { validBody } from '#shared/http';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { createTextCollectionBodySchema, MAX_TEXT_BYTES } from '#shared/schemas/kb-content';
import { createTextCollection } from './kb-create-text-collection.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-create-text-collection', config.LOG_LEVEL);
const deps = contentWiring(config);

/** POST /api/core/dataset/collection/create/text behind the authorizer (bodies up to 10 MB, as FastGPT's). */
export const handler = datasetHandler(logger, (event, caller) =>
  createTextCollection(
    {
      body: validBody(event, createTextCollectionBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: MAX_TEXT_BYTES }),
      caller,
    },
    deps,
  ),
);
