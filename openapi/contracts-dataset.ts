/**
 * The knowledge-base API's contracts of its knowledge bases and folders (FastGPT's dataset calls).
 */

import * as z from 'zod';
import { createDatasetBodySchema } from '#functions/create-dataset/schema';
import { createDatasetFolderBodySchema } from '#functions/create-dataset-folder/schema';
import { pathsQuerySchema } from '#functions/dataset-paths/schema';
import { listDatasetsBodySchema, listDatasetsQuerySchema } from '#functions/list-datasets/schema';
import { updateDatasetBodySchema } from '#functions/update-dataset/schema';
import { datasetSuccessBodySchema } from '#shared/envelopes/dataset';
import { idQuerySchema } from '#shared/schemas/dataset-fields';
import { datasetIdSchema, detailSchema, listItemSchema, pathEntrySchema } from '#shared/schemas/datasets';
import {
  datasetError,
  datasetErrors,
  openApiContract,
  type RouteContract,
  type TopicContracts,
} from './contract-parts.ts';

const LIST_DESCRIPTION =
  'Without `parentId`, every record of the team, flat; `parentId` null or "" lists the root, an id that folder. Newest `updateTime` first, at most 1,000 (a list of the whole team reads its 10,000 most recently created records at most). `type` is one type or an array of types. With a `searchKey`, the team\'s records whose name or intro holds it (case-insensitive), whatever their folder and type; a search reads the team\'s 10,000 most recently created records at most.';

/** The update's contract; FastGPT takes update with any method, so it is served on PUT and on POST. */
const updateContract = (operationId: string, method: string): RouteContract => ({
  operationId,
  summary: `Rename, edit or move a knowledge base or folder (${method})`,
  description:
    'Changes only the fields it names and bumps `updateTime`. A `name` given as null or "" leaves the name as it is; `vectorModel` is ignored (it never changes) and `type` never changes; `agentModelId`/`vlmModelId` are read as the fields without `Id`. A folder never moves into its own subtree, and no record sits deeper than 100 levels. Moves into folders run one at a time per team: a move that waits too long, or a record moved by another request meanwhile, answers 429 (send it again).',
  request: { body: updateDatasetBodySchema, bodyExample: { id: '6740a1f2c3d4e5f6a7b8c9d0', name: 'Renamed' } },
  success: { status: 200, description: 'Updated', body: datasetSuccessBodySchema(z.null()) },
  errors: datasetErrors(
    'invalidParams',
    'missingParams',
    'invalidModel',
    'unExistDataset',
    'tooManyRequests',
    'unauthorized',
    'unAuthApiKey',
  ),
});

export const DATASET_CONTRACTS: TopicContracts = {
  dataset: {
    'POST /api/core/dataset/create': {
      operationId: 'createDataset',
      summary: 'Create a knowledge base or folder',
      description:
        "Creates a knowledge base (`type: dataset`, the default) or a folder for the caller's team, at the root or in a folder of the same team. A model name the catalogue does not know is stored as sent (the default model's item is shown for it) unless the deployment's model policy is strict (then 400/501010). `vectorModelId`, `agentModelId` and `vlmModelId` are read as the fields without `Id`. Unknown fields are ignored.",
      request: {
        body: createDatasetBodySchema,
        bodyExample: { name: 'Product docs', intro: 'Manuals and FAQs' },
      },
      success: {
        status: 200,
        description: 'Created; `data` is the new id',
        body: datasetSuccessBodySchema(datasetIdSchema),
        example: { code: 200, statusText: '', message: '', data: '6740a1f2c3d4e5f6a7b8c9d0' },
      },
      errors: [
        datasetError('invalidParams'),
        datasetError('missingParams'),
        datasetError('invalidModel'),
        datasetError('unExistDataset'),
        datasetError('unauthorized'),
        datasetError('unAuthApiKey'),
      ],
    },
    'POST /api/core/dataset/folder/create': {
      operationId: 'createDatasetFolder',
      summary: 'Create a folder',
      description:
        "FastGPT's web client's folder call: creates a folder as `create` does with `type: folder`. Other fields (an `avatar` too, as in FastGPT) are ignored. FastGPT answers `data: {}`; this answers the new id.",
      request: {
        body: createDatasetFolderBodySchema,
        bodyExample: { parentId: null, name: 'Manuals', intro: '' },
      },
      success: {
        status: 200,
        description: 'Created; `data` is the new folder id',
        body: datasetSuccessBodySchema(datasetIdSchema),
        example: { code: 200, statusText: '', message: '', data: '6740a1f2c3d4e5f6a7b8c9d0' },
      },
      errors: datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'POST /api/core/dataset/list': {
      operationId: 'listDatasets',
      summary: 'List a folder or the whole team, or search the team',
      description: LIST_DESCRIPTION,
      request: { body: listDatasetsBodySchema, bodyExample: { parentId: null, type: 'dataset', searchKey: '' } },
      success: {
        status: 200,
        description: 'The list items',
        body: datasetSuccessBodySchema(z.array(listItemSchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /api/core/dataset/list': {
      operationId: 'listDatasetsByQuery',
      summary: 'The list call, with its fields in the query',
      description: `For older FastGPT scripts: the query's \`parentId\`, \`type\` (one value) and \`searchKey\` are read like the POST's body. ${LIST_DESCRIPTION}`,
      request: { query: listDatasetsQuerySchema },
      success: {
        status: 200,
        description: 'The list items',
        body: datasetSuccessBodySchema(z.array(listItemSchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /api/core/dataset/detail': {
      operationId: 'getDataset',
      summary: 'One knowledge base or folder',
      description:
        "The record with its model items (a folder's are those of FastGPT's folder defaults), the caller's `permission` and `status: active`.",
      request: { query: idQuerySchema },
      success: { status: 200, description: 'The record', body: datasetSuccessBodySchema(detailSchema) },
      errors: datasetErrors('invalidParams', 'missingParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'PUT /api/core/dataset/update': updateContract('updateDataset', 'PUT'),
    'POST /api/core/dataset/update': updateContract('updateDatasetByPost', 'POST, as FastGPT clients send it'),
    'DELETE /api/core/dataset/delete': {
      operationId: 'deleteDataset',
      summary: 'Delete a knowledge base, or a folder with its whole subtree',
      description:
        "Safe to repeat after any failure: a repeat deletes what is left. A folder's delete waits for the team's moves into folders (and they for it): one that waits too long answers 429 (send it again).",
      request: { query: idQuerySchema },
      success: { status: 200, description: 'Deleted', body: datasetSuccessBodySchema(z.null()) },
      errors: datasetErrors(
        'invalidParams',
        'missingParams',
        'unExistDataset',
        'tooManyRequests',
        'unauthorized',
        'unAuthApiKey',
      ),
    },
    'GET /api/core/dataset/paths': {
      operationId: 'getDatasetPaths',
      summary: 'The folders above a record, root first',
      description: '`type=current` includes the record itself; without a `sourceId` the answer is `[]`.',
      request: { query: pathsQuerySchema },
      success: {
        status: 200,
        description: 'The path from the root',
        body: datasetSuccessBodySchema(z.array(pathEntrySchema)),
      },
      errors: datasetErrors('invalidParams', 'unExistDataset', 'unauthorized', 'unAuthApiKey'),
    },
    'GET /openapi.json': openApiContract('getOpenApiDocument', 'Served without a token.'),
  },
};
