import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { deleteData } from './kb-delete-data.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-delete-data', config.LOG_LEVEL);
const deps = contentWiring(config);

/** DELETE /api/core/dataset/data/delete?id= behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) =>
  deleteData({ query: datasetQuery(event, idQuerySchema), caller }, deps),
);
