import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentClient } from '../clients/dynamodb.ts';
import { ENV, type KbContentConfig, loadConfig } from '../config.ts';
import { DynamoDatasetRepository } from '../repositories/datasets.ts';
import { KbContentRepository } from '../repositories/kb-content.ts';
import * as z from '../zod.ts';
import { type CollectionDeps, sourceCollectionsOn } from './collections.ts';
import type { ChunkIndexWriter, SourceFileStore } from './contract.ts';
import { createChunkIndexWriter, type VectorSearchMode } from './search/factory.ts';
import type { SourceCollections } from './sources/collections-port.ts';
import { LocalSourceFileStore, S3SourceFileStore } from './sources/file-stores.ts';
import { type TrainingQueue, trainingQueueFor } from './training-queue.ts';

/*
 * The collaborators of the content functions, built once per execution environment from their configuration
 * (docs/knowledge-base-api.md, "Collections, data and training").
 */

/** The source store (shared/kb/sources): the bucket when KB_SOURCE_BUCKET is set (deployed), else KB_SOURCE_DIR. */
export function sourceFileStoreFor(config: {
  readonly [ENV.kbSourceBucket]?: string | undefined;
  readonly [ENV.kbSourceDir]?: string | undefined;
}): SourceFileStore {
  // The stores themselves, not shared/kb/sources/store-wiring.ts: that module brings the link reader (and its parsers)
  // into every bundle, which the content functions never run.
  const bucket = config[ENV.kbSourceBucket];
  if (bucket) return new S3SourceFileStore(new S3Client({}), bucket);
  const dir = config[ENV.kbSourceDir];
  if (dir) return new LocalSourceFileStore(dir);
  throw new Error(`Invalid environment: ${ENV.kbSourceBucket} (deployed) or ${ENV.kbSourceDir} (locally) is required`);
}

/**
 * The search's index writer (shared/kb/search): vectors in KB_VECTORS_TABLE, postings in KB_TERMS_TABLE, vectors in the
 * form KB_VECTOR_SEARCH reads (`index` deployed, `exact` on the local engines). A stage whose functions have no search
 * tables (none today: the stack and `npm start` give every writer both) stores and lists content without indexes.
 */
export function chunkIndexWriterFor(config: {
  readonly [ENV.kbVectorsTable]?: string | undefined;
  readonly [ENV.kbTermsTable]?: string | undefined;
  readonly [ENV.kbVectorSearch]: VectorSearchMode;
}): ChunkIndexWriter {
  const vectors = config[ENV.kbVectorsTable];
  const terms = config[ENV.kbTermsTable];
  if (vectors && terms) return createChunkIndexWriter(documentClient, { vectors, terms }, config[ENV.kbVectorSearch]);
  return {
    addFullText: async () => {},
    putVectors: async () => {},
    removeChunks: async () => {},
    removeDataset: async () => {},
  };
}

export interface ContentWiring {
  readonly datasets: DynamoDatasetRepository;
  readonly content: KbContentRepository;
  readonly queue: TrainingQueue;
  readonly files: SourceFileStore;
  readonly index: ChunkIndexWriter;
  readonly now: () => Date;
}

/** Everything a content function may need; each handler passes on only what its core takes. */
export function contentWiring(config: KbContentConfig): ContentWiring {
  return {
    datasets: new DynamoDatasetRepository(documentClient, config[ENV.datasetsTable]),
    // Reads by id answer nothing of a deleted knowledge base (its content goes in the background).
    content: new KbContentRepository(documentClient, config[ENV.kbContentTable], {
      datasetsTable: config[ENV.datasetsTable],
    }),
    queue: trainingQueueFor(config[ENV.kbTrainingQueueUrl], () => new SQSClient({})),
    files: lazyFileStore(() => sourceFileStoreFor(config)),
    index: chunkIndexWriterFor(config),
    now: () => new Date(),
  };
}

/** A store built on first use: functions that never touch a file need no source store configured. */
function lazyFileStore(build: () => SourceFileStore): SourceFileStore {
  let store: SourceFileStore | undefined;
  const get = () => {
    store ??= build();
    return store;
  };
  return {
    put: (file) => get().put(file),
    get: (teamId, fileId) => get().get(teamId, fileId),
    delete: (teamId, fileIds) => get().delete(teamId, fileIds),
  };
}

/**
 * The collections core for the source functions (kb-create-source-collection, kb-read-collection), from their
 * environment: KB_CONTENT_TABLE, and for creates DATASETS_TABLE and the training queue (KB_TRAINING_QUEUE_URL, or
 * `npm start`'s in-process queue).
 */
export function sourceCollectionsFromEnv(env: NodeJS.ProcessEnv = process.env): SourceCollections {
  return sourceCollectionsOn(sourceContentFromEnv(env));
}

/** The same parts, the content repository whole: `collection/sync` also queues a training again (shared/kb/retraining.ts). */
export function sourceContentFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): CollectionDeps & { readonly content: KbContentRepository } {
  const config = loadConfig(sourceCollectionsEnvSchema, env);
  const datasetsTable = config[ENV.datasetsTable];
  return {
    datasets: datasetsTable
      ? new DynamoDatasetRepository(documentClient, datasetsTable)
      : { get: async () => undefined, markContent: async () => false },
    content: new KbContentRepository(documentClient, config[ENV.kbContentTable], {
      ...(datasetsTable ? { datasetsTable } : {}),
    }),
    queue: trainingQueueFor(config[ENV.kbTrainingQueueUrl], () => new SQSClient({})),
    now: () => new Date(),
  };
}

const sourceCollectionsEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.datasetsTable]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.kbContentTable]: z.string().check(z.trim(), z.minLength(1, 'is required')),
    [ENV.kbTrainingQueueUrl]: z.optional(z.string().check(z.trim(), z.minLength(1))),
  }),
);
