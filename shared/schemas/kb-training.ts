import { idField } from '#shared/schemas/dataset-fields';
import { chunkText, intField, paginationFields } from '#shared/schemas/kb-content';
import * as z from '#shared/zod';

/*
 * Request rules of FastGPT's training-error calls (docs/knowledge-base-api.md, "Training errors"; FastGPT's
 * `packages/global/openapi/core/dataset/training/api.ts`), with its field names. Messages name the field, never the
 * value.
 */

/** An id a call may leave out: omitted, null or "" = not given. */
const optionalId = (field: string) =>
  z.optional(
    z.pipe(
      z.nullish(z.union([z.literal(''), idField(field)])),
      z.transform((v) => v || undefined),
    ),
  );

/** POST /api/core/dataset/training/getTrainingError: one page of a collection's errors. */
export const trainingErrorListBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ collectionId: idField('collectionId'), ...paginationFields }),
);
export type TrainingErrorListBody = z.output<typeof trainingErrorListBodySchema>;

/** POST /api/core/dataset/training/getTrainingDataDetail (FastGPT's older clients also send `datasetId`). */
export const trainingDataDetailBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ collectionId: idField('collectionId'), dataId: idField('dataId'), datasetId: optionalId('datasetId') }),
);
export type TrainingDataDetailBody = z.output<typeof trainingDataDetailBodySchema>;

/**
 * PUT /api/core/dataset/training/updateTrainingData: with `dataId`, one error item (edited when `q` or `a` is sent)
 * trained again; without, every error of the collection, or of the knowledge base when only `datasetId` is sent.
 */
export const updateTrainingDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: optionalId('datasetId'),
    collectionId: optionalId('collectionId'),
    dataId: optionalId('dataId'),
    q: chunkText('q'),
    a: chunkText('a'),
    chunkIndex: z.nullish(intField('chunkIndex', 0, 10_000_000)),
  }),
);
export type UpdateTrainingDataBody = z.output<typeof updateTrainingDataBodySchema>;

/** POST /api/core/dataset/training/deleteTrainingData: one error item (FastGPT's older clients send `datasetId`). */
export const deleteTrainingDataBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: optionalId('datasetId'),
    collectionId: optionalId('collectionId'),
    dataId: idField('dataId'),
  }),
);
export type DeleteTrainingDataBody = z.output<typeof deleteTrainingDataBodySchema>;

/**
 * POST /api/core/dataset/training/getDatasetTrainingError: a knowledge base's collections with errors, a page of them
 * (`pageSize` ≤ 20, default 10), each with its first error items (`itemPageSize` ≤ 20, default 5); with
 * `collectionId`, that collection's items from `itemOffset` ("load more"). FastGPT's limits
 * (`DatasetTrainingErrorPaginationLimits`).
 */
export const datasetTrainingErrorBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    collectionId: optionalId('collectionId'),
    offset: z.nullish(intField('offset', 0, 100_000)),
    pageNum: z.nullish(intField('pageNum', 1, 5_000)),
    pageSize: z.nullish(intField('pageSize', 1, 20)),
    itemOffset: z.nullish(intField('itemOffset', 0, 100_000)),
    itemPageSize: z.nullish(intField('itemPageSize', 1, 20)),
  }),
);
export type DatasetTrainingErrorBody = z.output<typeof datasetTrainingErrorBodySchema>;

/** PUT /api/core/dataset/training/retryErrorCollections: every error of a knowledge base, or of the collections named. */
export const retryErrorCollectionsBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    collectionIds: z.nullish(z.array(idField('collectionIds')).check(z.maxLength(1000, 'at most 1000 collectionIds'))),
  }),
);
export type RetryErrorCollectionsBody = z.output<typeof retryErrorCollectionsBodySchema>;
