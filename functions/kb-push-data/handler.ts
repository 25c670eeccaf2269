import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { DATASET_REQUEST_ERRORS, datasetHandler } from '#shared/envelopes/dataset';
import { validBody } from '#shared/http';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { MAX_TEXT_BYTES, pushDataBodySchema } from '#shared/schemas/kb-content';
import { pushData } from './kb-push-data.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-push-data', config.LOG_LEVEL);
const deps = { ...contentWiring(config), catalog: config.MODEL_CATALOG };

/** POST /api/core/dataset/data/pushData behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  pushData(
    { body: validBody(event, pushDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: MAX_TEXT_BYTES }), caller },
    deps,
  ),
);
