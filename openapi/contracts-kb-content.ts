import * as z from 'zod';
import { datasetErrorKindBodySchema, datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import { DATASET_ERROR_KINDS, type DatasetErrorKind } from '#shared/errors';
import { TRAINING_MODES } from '#shared/kb/training-stages';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { datasetIdSchema, pathEntrySchema, permissionSchema } from '#shared/schemas/datasets';
import {
  collectionIdSchema,
  collectionPathsQuerySchema,
  createCollectionBodySchema,
  createTextCollectionBodySchema,
  datasetIdQuerySchema,
  deleteCollectionsBodySchema,
  insertDataBodySchema,
  listCollectionsBodySchema,
  listDataBodySchema,
  pushDataBodySchema,
  retrainCollectionBodySchema,
  updateCollectionBodySchema,
  updateDataBodySchema,
} from '#shared/schemas/kb-content';
import type { RouteContract, TopicContracts } from './contract-parts.ts';

/*
 * The contracts of the knowledge base's content calls (docs/knowledge-base-api.md, "Collections, data and training"),
 * registered in openapi/contracts.ts. Response shapes follow FastGPT's types (packages/global/core/dataset, v4.11–v4.16)
 * plus the fields this product adds (`status`, `errorMsg`, `failedChunks`, `vectorMissing`).
 */

const ISO = z.string().meta({ description: 'ISO 8601 time' });
const id = datasetIdSchema;

const error = (kind: DatasetErrorKind) => {
  const { httpStatus, code, statusText, when } = DATASET_ERROR_KINDS[kind];
  return {
    status: httpStatus,
    description: `\`${statusText}\` (code ${code}): ${when}`,
    body: datasetErrorKindBodySchema(kind),
  };
};
const errors = (...kinds: DatasetErrorKind[]) =>
  [...kinds, 'unauthorized', 'unAuthApiKey'].map((k) => error(k as DatasetErrorKind));

const collectionType = z.enum(['folder', 'virtual', 'file', 'link', 'externalFile', 'apiFile', 'images']);
const trainingState = {
  dataAmount: z.int().nonnegative().meta({ description: 'Readable chunks' }),
  trainingAmount: z.int().nonnegative().meta({ description: 'Chunks (or a queued collection) waiting for training' }),
  hasError: z.boolean(),
  activeTrainingAmount: z
    .int()
    .nonnegative()
    .meta({ description: 'Items still being trained (a queued collection’s parse, chunks waiting for their vector)' }),
  finalErrorAmount: z
    .int()
    .nonnegative()
    .meta({ description: 'Items failed for good (chunks without a vector, or the failed training’s one item)' }),
  slowestTrainingMode: z
    .enum(['parse', 'qa', 'chunk'])
    .optional()
    .meta({ description: 'The earliest stage with items left (absent when none is)' }),
  slowestTrainingStatus: z
    .enum(['running', 'error', 'ready'])
    .meta({ description: 'FastGPT’s badge: `running` while that stage has items in training, else `error`; `ready`' }),
  status: z.enum(['ready', 'queued', 'training', 'error']).meta({ description: 'Ours: where the training is' }),
  errorMsg: z.string().optional().meta({ description: 'Ours: why the last training failed' }),
  failedChunks: z
    .int()
    .nonnegative()
    .optional()
    .meta({ description: 'Ours: chunks without a vector (full text only)' }),
};
const collectionBase = {
  _id: id,
  parentId: id.nullable(),
  teamId: z.string(),
  tmbId: z.string(),
  datasetId: id,
  type: collectionType,
  name: z.string(),
  tags: z.array(z.string()),
  forbid: z.boolean(),
  createTime: ISO,
  updateTime: ISO,
  trainingType: z.enum(['chunk', 'qa', 'backup', 'template']),
  fileId: z.string().optional(),
  rawLink: z.string().optional(),
};

export const collectionListItemSchema = z.strictObject({
  ...collectionBase,
  ...trainingState,
  permission: permissionSchema,
});
export const collectionDetailSchema = z.strictObject({
  ...collectionBase,
  ...trainingState,
  metadata: z.record(z.string(), z.unknown()),
  rawTextLength: z.int().nonnegative().optional(),
  hashRawText: z.string().optional(),
  chunkSize: z.int().positive(),
  chunkSplitter: z.string().optional(),
  indexSize: z.int().positive().optional(),
  qaPrompt: z.string().optional(),
  sourceName: z.string(),
  sourceId: z.string().optional(),
  canWrite: z.literal(true),
  permission: permissionSchema,
  indexAmount: z.int().nonnegative(),
  errorCount: z.int().nonnegative(),
});
const dataIndexSchema = z.strictObject({
  type: z.enum(['default', 'custom', 'summary', 'question', 'image']),
  dataId: z.string(),
  text: z.string(),
});
export const dataListItemSchema = z.strictObject({
  _id: id,
  datasetId: id,
  collectionId: id,
  q: z.string(),
  a: z.string(),
  chunkIndex: z.int().nonnegative(),
  updated: z.boolean(),
  vectorMissing: z.literal(true).optional(),
});
export const dataDetailSchema = z.strictObject({
  id,
  _id: id,
  teamId: z.string(),
  tmbId: z.string(),
  datasetId: id,
  collectionId: id,
  sourceName: z.string(),
  sourceId: z.string().optional(),
  q: z.string(),
  a: z.string(),
  chunkIndex: z.int().nonnegative(),
  indexes: z.array(dataIndexSchema),
  updateTime: ISO,
  isOwner: z.literal(true),
  vectorMissing: z.literal(true).optional(),
});
const pushItem = z.record(z.string(), z.unknown());
const page = <T extends z.ZodType>(item: T) => z.strictObject({ list: z.array(item), total: z.int().nonnegative() });
const oldPage = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    pageNum: z.int().positive(),
    pageSize: z.int().positive(),
    data: z.array(item),
    total: z.int().nonnegative(),
  });
const trainingQueueSchema = z.strictObject({
  rebuildingCount: z.int().nonnegative(),
  trainingCount: z.int().nonnegative(),
  errorCollectionCount: z.int().nonnegative(),
  failedChunkCount: z.int().nonnegative(),
  hasError: z.boolean(),
});
const trainingCountsSchema = (description: string) =>
  z.strictObject(Object.fromEntries(TRAINING_MODES.map((mode) => [mode, z.int().nonnegative()]))).meta({ description });
const trainingDetailSchema = z.strictObject({
  trainingType: z.enum(['chunk', 'qa', 'backup', 'template']),
  advancedTraining: z.strictObject({
    customPdfParse: z.boolean(),
    imageIndex: z.boolean(),
    autoIndexes: z.boolean(),
  }),
  queuedCounts: trainingCountsSchema('Other collections’ items ahead of this one: always 0 here'),
  trainingCounts: trainingCountsSchema('Items in each stage now'),
  errorCounts: trainingCountsSchema('Failed items of each stage'),
  trainedCount: z.int().nonnegative().meta({ description: 'Chunks stored' }),
});

const DATASET_ID = '6740a1f2c3d4e5f6a7b8c9d0';
const COLLECTION_ID = '6740a1f2c3d4e5f6a7b8c9d1';
const ok = <T extends z.ZodType>(description: string, data: T) => ({
  status: 200,
  description,
  body: datasetSuccessBodySchema(data),
});

const collectionUpdate = (method: string): RouteContract => ({
  operationId: method === 'PUT' ? 'updateCollection' : 'updateCollectionPost',
  summary: `Rename, tag, forbid or move a collection (${method})`,
  description:
    'Changes the fields it names and bumps `updateTime`; an empty `name` leaves the name unchanged. A move goes into a collection folder of the same knowledge base, never into the collection itself or below it.',
  request: { body: updateCollectionBodySchema, bodyExample: { id: COLLECTION_ID, name: 'Renamed' } },
  success: ok('Updated', z.null()),
  errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
});
const collectionDelete = (method: string): RouteContract => ({
  operationId: method === 'DELETE' ? 'deleteCollection' : 'deleteCollectionPost',
  summary: `Delete collections with their data, vectors and files (${method})`,
  description: '`?id=` or a body `{collectionIds}`; a folder goes with everything in it.',
  request: {
    query: z.object({ id: id.optional() }),
    ...(method === 'POST'
      ? { body: deleteCollectionsBodySchema, bodyExample: { collectionIds: [COLLECTION_ID] } }
      : {}),
  },
  success: ok('Deleted', z.null()),
  errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
});
const collectionList = (deprecated: boolean): RouteContract => ({
  operationId: deprecated ? 'listCollectionsDeprecated' : 'listCollections',
  summary: deprecated ? 'A page of collections (deprecated; FastGPT’s older page shape)' : 'A page of collections',
  description:
    'A folder’s collections (`parentId` null = the root), newest `updateTime` first, or with `searchText` every collection whose name holds it. Pagination: `offset` or `pageNum` (from 1), `pageSize` at most 30 (default 10). Items carry their training counts and state.',
  request: {
    body: listCollectionsBodySchema,
    bodyExample: { datasetId: DATASET_ID, parentId: null, offset: 0, pageSize: 10 },
  },
  success: ok('The page', deprecated ? oldPage(collectionListItemSchema) : page(collectionListItemSchema)),
  errors: errors('invalidParams', 'missingParams', 'unExistDataset'),
});
const dataList = (deprecated: boolean): RouteContract => ({
  operationId: deprecated ? 'listDataDeprecated' : 'listData',
  summary: deprecated
    ? 'A page of a collection’s data (deprecated; older page shape)'
    : 'A page of a collection’s data',
  description:
    'The collection’s readable chunks in chunk order; `searchText` keeps those whose q or a holds it. Pagination as for collections.',
  request: { body: listDataBodySchema, bodyExample: { collectionId: COLLECTION_ID, offset: 0, pageSize: 10 } },
  success: ok('The page', deprecated ? oldPage(dataListItemSchema) : page(dataListItemSchema)),
  errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
});
const dataUpdate = (method: string): RouteContract => ({
  operationId: method === 'PUT' ? 'updateData' : 'updateDataPost',
  summary: `Edit a chunk and re-embed it (${method})`,
  request: {
    body: updateDataBodySchema,
    bodyExample: { dataId: COLLECTION_ID, q: 'What is FastGPT?', a: 'A platform.' },
  },
  success: ok('Updated; the re-embedding is queued', z.null()),
  errors: errors('invalidParams', 'missingParams', 'unAuthDatasetData'),
});
const trainingStatus = (operationId: string, onlyHasError: boolean): RouteContract => ({
  operationId,
  summary: onlyHasError ? 'Whether any training of a knowledge base failed' : 'Pending and failed training counts',
  request: { query: datasetIdQuerySchema },
  success: ok('The counts', onlyHasError ? z.strictObject({ hasError: z.boolean() }) : trainingQueueSchema),
  errors: errors('invalidParams', 'missingParams', 'unExistDataset'),
});

/** The content routes' contracts, keyed `METHOD path`. */
const CONTENT: Readonly<Record<string, RouteContract>> = {
  'POST /api/core/dataset/collection/create': {
    operationId: 'createCollection',
    summary: 'Create an empty collection or a collection folder',
    request: {
      body: createCollectionBodySchema,
      bodyExample: { datasetId: DATASET_ID, parentId: null, name: 'Manual entries', type: 'virtual' },
    },
    success: {
      ...ok('Created; `data` is the new collection id', id),
      example: { code: 200, statusText: '', message: '', data: COLLECTION_ID },
    },
    errors: errors('invalidParams', 'missingParams', 'unExistDataset', 'unExistCollection', 'tooManyRequests'),
  },
  'POST /api/core/dataset/collection/create/text': {
    operationId: 'createTextCollection',
    summary: 'Create a collection from a text (trained asynchronously)',
    description:
      'Keeps the text as a file, stores the collection `queued` and queues its training (chunking, embedding through the relay, indexing); answers at once with `insertLen` 0, as FastGPT does. Bodies up to 10 MB.',
    request: {
      body: createTextCollectionBodySchema,
      bodyExample: { datasetId: DATASET_ID, name: 'FAQ', text: 'FastGPT is…', trainingType: 'chunk', chunkSize: 1000 },
    },
    success: ok('Created', z.strictObject({ collectionId: id, results: z.strictObject({ insertLen: z.literal(0) }) })),
    errors: errors('invalidParams', 'missingParams', 'unExistDataset', 'unExistCollection', 'tooManyRequests'),
  },
  'POST /api/core/dataset/collection/create/reTrainingCollection': {
    operationId: 'retrainCollection',
    summary: 'Train a collection again from its source with new chunk settings',
    description:
      'Settings not sent keep the collection’s. The collection keeps its id (FastGPT answers a new one) and its chunks until the new ones replace them in one write. A collection being trained answers 429; one without a source (a folder, data entered by hand) 507000.',
    request: {
      body: retrainCollectionBodySchema,
      bodyExample: { datasetId: DATASET_ID, collectionId: COLLECTION_ID, trainingType: 'chunk', chunkSize: 500 },
    },
    success: ok('Queued; the collection’s id', z.strictObject({ collectionId: id })),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection', 'tooManyRequests'),
  },
  'POST /api/core/dataset/collection/listV2': collectionList(false),
  'POST /api/core/dataset/collection/list': collectionList(true),
  'GET /api/core/dataset/collection/detail': {
    operationId: 'getCollection',
    summary: 'One collection with its training state',
    request: { query: idQuerySchema },
    success: ok('The collection', collectionDetailSchema),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
  },
  'GET /api/core/dataset/collection/paths': {
    operationId: 'getCollectionPaths',
    summary: 'The collection folders from the root down to a collection, root first',
    description:
      '`sourceId` (FastGPT’s newest clients) or `parentId` (older ones) names the collection, which ends the path; without either the answer is `[]`.',
    request: { query: collectionPathsQuerySchema },
    success: ok('The path from the root', z.array(pathEntrySchema)),
    errors: errors('invalidParams', 'unExistCollection'),
  },
  'PUT /api/core/dataset/collection/update': collectionUpdate('PUT'),
  'POST /api/core/dataset/collection/update': collectionUpdate('POST'),
  'DELETE /api/core/dataset/collection/delete': collectionDelete('DELETE'),
  'POST /api/core/dataset/collection/delete': collectionDelete('POST'),
  'GET /api/core/dataset/collection/trainingDetail': {
    operationId: 'getCollectionTrainingDetail',
    summary: 'The stages of one collection’s training, counted as FastGPT’s training dialog reads them',
    description:
      'Every count names each of FastGPT’s training modes. A queued collection is one item in `parse`; a training one counts its items in `qa` (Q&A collections) or `chunk`; chunks without a vector are `chunk` errors; a failed training without such chunks is one error in `parse` (or `qa`).',
    request: { query: collectionIdSchema },
    success: ok('The counts', trainingDetailSchema),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
  },
  'POST /api/core/dataset/collection/export': {
    operationId: 'exportCollection',
    summary: 'A collection’s chunks as CSV, as FastGPT’s export writes them',
    description:
      "FastGPT’s `collection/export`: a byte-order mark and the header `index,content`, then one line per chunk in chunk order (at most 50,000), its `q` and `a` (a field a spreadsheet would read as a formula, starting with `=`, `+`, `-`, `@` or `|`, gets a `'` in front; a field with a comma, quote or line break is quoted). Streamed as it is read, whatever its size; `collection/create/backup` reads it back. FastGPT’s chat-quote fields (`appId`, `chatId`, `chatItemDataId`, `chatTime`) are ignored: the caller’s access token decides.",
    request: { body: collectionIdSchema, bodyExample: { collectionId: COLLECTION_ID } },
    success: {
      status: 200,
      description: 'The CSV (`content-disposition: attachment; filename=data.csv`)',
      body: z.string(),
      contentType: 'text/csv',
    },
    errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
  },
  'POST /api/core/dataset/data/pushData': {
    operationId: 'pushData',
    summary: 'Queue up to 200 items of a collection for training',
    description:
      'Items without `q`, repeating a chunk of the collection, or over the vector model’s token limit are reported (`error`, `repeat`, `overToken`), not stored.',
    request: {
      body: pushDataBodySchema,
      bodyExample: {
        collectionId: COLLECTION_ID,
        trainingType: 'chunk',
        data: [{ q: 'What is FastGPT?', a: 'A platform.' }],
      },
    },
    success: ok(
      'Queued',
      z.strictObject({
        insertLen: z.int().nonnegative(),
        overToken: z.array(pushItem),
        repeat: z.array(pushItem),
        error: z.array(pushItem),
      }),
    ),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection', 'unExistDataset'),
  },
  'POST /api/core/dataset/data/insertData': {
    operationId: 'insertData',
    summary: 'Add one item to a collection; answers its id',
    description:
      'FastGPT’s manual entry. The item is queued for training as pushData’s are (searchable once embedded); no `q` is 507004, a repeat of the collection’s chunk or too many tokens 507000.',
    request: {
      body: insertDataBodySchema,
      bodyExample: { collectionId: COLLECTION_ID, q: 'What is FastGPT?', a: 'A platform.' },
    },
    success: ok('Queued; `data` is the new chunk id', id),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection', 'unExistDataset'),
  },
  'POST /api/core/dataset/data/v2/list': dataList(false),
  'POST /api/core/dataset/data/list': dataList(true),
  'GET /api/core/dataset/data/detail': {
    operationId: 'getData',
    summary: 'One chunk with its indexes',
    request: { query: idQuerySchema },
    success: ok('The chunk', dataDetailSchema),
    errors: errors('invalidParams', 'missingParams', 'unAuthDatasetData'),
  },
  'PUT /api/core/dataset/data/update': dataUpdate('PUT'),
  'POST /api/core/dataset/data/update': dataUpdate('POST'),
  'DELETE /api/core/dataset/data/delete': {
    operationId: 'deleteData',
    summary: 'Delete a chunk with its vectors',
    request: { query: idQuerySchema },
    success: ok('Deleted', z.literal('success')),
    errors: errors('invalidParams', 'missingParams', 'unAuthDatasetData'),
  },
  'GET /api/core/dataset/training/getDatasetTrainingQueue': trainingStatus('getDatasetTrainingQueue', false),
  'GET /api/core/dataset/training/hasDatasetTrainingError': trainingStatus('hasDatasetTrainingError', true),
};

/** The knowledge base's content topic (registered in openapi/contracts.ts). */
export const KB_CONTENT_CONTRACTS: TopicContracts = { dataset: CONTENT };
