import { ENV } from '#shared/config';
import type { ChannelReviewFunction, KnowledgeBaseFunction } from '#shared/routes';
import type { AppFunction } from './constructs/function.ts';
import type { TableAction } from './constructs/table.ts';
import type { StageConfig } from './stage-config.ts';

/*
 * The small table functions of the stack as data (infra/stack.ts makes one AppFunction of each): for every function,
 * its route, exactly the DynamoDB calls its code makes (with a comment saying why) and any larger size.
 */

/** What sets one small table function apart: its route, exactly the calls its code makes, and any larger size. */
export interface TableFunctionSpec {
  readonly description: string;
  readonly table: TableAction[];
  /** Calls on the datasets table's by-parent index. */
  readonly index?: Parameters<AppFunction['useIndex']>[2];
  readonly memorySize?: number;
  readonly timeoutSeconds?: number;
  readonly bundledEnvironment?: Readonly<Record<string, string>>;
  readonly environment?: Readonly<Record<string, string>>;
}

/** The knowledge-base functions after the stage's catalogue and model policy. */
export function knowledgeBaseFunctionSpecs(config: StageConfig): Record<KnowledgeBaseFunction, TableFunctionSpec> {
  // A catalogue of hundreds of models would not fit Lambda's 4 KB environment: it ships in the bundle.
  const modelCatalog = { [ENV.modelCatalog]: JSON.stringify(config.modelCatalog) };
  const modelPolicy = { [ENV.modelPolicy]: config.modelPolicy };
  return {
    'create-dataset': {
      description: 'POST /api/core/dataset/create: creates a knowledge base or folder',
      // Conditional PutItem for the new record; GetItem to check the parent folder.
      table: ['GetItem', 'PutItem'],
      bundledEnvironment: modelCatalog,
      environment: modelPolicy,
    },
    'create-dataset-folder': {
      description: "POST /api/core/dataset/folder/create: creates a folder (FastGPT's web client's call)",
      // The same calls as create: GetItem to check the parent folder, a conditional PutItem for the folder.
      table: ['GetItem', 'PutItem'],
      bundledEnvironment: modelCatalog,
      environment: modelPolicy,
    },
    'list-datasets': {
      description: 'POST and GET /api/core/dataset/list: lists a folder or the team, or searches the team',
      // GetItem checks the parent folder, Query on the index lists it, Query on the table searches the team.
      table: ['GetItem', 'Query'],
      index: ['Query'],
      // Every list item shows its vector model's item from the catalogue.
      bundledEnvironment: modelCatalog,
    },
    'dataset-detail': {
      description: 'GET /api/core/dataset/detail',
      table: ['GetItem'],
      bundledEnvironment: modelCatalog,
    },
    'update-dataset': {
      description: 'PUT /api/core/dataset/update: renames, edits or moves a record',
      // GetItem reads the record and walks the new parent's ancestors; a conditional UpdateItem writes the
      // record and takes the team's tree lock (shared/dataset-tree.ts); Query on the index measures a moved subtree.
      table: ['GetItem', 'UpdateItem'],
      index: ['Query'],
      bundledEnvironment: modelCatalog,
      environment: modelPolicy,
    },
    'delete-dataset': {
      description: 'DELETE /api/core/dataset/delete: deletes a record, a folder with its whole subtree',
      // GetItem reads the record, Query on the index walks the subtree, BatchWriteItem deletes it; a conditional
      // UpdateItem takes the team's tree lock around a folder's walk and deletes (shared/dataset-tree.ts);
      // BatchGetItem reads which knowledge bases are still empty (their content is then not looked for).
      table: ['GetItem', 'UpdateItem', 'BatchWriteItem', 'BatchGetItem'],
      index: ['Query'],
      // A 10,000-record subtree is ~400 BatchWriteItem calls: more memory is more CPU and network.
      memorySize: 1024,
      // Below API Gateway's 29 s; a delete cut short is finished by calling it again.
      timeoutSeconds: 28,
    },
    'dataset-paths': { description: 'GET /api/core/dataset/paths: the folders above a record', table: ['GetItem'] },
  };
}

/** The channel review API: one small function per call. */
export const REVIEW_FUNCTION_SPECS: Readonly<Record<ChannelReviewFunction, TableFunctionSpec>> = {
  'list-channels': {
    description: 'GET /api/channels/: lists channels',
    // Scan (only id, provider and name travel), then BatchGetItem for the page's channels only.
    table: ['Scan', 'BatchGetItem'],
    // Sorting every channel's id, provider and name is O(n): 50,000 channels need the CPU and the time.
    memorySize: 1024,
    timeoutSeconds: 28,
  },
  'get-channel': { description: 'GET /api/channel/{id}: one channel', table: ['GetItem'], memorySize: 256 },
  'update-channel': {
    description: 'PUT /api/channel/{id}: corrects a channel',
    // GetItem to compare the masked key and read updatedAt; a conditional UpdateItem writes the change.
    table: ['GetItem', 'UpdateItem'],
    memorySize: 256,
  },
  'delete-channel': {
    description: 'DELETE /api/channel/{id}: deletes a channel',
    table: ['DeleteItem'],
    memorySize: 256,
  },
  'batch-delete-channels': {
    description: 'POST /api/channels/batch_delete: deletes channels',
    // BatchGetItem finds which ids exist (the count answered), BatchWriteItem deletes them.
    table: ['BatchGetItem', 'BatchWriteItem'],
    memorySize: 256,
  },
};
