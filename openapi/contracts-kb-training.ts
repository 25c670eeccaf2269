import * as z from 'zod';
import { datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import type { DatasetErrorKind } from '#shared/errors';
import { datasetIdSchema } from '#shared/schemas/datasets';
import {
  datasetTrainingErrorBodySchema,
  deleteTrainingDataBodySchema,
  retryErrorCollectionsBodySchema,
  trainingDataDetailBodySchema,
  trainingErrorListBodySchema,
  updateTrainingDataBodySchema,
} from '#shared/schemas/kb-training';
import { datasetErrors, type RouteContract, type TopicContracts } from './contract-parts.ts';

/*
 * The contracts of FastGPT's training-error calls (docs/knowledge-base-api.md, "Training errors"), registered in
 * openapi/contracts.ts. The item follows FastGPT's DatasetTrainingSchemaType (labring/FastGPT
 * packages/global/core/dataset/type.ts at 01c761fd) without `billId`, as its getTrainingError's schema allows.
 */

const id = datasetIdSchema;
const ISO = z.string().meta({ description: 'ISO 8601 time' });
const DATASET_ID = '6740a1f2c3d4e5f6a7b8c9d0';
const COLLECTION_ID = '6740a1f2c3d4e5f6a7b8c9d1';
const DATA_ID = '6740a1f2c3d4e5f6a7b8c9d2';

const errors = (...kinds: DatasetErrorKind[]) => datasetErrors(...kinds, 'unauthorized', 'unAuthApiKey');
const ok = <T extends z.ZodType>(description: string, data: T) => ({
  status: 200,
  description,
  body: datasetSuccessBodySchema(data),
});

const mode = z
  .enum(['chunk', 'parse', 'qa'])
  .meta({ description: '`chunk`: a chunk without its vector; `parse` (or `qa`): the collection’s failed training' });
const errorItemSchema = z
  .strictObject({
    _id: id.meta({ description: 'The chunk’s id, or the collection’s for its parse item' }),
    teamId: z.string(),
    tmbId: z.string(),
    datasetId: id,
    collectionId: id,
    mode,
    dataId: id.optional().meta({ description: 'The chunk (chunk items)' }),
    q: z.string(),
    a: z.string(),
    chunkIndex: z.int().nonnegative(),
    indexSize: z.int().positive().optional(),
    weight: z.literal(0),
    indexes: z.array(z.strictObject({ type: z.string(), text: z.string() })),
    retryCount: z.literal(0),
    expireAt: ISO.meta({ description: 'When the chunk (or the collection) was last written' }),
    lockTime: ISO.meta({ description: 'The same time: its last attempt' }),
    errorMsg: z.string().meta({ description: 'Why it failed: the collection’s error' }),
  })
  .meta({ description: 'FastGPT’s training item (DatasetTrainingSchemaType without billId)' });

const groupSchema = z
  .strictObject({
    collection: z.strictObject({
      _id: id,
      collectionId: id,
      name: z.string(),
      type: z.string().meta({ description: 'The collection’s type (`file`, `link`, …)' }),
      sourceName: z.string(),
      sourceId: z.string().optional().meta({ description: 'Its file’s id or its link' }),
    }),
    items: z.array(errorItemSchema).meta({ description: 'A page of its error items (as getTrainingError’s)' }),
    errorCount: z.int().positive().meta({ description: 'All its error items' }),
    hasMoreItems: z.boolean(),
  })
  .meta({ description: 'FastGPT’s TrainingErrorGroupType' });

const CONTRACTS: Readonly<Record<string, RouteContract>> = {
  'POST /api/core/dataset/training/getTrainingError': {
    operationId: 'getTrainingError',
    summary: 'A collection’s training errors, as FastGPT’s training dialog lists them',
    description:
      'The collection’s chunks stored without a vector (their embedding failed), in chunk order, each as one of FastGPT’s training items with the collection’s error; a collection whose training failed with no such chunk (its source could not be read, or every attempt failed) has one item, its parse, whose `_id` is the collection’s.',
    request: {
      body: trainingErrorListBodySchema,
      bodyExample: { collectionId: COLLECTION_ID, offset: 0, pageSize: 15 },
    },
    success: ok('One page', z.strictObject({ list: z.array(errorItemSchema), total: z.int().nonnegative() })),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
  },
  'POST /api/core/dataset/training/getTrainingDataDetail': {
    operationId: 'getTrainingDataDetail',
    summary: 'One training error item',
    description: '`null` when the collection has no error item with that id (another team’s included).',
    request: {
      body: trainingDataDetailBodySchema,
      bodyExample: { datasetId: DATASET_ID, collectionId: COLLECTION_ID, dataId: DATA_ID },
    },
    success: ok(
      'The item, or null',
      z.strictObject({ _id: id, datasetId: id, collectionId: id, mode, q: z.string(), a: z.string() }).nullable(),
    ),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection'),
  },
  'PUT /api/core/dataset/training/updateTrainingData': {
    operationId: 'updateTrainingData',
    summary: 'Train an error item again (edited first), or every error of a collection or knowledge base',
    description:
      'With `dataId`: a chunk, its `q`/`a` changed first when sent, is queued for embedding again (it stays an error item until it has its vector); the parse item trains the collection again from its source with its settings (429 while it is being trained). Without `dataId`: every error of `collectionId`’s collection, or, with only `datasetId`, of every collection of the knowledge base. Once a collection has no chunk without a vector, its error goes.',
    request: {
      body: updateTrainingDataBodySchema,
      bodyExample: { datasetId: DATASET_ID, collectionId: COLLECTION_ID, dataId: DATA_ID, q: 'Edited text' },
    },
    success: ok('Queued', z.strictObject({})),
    errors: errors(
      'invalidParams',
      'missingParams',
      'unExistDataset',
      'unExistCollection',
      'unAuthDatasetData',
      'tooManyRequests',
    ),
  },
  'POST /api/core/dataset/training/deleteTrainingData': {
    operationId: 'deleteTrainingData',
    summary: 'Remove a training error item',
    description:
      'A chunk without a vector is deleted with its postings (as data/delete); the parse item takes the collection’s error away (it stays with whatever chunks it has). The collection’s error goes with its last error item.',
    request: {
      body: deleteTrainingDataBodySchema,
      bodyExample: { datasetId: DATASET_ID, collectionId: COLLECTION_ID, dataId: DATA_ID },
    },
    success: ok('Removed', z.strictObject({})),
    errors: errors('invalidParams', 'missingParams', 'unExistCollection', 'unAuthDatasetData'),
  },
  'POST /api/core/dataset/training/getDatasetTrainingError': {
    operationId: 'getDatasetTrainingError',
    summary: 'A knowledge base’s collections with training errors, each with its first error items',
    description:
      'The collections with error items (`total` counts them), a page of them in id order (`pageSize` ≤ 20, default 10), each with its first `itemPageSize` items (≤ 20, default 5). With `collectionId`, only that collection, its items from `itemOffset` (“load more”); a collection not in the knowledge base answers no group.',
    request: {
      body: datasetTrainingErrorBodySchema,
      bodyExample: { datasetId: DATASET_ID, offset: 0, pageSize: 10, itemPageSize: 5 },
    },
    success: ok('One page', z.strictObject({ list: z.array(groupSchema), total: z.int().nonnegative() })),
    errors: errors('invalidParams', 'missingParams', 'unExistDataset'),
  },
  'PUT /api/core/dataset/training/retryErrorCollections': {
    operationId: 'retryErrorCollections',
    summary: 'Train every error of a knowledge base again, or of the collections named',
    description:
      'As `updateTrainingData` with only `datasetId`: failed chunks are queued for embedding again, a failed parse trains its collection again (passed over while it is being trained). `collectionIds` limits it to those collections of the knowledge base; others are passed over.',
    request: {
      body: retryErrorCollectionsBodySchema,
      bodyExample: { datasetId: DATASET_ID, collectionIds: [COLLECTION_ID] },
    },
    success: ok('Queued', z.strictObject({})),
    errors: errors('invalidParams', 'missingParams', 'unExistDataset'),
  },
};

/** The training-error topic (registered in openapi/contracts.ts). */
export const KB_TRAINING_CONTRACTS: TopicContracts = { dataset: CONTRACTS };
