import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { Architecture } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '#shared/config';
import { TRAINING_MAX_RECEIVES } from '#shared/kb/training-queue';
import type { KbContentFunction } from '#shared/routes';
import { KB_CONTENT_BY_ID, KB_CONTENT_BY_PARENT, TABLES } from '#shared/tables';
import { AppFunction } from './constructs/function.ts';
import type { IndexAction, TableAction } from './constructs/table.ts';
import { AppTable } from './constructs/table.ts';
import { sourceBucket, useSourceBucket } from './kb-sources.ts';
import type { StageConfig } from './stage-config.ts';

/*
 * The knowledge base's content (docs/knowledge-base-api.md, "Collections, data and training"): the content table, the
 * source bucket, the training queue (SQS FIFO) with its dead-letter queue, the content functions and the training
 * function, each granted exactly the calls its code makes. No content function may read a channel key; only the
 * training function reaches the channels (through the relay's routing core, with the relay's own grants).
 */

/** Training one collection (read, split, embed in batches, write) may take minutes; SQS hides the message meanwhile. */
export const TRAINING_TIMEOUT = Duration.minutes(10);
/** Receives of a message before it moves to the dead-letter queue (shared/kb/training-queue.ts). */
export { TRAINING_MAX_RECEIVES };

export interface KbResources {
  readonly tables: { readonly kbContent: AppTable };
  readonly functions: Readonly<Record<KbContentFunction, AppFunction>>;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly sourceBucket: Bucket;
}

export interface KbResourcesProps {
  readonly config: StageConfig;
  readonly datasets: AppTable;
  /** The relay's tables, for the training function's routing core (docs/relay.md). */
  readonly relay: { readonly channels: AppTable; readonly relayState: AppTable; readonly usage: AppTable };
  /** The knowledge-base delete: it queues the purge of a dataset's content. */
  readonly deleteDataset: AppFunction;
  readonly common: {
    readonly logRetention: RetentionDays;
    readonly removalPolicy: RemovalPolicy;
    readonly architecture?: Architecture;
  };
}

interface ContentSpec {
  readonly description: string;
  readonly datasets?: readonly TableAction[];
  readonly content: readonly TableAction[];
  readonly byId?: readonly IndexAction[];
  readonly byParent?: readonly IndexAction[];
  readonly sendsTraining?: true;
  readonly files?: readonly ('put' | 'get' | 'delete')[];
  readonly timeoutSeconds?: number;
  readonly memorySize?: number;
  /** Reads the content table alone: neither the datasets table's name nor the model catalogue. */
  readonly contentOnly?: true;
}

/** Each content function's calls (what its code sends), with why. */
const CONTENT_SPECS: Readonly<Record<Exclude<KbContentFunction, 'train-collection'>, ContentSpec>> = {
  'kb-collections': {
    description:
      'POST /api/core/dataset/collection/{create,create/text,listV2,list,update}, GET …/detail, PUT …/update, DELETE …/delete, …/training/*',
    // GetItem reads the knowledge base (every call checks it is the caller's); UpdateItem says, before its first
    // collection, that it may hold content (DatasetRecord.noContent).
    datasets: ['GetItem', 'UpdateItem'],
    // GetItem reads a collection or a parent folder; a conditional PutItem creates; UpdateItem renames, moves and
    // marks collections for their background delete; Query lists a knowledge base's collections (search, training
    // counts and a deleted folder's subtree). A deleted collection's content goes in the background (train-collection);
    // BatchWriteItem removes one failed chunk (training/deleteTrainingData), with its index entries (infra/stack.ts).
    content: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem'],
    // byId finds a collection from its id alone; byParent lists a folder.
    byId: ['Query'],
    byParent: ['Query'],
    // create/text queues the training; delete queues the background delete.
    sendsTraining: true,
    // create/text keeps its text as a file.
    files: ['put'],
    // A folder's delete walks and marks its whole subtree.
    timeoutSeconds: 28,
    memorySize: 1024,
  },
  'kb-export-collection': {
    description: 'POST /api/core/dataset/collection/export (streaming): a collection as CSV',
    // GetItem: a collection of a deleted knowledge base (its content purged in the background) is not exported.
    datasets: ['GetItem'],
    // Query reads the collection's chunks a page at a time.
    content: ['Query'],
    // byId finds the collection from its id alone.
    byId: ['Query'],
    // An export of 50,000 chunks (about 50 MB) streamed to a slow client.
    timeoutSeconds: 300,
    contentOnly: true,
  },
  'kb-data': {
    description:
      'POST /api/core/dataset/data/{pushData,v2/list,list,update}, GET …/detail, PUT …/update, DELETE …/delete',
    // pushData reads the knowledge base for its vector model's token limit.
    datasets: ['GetItem'],
    // Query reads a collection's chunks (lists, repeats); BatchWriteItem stores pushed items and deletes one;
    // PutItem writes an edited chunk; UpdateItem counts on the collection; GetItem reads a chunk or its collection.
    content: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem'],
    byId: ['Query'],
    // pushData and update queue the embedding.
    sendsTraining: true,
  },
};

/** The knowledge base's content resources (docs/knowledge-base-api.md, "Deployment"). */
export function addKbResources(scope: Construct, props: KbResourcesProps): KbResources {
  const { config, datasets, common } = props;
  const kbContent = new AppTable(scope, 'KbContentTable', {
    definition: TABLES.kbContent,
    removalPolicy: config.removalPolicy,
    deletionProtection: config.tableDeletionProtection,
  });
  // One source bucket for the content and the source functions (infra/kb-sources.ts makes it with its defaults).
  const bucket = sourceBucket(scope, config);

  const deadLetterQueue = new Queue(scope, 'KbTrainingDeadLetterQueue', {
    fifo: true,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, 'KbTrainingQueue', {
    fifo: true,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    // Six times the function's timeout, as AWS advises for a Lambda consumer; a failed message waits this long
    // before its next attempt (the backoff between retries).
    visibilityTimeout: Duration.seconds(TRAINING_TIMEOUT.toSeconds() * 6),
    retentionPeriod: Duration.days(4),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: TRAINING_MAX_RECEIVES },
  });

  const useFiles = (fn: AppFunction, actions: readonly ('put' | 'get' | 'delete')[]) =>
    useSourceBucket(fn, bucket, actions);

  const modelCatalog = { [ENV.modelCatalog]: JSON.stringify(config.modelCatalog) };
  const functions = {} as Record<KbContentFunction, AppFunction>;
  for (const [name, spec] of Object.entries(CONTENT_SPECS) as [keyof typeof CONTENT_SPECS, ContentSpec][]) {
    const fn = new AppFunction(scope, constructId(name), {
      name,
      description: spec.description,
      memorySize: spec.memorySize ?? 512,
      timeout: Duration.seconds(spec.timeoutSeconds ?? 10),
      environment: { [ENV.logLevel]: config.logLevel },
      ...(spec.contentOnly ? {} : { bundledEnvironment: modelCatalog }),
      ...common,
    });
    if (spec.datasets) fn.useTable(datasets, ENV.datasetsTable, spec.datasets);
    else if (!spec.contentOnly) fn.setEnvironment(ENV.datasetsTable, datasets.table.tableName);
    fn.useTable(kbContent, ENV.kbContentTable, spec.content);
    if (spec.byId) fn.useIndex(kbContent, KB_CONTENT_BY_ID.name, spec.byId);
    if (spec.byParent) fn.useIndex(kbContent, KB_CONTENT_BY_PARENT.name, spec.byParent);
    if (spec.sendsTraining) {
      queue.grantSendMessages(fn.role);
      fn.setEnvironment(ENV.kbTrainingQueueUrl, queue.queueUrl);
    }
    if (spec.files) useFiles(fn, spec.files);
    functions[name] = fn;
  }

  const train = new AppFunction(scope, 'TrainCollection', {
    name: 'train-collection',
    description:
      'SQS: trains collections (read, split, embed through the relay, index), embeds pushed data, deletes content in the background',
    memorySize: 1024,
    timeout: TRAINING_TIMEOUT,
    environment: { [ENV.logLevel]: config.logLevel },
    bundledEnvironment: modelCatalog,
    ...common,
  });
  // One BatchGetItem reads a message's collection and its knowledge base together (shared/repositories/training-subjects.ts).
  train.useTable(datasets, ENV.datasetsTable, ['BatchGetItem']);
  // UpdateItem moves the collection through its states; Query reads its chunks; BatchWriteItem writes them and deletes
  // them; GetItem reads a deleted collection (shared/kb/content-delete.ts).
  train.useTable(kbContent, ENV.kbContentTable, ['GetItem', 'BatchGetItem', 'UpdateItem', 'Query', 'BatchWriteItem']);
  // A background delete walks a deleted folder's collections.
  train.useIndex(kbContent, KB_CONTENT_BY_PARENT.name, ['Query']);
  useRelayCore(train, props.relay, config);
  // GetObject reads sources; DeleteObject removes a deleted collection's or knowledge base's files.
  useFiles(train, ['get', 'delete']);
  // A background delete stopped by its time sends itself again.
  queue.grantSendMessages(train.role);
  train.setEnvironment(ENV.kbTrainingQueueUrl, queue.queueUrl);
  // One message at a time per collection group; a failed message is reported alone (partial batch response).
  train.function.addEventSource(new SqsEventSource(queue, { batchSize: 1, reportBatchItemFailures: true }));
  functions['train-collection'] = train;

  // Deleting a knowledge base queues its content's purge (the training function runs it): the delete writes no content.
  queue.grantSendMessages(props.deleteDataset.role);
  props.deleteDataset.setEnvironment(ENV.kbTrainingQueueUrl, queue.queueUrl);

  return { tables: { kbContent }, functions, queue, deadLetterQueue, sourceBucket: bucket };
}

/** The training dead-letter queue as the monitoring watches it (an alarm on its first message). */
export function kbDeadLetterWatch(deadLetterQueue: Queue) {
  return {
    id: 'KbTrainingDeadLetters',
    queue: deadLetterQueue,
    what: 'training messages in the dead-letter queue (a collection whose training failed every attempt)',
    runbook: 'kb-training-dead-letters',
  };
}

const constructId = (name: string): string =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/**
 * The source functions (infra/kb-sources.ts) use the collections core: a link or file create stores its collection
 * (GetItem of the parent folder, a conditional PutItem) and queues the training; a read, and the preview of a collection
 * read again, find a collection by its id (Query on `byId`, then GetItem).
 */
export function grantSourceCollections(
  kb: KbResources,
  functions: { readonly create: AppFunction; readonly read: AppFunction; readonly preview: AppFunction },
): void {
  const { kbContent } = kb.tables;
  // GetItem, PutItem: a new collection; Query (byId), GetItem, UpdateItem: collection/sync finds a link collection by
  // its id and marks it queued when its page changed.
  functions.create.useTable(kbContent, ENV.kbContentTable, ['GetItem', 'PutItem', 'UpdateItem']);
  functions.create.useIndex(kbContent, KB_CONTENT_BY_ID.name, ['Query']);
  kb.queue.grantSendMessages(functions.create.role);
  functions.create.setEnvironment(ENV.kbTrainingQueueUrl, kb.queue.queueUrl);
  functions.read.useTable(kbContent, ENV.kbContentTable, ['GetItem']);
  functions.read.useIndex(kbContent, KB_CONTENT_BY_ID.name, ['Query']);
  // The preview of a collection read again (`reTraining`) finds it as the read does.
  functions.preview.useTable(kbContent, ENV.kbContentTable, ['GetItem']);
  functions.preview.useIndex(kbContent, KB_CONTENT_BY_ID.name, ['Query']);
}

/**
 * What a function needs to call models through the relay's routing core in-process, as the `/v1` function does
 * (infra/relay.ts): its settings, the channels snapshot (Scan) and auto-disable (UpdateItem), health and the imported
 * routing options (Query, UpdateItem, DeleteItem on relayState) and one usage record per model call. The training
 * function (embeddings, Q&A) and the search (the question's embedding) use it.
 */
export function useRelayCore(fn: AppFunction, relay: KbResourcesProps['relay'], config: StageConfig): void {
  if (config.relay.maxAttempts !== undefined) fn.setEnvironment(ENV.relayMaxAttempts, String(config.relay.maxAttempts));
  fn.setEnvironment(ENV.relayAllowedHosts, config.relay.allowedHosts.join(','));
  fn.setEnvironment(ENV.relayFirstByteTimeoutMs, String(config.relay.firstByteTimeoutMs));
  fn.setEnvironment(ENV.usageRetentionDays, String(config.relay.usageRetentionDays));
  fn.useTable(relay.channels, ENV.channelsTable, ['Scan', 'UpdateItem']);
  fn.useTable(relay.relayState, ENV.relayStateTable, ['Query', 'UpdateItem', 'DeleteItem']);
  fn.useTable(relay.usage, ENV.usageTable, ['BatchWriteItem']);
}

/**
 * What a function needs to write or remove the search's indexes (shared/kb/search, through ChunkIndexWriter): vectors
 * in `kbVectors` (BatchWriteItem writes and deletes, Query finds a chunk's or a knowledge base's vectors, UpdateItem the
 * per-knowledge-base version the exact search's cache checks) and postings in `kbTerms` (BatchWriteItem of blocks and
 * chunk items, BatchGetItem of a removal's chunk items, GetItem and PutItem of the `n` item and of a block cut on
 * removal, DeleteItem of a block left empty, UpdateItem of a batch's chunk set, Query of a batch's or a knowledge base's
 * items; test/infra/kb-search.test.ts checks this list against the commands the index's code sends). `index` mode writes
 * vectors in the form DynamoDB's vector indexes read (docs/knowledge-base-search.md).
 */
export function useSearchIndexes(
  fn: AppFunction,
  tables: { readonly kbVectors: AppTable; readonly kbTerms: AppTable },
): void {
  fn.setEnvironment(ENV.kbVectorSearch, 'index');
  fn.useTable(tables.kbVectors, ENV.kbVectorsTable, ['BatchWriteItem', 'Query', 'UpdateItem']);
  fn.useTable(tables.kbTerms, ENV.kbTermsTable, [
    'BatchWriteItem',
    'BatchGetItem',
    'GetItem',
    'PutItem',
    'DeleteItem',
    'UpdateItem',
    'Query',
  ]);
}
