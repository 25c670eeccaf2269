/**
 * FastGPT's own response types of the content calls, as zod schemas to check our answers with (what FastGPT's
 * clients compile against, not this API's OpenAPI document). Read from labring/FastGPT v4.16
 * (packages/global/openapi/core/dataset/collection/api.ts `DatasetCollectionsListItemSchema`,
 * `ListCollectionV2ResponseSchema`; packages/global/openapi/core/dataset/data/api.ts `GetDataListItemSchema`,
 * `PushDataResponseSchema`; packages/global/openapi/core/dataset/training/api.ts
 * `GetDatasetTrainingQueueResponseSchema`) and v4.11 (packages/global/core/dataset/type.d.ts
 * `DatasetCollectionItemType`, `DatasetDataItemType`; the deprecated lists' `PagingData`). Objects are loose, as
 * FastGPT's are.
 */
import * as z from 'zod';

const objectId = z.string().regex(/^[0-9a-fA-F]{24}$/, 'an ObjectId');
const date = z.coerce.date();
const collectionType = z.enum(['folder', 'virtual', 'file', 'link', 'externalFile', 'apiFile', 'images']);
const permission = z.looseObject({ isOwner: z.boolean(), hasReadPer: z.boolean(), hasWritePer: z.boolean() });

/** `DatasetCollectionsListItemSchema` (v4.16). */
export const fastgptCollectionListItem = z.looseObject({
  _id: objectId,
  parentId: objectId.nullish(),
  tmbId: z.string(),
  name: z.string(),
  type: collectionType,
  createTime: date,
  updateTime: date,
  forbid: z.boolean().optional(),
  trainingType: z.enum(['chunk', 'qa', 'auto', 'backup', 'template', 'parse']).optional(),
  tags: z.array(z.string()).optional(),
  fileId: z.string().optional(),
  rawLink: z.string().optional(),
  permission,
  dataAmount: z.number(),
  trainingAmount: z.number(),
  hasError: z.boolean().optional(),
});

/** `ListCollectionV2ResponseSchema` = `PaginationResponseSchema(item)`: `{list, total}`. */
export const fastgptCollectionPage = z.looseObject({ list: z.array(fastgptCollectionListItem), total: z.number() });

/** The deprecated list: `PagingData<DatasetCollectionsListItemType>` (v4.11). */
export const fastgptCollectionPagingData = z.looseObject({
  pageNum: z.number(),
  pageSize: z.number(),
  data: z.array(fastgptCollectionListItem),
  total: z.number(),
});

/** `DatasetCollectionItemType` (v4.11): the collection plus `canWrite`, `sourceName`, `sourceId`. */
export const fastgptCollectionDetail = z.looseObject({
  _id: objectId,
  teamId: z.string(),
  tmbId: z.string(),
  datasetId: objectId,
  parentId: objectId.nullish(),
  name: z.string(),
  type: collectionType,
  createTime: date,
  updateTime: date,
  canWrite: z.boolean(),
  sourceName: z.string().optional(),
  sourceId: z.string().optional(),
});

/** `GetDataListItemSchema` (v4.16). */
export const fastgptDataListItem = z.looseObject({
  _id: objectId,
  datasetId: objectId,
  collectionId: objectId,
  q: z.string().optional(),
  a: z.string().optional(),
  chunkIndex: z.number().optional(),
  updated: z.boolean().optional(),
});
export const fastgptDataPage = z.looseObject({ list: z.array(fastgptDataListItem), total: z.number() });
export const fastgptDataPagingData = z.looseObject({
  pageNum: z.number(),
  pageSize: z.number(),
  data: z.array(fastgptDataListItem),
  total: z.number(),
});

/** `DatasetDataItemType` (v4.11). */
export const fastgptDataDetail = z.looseObject({
  id: z.string(),
  datasetId: z.string(),
  collectionId: z.string(),
  sourceName: z.string(),
  sourceId: z.string().optional(),
  q: z.string(),
  a: z.string(),
  chunkIndex: z.number(),
  indexes: z.array(z.looseObject({ type: z.string().optional(), dataId: z.string().optional(), text: z.string() })),
  isOwner: z.boolean(),
});

/** `PushDataResponseSchema` (v4.16). */
export const fastgptPushDataResponse = z.looseObject({ insertLen: z.number() });

/** `GetDatasetTrainingQueueResponseSchema` (v4.16). */
export const fastgptTrainingQueue = z.looseObject({ rebuildingCount: z.number(), trainingCount: z.number() });

/** The text create's answer (v4.11: `{collectionId, results}` with `insertLen`). */
export const fastgptCreateTextResponse = z.looseObject({
  collectionId: objectId,
  results: z.looseObject({ insertLen: z.number() }),
});

/**
 * `collection/paths`: `ParentTreePathItemType[]` (packages/global/common/parentFolder/type.ts), as the web client's
 * `getDatasetCollectionPathById` reads it (projects/app/src/web/core/dataset/api.ts).
 */
export const fastgptCollectionPaths = z.array(z.looseObject({ parentId: z.string(), parentName: z.string() }));

/**
 * `collection/trainingDetail`: `GetCollectionTrainingDetailResponseSchema` (packages/global/openapi/core/dataset/
 * collection/api.ts, v4.16): its counts are `z.record(z.enum(TrainingModeEnum), z.number())`, which in zod 4 requires
 * every mode; the modes as the handler (projects/app/src/pages/api/core/dataset/collection/trainingDetail.ts at
 * 054c3f18) lists them.
 */
const trainingModes = z.enum([
  'parse',
  'qa',
  'chunk',
  'image',
  'auto',
  'imageParse',
  'databaseSchema',
  'hype',
  'small2Big',
  'synonymStandardize',
  'synonymRestore',
  'synthesis',
]);
/** FastGPT's training modes, every one a key of each trainingDetail count. */
export const FASTGPT_TRAINING_MODES = trainingModes.options;
export const fastgptTrainingDetail = z.looseObject({
  trainingType: z.enum(['chunk', 'qa', 'auto', 'backup', 'template', 'parse', 'image', 'imageParse']).optional(),
  advancedTraining: z.looseObject({ customPdfParse: z.boolean(), imageIndex: z.boolean(), autoIndexes: z.boolean() }),
  queuedCounts: z.record(trainingModes, z.number()),
  trainingCounts: z.record(trainingModes, z.number()),
  errorCounts: z.record(trainingModes, z.number()),
  trainedCount: z.number(),
});

/** `collection/create/reTrainingCollection`: `ReTrainingCollectionResponseSchema` (collection/createApi.ts, v4.16). */
export const fastgptRetrainResponse = z.looseObject({ collectionId: objectId });

/** `collection/sync`: `DatasetCollectionSyncResultEnum` (packages/global/core/dataset/constants.ts). */
export const fastgptSyncResult = z.enum(['sameRaw', 'success', 'failed']);

/** `data/insertData`: the new data's id (the handler returns `insertId`). */
export const fastgptInsertDataResponse = objectId;

/**
 * `GetPreviewChunksResponseSchema` (packages/global/openapi/core/dataset/file/api.ts at 04b3226b; the handler's
 * `PreviewChunksResponse` since v4.9): the first chunks and how many there are.
 */
export const fastgptPreviewChunksResponse = z.looseObject({
  chunks: z.array(z.looseObject({ q: z.string(), a: z.string() })),
  total: z.number(),
});
