import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { datasetBody, datasetHandler } from '#shared/envelopes/dataset';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { listDataBodySchema } from '#shared/schemas/kb-content';
import { listData } from './kb-list-data.ts';

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-list-data', config.LOG_LEVEL);
const deps = contentWiring(config);

/**
 * POST /api/core/dataset/data/v2/list (`{list, total}`) and the deprecated POST …/data/list (FastGPT's older page
 * shape `{pageNum, pageSize, data, total}`), behind the authorizer.
 */
export const handler = datasetHandler(logger, async (event, caller) => {
  const { list, total, pageNum, pageSize } = await listData(
    { body: datasetBody(event, listDataBodySchema), caller },
    deps,
  );
  const path = event.resource || event.path;
  return path.endsWith('/v2/list') ? { list, total } : { pageNum, pageSize, data: list, total };
});
