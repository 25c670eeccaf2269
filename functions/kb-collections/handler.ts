import type { APIGatewayProxyEvent } from 'aws-lambda';
import { kbContentEnvSchema, loadConfig } from '#shared/config';
import { DATASET_REQUEST_ERRORS, datasetBody, datasetHandler, datasetQuery } from '#shared/envelopes/dataset';
import { type CallerContext, validBody } from '#shared/http';
import { type RouteCall, routeCall } from '#shared/kb/route-call';
import { contentWiring } from '#shared/kb/wiring';
import { createLogger } from '#shared/logger';
import { idField, idQuerySchema } from '#shared/schemas/dataset-fields';
import {
  collectionIdSchema,
  collectionPathsQuerySchema,
  createCollectionBodySchema,
  createTextCollectionBodySchema,
  datasetIdQuerySchema,
  deleteCollectionsBodySchema,
  listCollectionsBodySchema,
  MAX_TEXT_BYTES,
  retrainCollectionBodySchema,
  updateCollectionBodySchema,
} from '#shared/schemas/kb-content';
import {
  datasetTrainingErrorBodySchema,
  deleteTrainingDataBodySchema,
  retryErrorCollectionsBodySchema,
  trainingDataDetailBodySchema,
  trainingErrorListBodySchema,
  updateTrainingDataBodySchema,
} from '#shared/schemas/kb-training';
import * as z from '#shared/zod';
import { collectionDetailOf } from './collection-detail.ts';
import { collectionPaths } from './collection-paths.ts';
import { createCollection } from './create-collection.ts';
import { createTextCollection } from './create-text-collection.ts';
import { datasetTrainingErrors } from './dataset-training-errors.ts';
import { deleteCollection } from './delete-collection.ts';
import { listCollections } from './list-collections.ts';
import { retrainCollection } from './retrain-collection.ts';
import { collectionTrainingDetail } from './training-detail.ts';
import { deleteTrainingData, retryErrorCollections, updateTrainingData } from './training-error-fixes.ts';
import { trainingDataDetail, trainingErrorList } from './training-errors.ts';
import { trainingStatus } from './training-status.ts';
import { updateCollection } from './update-collection.ts';

/*
 * The collection calls, the training status and its errors (docs/knowledge-base-api.md, "Collections", "Training
 * errors"): one function, since they
 * share the content core, its clients and the same grants (STYLE.md); each route has its own core in this folder.
 */

const config = loadConfig(kbContentEnvSchema);
const logger = createLogger('kb-collections', config.LOG_LEVEL);
const deps = contentWiring(config);
const deleteQuerySchema = z.object({ id: z.optional(idField('id')) });

type Call = RouteCall;
const BASE = '/api/core/dataset';

/** The ids a delete names: `?id=` (FastGPT's documented call) and, when a body is sent, its `collectionIds`. */
function deleteIds(event: APIGatewayProxyEvent): string[] {
  const { id } = datasetQuery(event, deleteQuerySchema);
  const hasBody = typeof event.body === 'string' && event.body.trim() !== '';
  const body = hasBody ? datasetBody(event, deleteCollectionsBodySchema) : {};
  return [...(id ? [id] : []), ...(body.collectionIds ?? [])];
}

async function list(event: APIGatewayProxyEvent, caller: CallerContext, deprecated: boolean) {
  const page = await listCollections({ body: datasetBody(event, listCollectionsBodySchema), caller }, deps);
  // The deprecated call answers FastGPT's older page shape.
  return deprecated
    ? { pageNum: page.pageNum, pageSize: page.pageSize, data: page.list, total: page.total }
    : { list: page.list, total: page.total };
}

async function training(event: APIGatewayProxyEvent, caller: CallerContext, onlyHasError: boolean) {
  const { datasetId } = datasetQuery(event, datasetIdQuerySchema);
  const status = await trainingStatus({ datasetId, caller }, deps);
  return onlyHasError ? { hasError: status.hasError } : status;
}

const update: Call = (event, caller) =>
  updateCollection({ body: datasetBody(event, updateCollectionBodySchema), caller }, deps);
const remove: Call = (event, caller) => deleteCollection({ ids: deleteIds(event), caller }, deps);

const CALLS: Readonly<Record<string, Call>> = {
  [`POST ${BASE}/collection/create`]: (event, caller) =>
    createCollection({ body: datasetBody(event, createCollectionBodySchema), caller }, deps),
  // Bodies up to 10 MB, as FastGPT's.
  [`POST ${BASE}/collection/create/text`]: (event, caller) =>
    createTextCollection(
      {
        body: validBody(event, createTextCollectionBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: MAX_TEXT_BYTES }),
        caller,
      },
      deps,
    ),
  [`POST ${BASE}/collection/create/reTrainingCollection`]: (event, caller) =>
    retrainCollection({ body: datasetBody(event, retrainCollectionBodySchema), caller }, deps),
  [`POST ${BASE}/collection/listV2`]: (event, caller) => list(event, caller, false),
  [`POST ${BASE}/collection/list`]: (event, caller) => list(event, caller, true),
  [`GET ${BASE}/collection/detail`]: (event, caller) =>
    collectionDetailOf({ query: datasetQuery(event, idQuerySchema), caller }, deps),
  [`GET ${BASE}/collection/paths`]: (event, caller) =>
    collectionPaths({ query: datasetQuery(event, collectionPathsQuerySchema), caller }, deps),
  [`PUT ${BASE}/collection/update`]: update,
  [`POST ${BASE}/collection/update`]: update,
  [`DELETE ${BASE}/collection/delete`]: remove,
  [`POST ${BASE}/collection/delete`]: remove,
  [`GET ${BASE}/collection/trainingDetail`]: (event, caller) =>
    collectionTrainingDetail({ query: datasetQuery(event, collectionIdSchema), caller }, deps),
  [`GET ${BASE}/training/getDatasetTrainingQueue`]: (event, caller) => training(event, caller, false),
  [`GET ${BASE}/training/hasDatasetTrainingError`]: (event, caller) => training(event, caller, true),
  // The training dialog's error tab, with the methods FastGPT's web client sends.
  [`POST ${BASE}/training/getTrainingError`]: (event, caller) =>
    trainingErrorList({ body: datasetBody(event, trainingErrorListBodySchema), caller }, deps),
  [`POST ${BASE}/training/getTrainingDataDetail`]: (event, caller) =>
    trainingDataDetail({ body: datasetBody(event, trainingDataDetailBodySchema), caller }, deps),
  [`PUT ${BASE}/training/updateTrainingData`]: (event, caller) =>
    updateTrainingData(
      {
        // An edited chunk, as data/update's bodies.
        body: validBody(event, updateTrainingDataBodySchema, DATASET_REQUEST_ERRORS, { maxBytes: 1024 * 1024 }),
        caller,
      },
      deps,
    ),
  [`POST ${BASE}/training/deleteTrainingData`]: (event, caller) =>
    deleteTrainingData({ body: datasetBody(event, deleteTrainingDataBodySchema), caller }, deps),
  // The knowledge base's error list and its "retry all" (FastGPT's newer collection page).
  [`POST ${BASE}/training/getDatasetTrainingError`]: (event, caller) =>
    datasetTrainingErrors({ body: datasetBody(event, datasetTrainingErrorBodySchema), caller }, deps),
  [`PUT ${BASE}/training/retryErrorCollections`]: (event, caller) =>
    retryErrorCollections({ body: datasetBody(event, retryErrorCollectionsBodySchema), caller }, deps),
};

/** The routes of shared/routes.ts that name `kb-collections`, behind the authorizer. */
export const handler = datasetHandler(logger, (event, caller) => routeCall(CALLS, event)(event, caller));
