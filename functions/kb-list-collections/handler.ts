import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { listCollectionsBodySchema } from '#shared/schemas/kb-content';
import { listCollections } from './kb-list-collections.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-list-collections', config.LOG_LEVEL);
const deps = contentWiring(config);

/**
 * POST /api/core/dataset/collection/listV2 (`{list, total}`) and the deprecated POST …/collection/list (FastGPT's
 * older page shape `{pageNum, pageSize, data, total}`), behind the authorizer.
 */
export const handler = datasetHandler(logger, async (event, caller) => {
  const { list, total, pageNum, pageSize } = await listCollections(
    { body: datasetBody(event, listCollectionsBodySchema), caller },
    deps,
  );
  const path = event.resource || event.path;
  return path.endsWith('/listV2') ? { list, total } : { pageNum, pageSize, data: list, total };
});
