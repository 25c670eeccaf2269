import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { documentClient } from '../clients/dynamodb.ts';
import { ENV, type KbContentConfig } from '../config.ts';
import { DynamoDatasetRepository } from '../repositories/datasets.ts';
import { KbContentRepository } from '../repositories/kb-content.ts';
import { directorySourceFileStore, s3SourceFileStore } from './basic-file-store.ts';
import type { ChunkIndexWriter, SourceFileStore } from './contract.ts';
import { type TrainingQueue, trainingQueueFor } from './training-queue.ts';

/*
 * The collaborators of the content functions, built once per execution environment from their configuration
 * (docs/knowledge-base-api.md, "Collections, data and training").
 */

/** The source store: the bucket when KB_SOURCE_BUCKET is set (deployed), else KB_SOURCE_DIR (`npm start`). */
export function sourceFileStoreFor(config: {
  readonly [ENV.kbSourceBucket]?: string | undefined;
  readonly [ENV.kbSourceDir]?: string | undefined;
}): SourceFileStore {
  const bucket = config[ENV.kbSourceBucket];
  if (bucket !== undefined) return s3SourceFileStore(new S3Client({}), bucket);
  const dir = config[ENV.kbSourceDir];
  if (dir !== undefined) return directorySourceFileStore(dir);
  throw new Error(`set ${ENV.kbSourceBucket} or ${ENV.kbSourceDir}`);
}

/**
 * The search's index writer. The search (shared/kb/search) owns the vector and term tables; until it is wired here the
 * content is stored and trained without them (chunks are readable, nothing is searchable).
 */
export function chunkIndexWriterFor(): ChunkIndexWriter {
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
    content: new KbContentRepository(documentClient, config[ENV.kbContentTable]),
    queue: trainingQueueFor(config[ENV.kbTrainingQueueUrl], () => new SQSClient({})),
    files: lazyFileStore(() => sourceFileStoreFor(config)),
    index: chunkIndexWriterFor(),
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
