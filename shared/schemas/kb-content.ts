import { idField, missing, nameField, optionalTextField, parentIdField } from '#shared/schemas/dataset-fields';
import { wellFormed } from '#shared/text';
import * as z from '#shared/zod';

/*
 * Request rules of the collection, data and training calls (docs/knowledge-base-api.md, "Collections, data and
 * training"), with FastGPT's field names. Messages name the field, never the value.
 */

/** Largest page FastGPT's list calls serve (a larger `pageSize` is cut to it). */
export const MAX_PAGE_SIZE = 30;
/** Largest page of collection/listV2 since FastGPT's list with training status (`Math.min(pageSize, 100)`). */
export const MAX_COLLECTION_PAGE_SIZE = 100;
/** Largest text of one create/text call (API Gateway's body limit is 10 MB). */
export const MAX_TEXT_BYTES = 10 * 1024 * 1024;
/** Items of one pushData call (FastGPT's limit). */
export const MAX_PUSH_ITEMS = 200;
/** Characters of one q or a (FastGPT stores at most this much of a chunk's text). */
export const MAX_CHUNK_CHARS = 100_000;

/** A whole number given as a number or a numeric string (query strings, loose clients; FastGPT's web client sends
 * numbers, scripts send both). */
export const intField = (field: string, min: number, max: number) =>
  z.pipe(
    z.union([z.number({ error: `${field} must be a number` }), z.string().check(z.regex(/^\s*\d+\s*$/))], {
      error: `${field} must be a number`,
    }),
    z.pipe(
      z.transform((v: number | string) => Number(v)),
      z
        .int(`${field} must be a whole number`)
        .check(z.minimum(min, `${field} must be at least ${min}`), z.maximum(max, `${field} must be at most ${max}`)),
    ),
  );

/**
 * FastGPT's pagination: `offset` or `pageNum` (from 1), and `pageSize` (default 10). A larger page than a call serves
 * is cut to it, as FastGPT's handlers cut it (`Math.min(pageSize, 30)`), never refused.
 */
export const paginationFields = {
  offset: z.nullish(intField('offset', 0, 1_000_000)),
  pageNum: z.nullish(intField('pageNum', 1, 100_000)),
  pageSize: z.nullish(intField('pageSize', 1, 1_000_000)),
};

/**
 * The page a pagination asks for, at most `max` items (MAX_PAGE_SIZE unless the call serves more). As FastGPT's
 * `parsePaginationRequest`, a `pageNum` counts pages of the size asked for, before the cut.
 */
export function pageOf(
  p: { offset?: number | null; pageNum?: number | null; pageSize?: number | null },
  max: number = MAX_PAGE_SIZE,
): { offset: number; pageSize: number; pageNum: number } {
  const asked = p.pageSize ?? 10;
  const pageSize = Math.min(asked, max);
  const offset = p.offset ?? ((p.pageNum ?? 1) - 1) * asked;
  return { offset, pageSize, pageNum: p.pageNum ?? Math.floor(offset / pageSize) + 1 };
}

const tagsField = z.optional(
  z
    .array(
      z.string({ error: 'tags must be strings' }).check(z.maxLength(100, 'a tag must be at most 100 characters')),
      { error: 'tags must be an array of strings' },
    )
    .check(z.maxLength(50, 'tags must name at most 50 tags')),
);
const metadataField = z.optional(z.record(z.string(), z.unknown(), { error: 'metadata must be an object' }));

/** POST /api/core/dataset/collection/create: an empty collection (`virtual`, default) or a folder. */
export const createCollectionBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    parentId: parentIdField,
    name: nameField,
    type: z.pipe(
      z.nullish(z.enum(['virtual', 'folder'], { error: 'type must be "virtual" or "folder" here' })),
      z.transform((v) => v ?? 'virtual'),
    ),
    metadata: metadataField,
    tags: tagsField,
  }),
);
export type CreateCollectionBody = z.output<typeof createCollectionBodySchema>;

/** The chunk settings FastGPT's create calls share (ApiCreateDatasetCollectionParams). */
export const chunkSettingFields = {
  trainingType: z.pipe(
    z.nullish(z.enum(['chunk', 'qa', 'auto'], { error: 'trainingType must be "chunk" or "qa"' })),
    // FastGPT's older `auto` mode trains as chunks here.
    z.transform((v) => (v === 'qa' ? 'qa' : 'chunk') as 'chunk' | 'qa'),
  ),
  chunkSize: z.nullish(intField('chunkSize', 64, 20_000)),
  chunkSplitter: optionalTextField('chunkSplitter', 100),
  indexSize: z.nullish(intField('indexSize', 64, 20_000)),
  qaPrompt: optionalTextField('qaPrompt', 10_000),
};

const TEXT_MISSING = missing('text');
const DATA_MISSING = missing('data');

/** POST /api/core/dataset/collection/create/text. */
export const createTextCollectionBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    parentId: parentIdField,
    name: nameField,
    text: z.string({ error: (i) => (i.input == null ? TEXT_MISSING : 'text must be a string') }).check(
      z.refine((s) => s.trim() !== '', TEXT_MISSING),
      z.refine(wellFormed, 'text must be valid Unicode text'),
    ),
    ...chunkSettingFields,
    metadata: metadataField,
    tags: tagsField,
  }),
);
export type CreateTextCollectionBody = z.output<typeof createTextCollectionBodySchema>;

/**
 * POST /api/core/dataset/collection/create/reTrainingCollection: the collection and the settings to train it with. A
 * setting not sent keeps the collection's; null (or an empty text) clears an optional one, as FastGPT spreads the body
 * over the collection. `datasetId`, which FastGPT requires, must name the collection's knowledge base when sent.
 */
export const retrainCollectionBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    collectionId: idField('collectionId'),
    datasetId: z.nullish(idField('datasetId')),
    trainingType: z.nullish(z.enum(['chunk', 'qa', 'auto'], { error: 'trainingType must be "chunk" or "qa"' })),
    chunkSize: chunkSettingFields.chunkSize,
    chunkSplitter: chunkSettingFields.chunkSplitter,
    indexSize: chunkSettingFields.indexSize,
    qaPrompt: chunkSettingFields.qaPrompt,
  }),
);
export type RetrainCollectionBody = z.output<typeof retrainCollectionBodySchema>;

/** POST /api/core/dataset/collection/listV2 and the deprecated /list. */
export const listCollectionsBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    parentId: parentIdField,
    searchText: z.pipe(
      optionalTextField('searchText', 100),
      z.transform((v) => v?.trim() || undefined),
    ),
    selectFolder: z.nullish(z.boolean({ error: 'selectFolder must be a boolean' })),
    simple: z.nullish(z.boolean({ error: 'simple must be a boolean' })),
    ...paginationFields,
  }),
);
export type ListCollectionsBody = z.output<typeof listCollectionsBodySchema>;

/** PUT|POST /api/core/dataset/collection/update. */
export const updateCollectionBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    id: idField('id'),
    parentId: z.optional(parentIdField),
    name: z.nullish(z.union([z.literal(''), nameField])),
    tags: tagsField,
    forbid: z.nullish(z.boolean({ error: 'forbid must be a boolean' })),
    createTime: z.nullish(
      z
        .string({ error: 'createTime must be a date' })
        .check(z.refine((s) => !Number.isNaN(Date.parse(s)), 'createTime must be a date')),
    ),
  }),
);
export type UpdateCollectionBody = z.output<typeof updateCollectionBodySchema>;

/** DELETE or POST /api/core/dataset/collection/delete: `?id=` or a body `{collectionIds}`. */
export const deleteCollectionsBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    collectionIds: z.optional(z.array(idField('collectionIds')).check(z.maxLength(100, 'at most 100 collectionIds'))),
  }),
);

const indexItem = z.object({
  type: z.nullish(z.enum(['default', 'custom', 'summary', 'question', 'image'], { error: 'an index type is invalid' })),
  dataId: z.nullish(z.string()),
  text: z.string({ error: 'an index needs a text' }).check(z.maxLength(MAX_CHUNK_CHARS, 'an index text is too long')),
});

/** A chunk's `q` or `a`: a string of at most MAX_CHUNK_CHARS characters, or absent. */
export const chunkText = (field: string) =>
  z.nullish(
    z
      .string({ error: `${field} must be a string` })
      .check(z.maxLength(MAX_CHUNK_CHARS, `${field} must be at most ${MAX_CHUNK_CHARS} characters`)),
  );

/** One item of pushData, and the body of insertData with its collection (FastGPT's PushDatasetDataChunkProps). */
const dataItemFields = () => ({
  q: chunkText('q'),
  a: chunkText('a'),
  chunkIndex: z.nullish(intField('chunkIndex', 0, 10_000_000)),
  indexes: z.nullish(z.array(indexItem).check(z.maxLength(20, 'at most 20 indexes per item'))),
});

/** POST /api/core/dataset/data/pushData. */
export const pushDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    collectionId: idField('collectionId'),
    data: z
      .array(z.object(dataItemFields()), {
        error: (i) => (i.input == null ? DATA_MISSING : 'data must be an array'),
      })
      .check(z.maxLength(MAX_PUSH_ITEMS, `data must hold at most ${MAX_PUSH_ITEMS} items`)),
    trainingType: chunkSettingFields.trainingType,
    trainingMode: chunkSettingFields.trainingType,
    prompt: optionalTextField('prompt', 10_000),
    billId: z.nullish(z.string()),
  }),
);
export type PushDataBody = z.output<typeof pushDataBodySchema>;

/** POST /api/core/dataset/data/insertData: one item, stored at once (FastGPT's InsertOneDatasetDataProps). */
export const insertDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ collectionId: idField('collectionId'), ...dataItemFields() }),
);
export type InsertDataBody = z.output<typeof insertDataBodySchema>;

/** POST /api/core/dataset/data/v2/list and the deprecated /list. */
export const listDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    collectionId: idField('collectionId'),
    searchText: z.pipe(
      optionalTextField('searchText', 100),
      z.transform((v) => v?.trim() || undefined),
    ),
    ...paginationFields,
  }),
);
export type ListDataBody = z.output<typeof listDataBodySchema>;

/** PUT|POST /api/core/dataset/data/update. */
export const updateDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    dataId: idField('dataId'),
    q: chunkText('q'),
    a: chunkText('a'),
    indexes: z.nullish(z.array(indexItem).check(z.maxLength(20, 'at most 20 indexes per item'))),
  }),
);
export type UpdateDataBody = z.output<typeof updateDataBodySchema>;

/**
 * GET /api/core/dataset/collection/paths: FastGPT's newest clients send `sourceId`, older ones `parentId`; neither (or
 * an empty one) answers `[]`.
 */
export const collectionPathsQuerySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    sourceId: z.optional(z.union([z.literal(''), idField('sourceId')])),
    parentId: z.optional(z.union([z.literal(''), idField('parentId')])),
  }),
);
export type CollectionPathsQuery = z.output<typeof collectionPathsQuerySchema>;

/** GET /api/core/dataset/collection/trainingDetail?collectionId= and the body of POST …/collection/sync. */
export const collectionIdSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ collectionId: idField('collectionId') }),
);
export type CollectionIdInput = z.output<typeof collectionIdSchema>;

/** GET /api/core/dataset/training/getDatasetTrainingQueue?datasetId=. */
export const datasetIdQuerySchema = /* @__PURE__ */ z.moduleSchema(() => z.object({ datasetId: idField('datasetId') }));
