import type { APIGatewayProxyEvent } from 'aws-lambda';
import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { DATASET_REQUEST_ERRORS, datasetBody, datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { type CallerContext, validBody } from '#shared/http';
import { type RouteCall, routeCall } from '#shared/kb/route-call';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import {
  insertDataBodySchema,
  listDataBodySchema,
  MAX_TEXT_BYTES,
  pushDataBodySchema,
  updateDataBodySchema,
} from '#shared/schemas/kb-content';
import { dataDetailOf } from './data-detail.ts';
import { deleteData } from './delete-data.ts';
import { listData } from './list-data.ts';
import { insertData, pushData } from './push-data.ts';
import { updateData } from './update-data.ts';

/*
 * The data calls (docs/knowledge-base-api.md, "Data"): one function, since they share the content core and its grants;
 * each route has its own core in this folder.
 */

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-data', config.LOG_LEVEL);
const deps = { ...contentWiring(config), catalog: config.MODEL_CATALOG };

type Call = RouteCall;
const BASE = '/api/core/dataset/data';

async function list(event: APIGatewayProxyEvent, caller: CallerContext, deprecated: boolean) {
  const page = await listData({ body: datasetBody(event, listDataBodySchema), caller }, deps);
  // The deprecated call answers FastGPT's older page shape.
  return deprecated
    ? { pageNum: page.pageNum, pageSize: page.pageSize, data: page.list, total: page.total }
    : { list: page.list, total: page.total };
}

const update: Call = (event, caller) =>
  updateData(
    { body: validBody(event, updateDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: 1024 * 1024 }), caller },
    deps,
  );

const CALLS: Readonly<Record<string, Call>> = {
  [`POST ${BASE}/pushData`]: (event, caller) =>
    pushData(
      { body: validBody(event, pushDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: MAX_TEXT_BYTES }), caller },
      deps,
    ),
  [`POST ${BASE}/insertData`]: (event, caller) =>
    insertData(
      { body: validBody(event, insertDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: 1024 * 1024 }), caller },
      deps,
    ),
  [`POST ${BASE}/v2/list`]: (event, caller) => list(event, caller, false),
  [`POST ${BASE}/list`]: (event, caller) => list(event, caller, true),
  [`GET ${BASE}/detail`]: (event, caller) => dataDetailOf({ query: datasetQuery(event, idQuerySchema), caller }, deps),
  [`PUT ${BASE}/update`]: update,
  [`POST ${BASE}/update`]: update,
  [`DELETE ${BASE}/delete`]: (event, caller) => deleteData({ query: datasetQuery(event, idQuerySchema), caller }, deps),
};

/** The routes of shared/routes.ts that name `kb-data`, behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) => routeCall(CALLS, event)(event, caller));
