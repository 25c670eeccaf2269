import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { DATASET_REQUEST_ERRORS, datasetHandler } from '#shared/envelopes/dataset';
import { validBody } from '#shared/http';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { updateDataBodySchema } from '#shared/schemas/kb-content';
import { updateData } from './kb-update-data.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-update-data', config.LOG_LEVEL);
const deps = contentWiring(config);

/** PUT and POST /api/core/dataset/data/update behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  updateData(
    { body: validBody(event, updateDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: 1024 * 1024 }), caller },
    deps,
  ),
);
