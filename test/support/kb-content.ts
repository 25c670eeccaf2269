import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect } from 'vitest';
import type { BatchDeps } from '#functions/train-collection/train-collection';
import { ensureTables, localDynamoClient } from '#infra/local/dynamo-engine';
import { DatasetApiError } from '#shared/errors';
import { newObjectId } from '#shared/ids';
import { storeCollection } from '#shared/kb/collections';
import {
  type ChunkIndexWriter,
  type ChunkRecord,
  type ChunkVector,
  chunkSortKey,
  datasetKey,
  defaultIndexes,
  type Embedder,
  type FullTextDoc,
  type SourceFileStore,
  type SplitText,
} from '#shared/kb/contract';
import type { TrainingMessage } from '#shared/kb/training-queue';
import { type DatasetRecord, DynamoDatasetRepository } from '#shared/repositories/datasets';
import { KbContentRepository, type StoredCollection } from '#shared/repositories/kb-content';
import { TrainingSubjects } from '#shared/repositories/training-subjects';
import { startTestEngine, uniqueTableNames } from './dynamo-engine.ts';
import { startedInBeforeAll } from './local-server.ts';

/*
 * Fakes and a real engine for the knowledge base's content cores (shared/kb/*): the repositories on this file's own
 * tables, an in-memory source store, a recording index writer, a scripted embedder and a plain splitter.
 */

export interface KbContentWorld {
  readonly content: KbContentRepository;
  readonly datasets: DynamoDatasetRepository;
  readonly subjects: TrainingSubjects;
}

/** This test file's repositories on fresh tables (dynalite, or the shared engine of DYNAMODB_ENDPOINT). */
export function useKbContentTables(): KbContentWorld {
  let world: (KbContentWorld & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    const engine = await startTestEngine();
    const client = localDynamoClient(engine);
    const names = uniqueTableNames();
    await ensureTables(client, names);
    const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    world = {
      content: new KbContentRepository(documents, names.kbContent),
      datasets: new DynamoDatasetRepository(documents, names.datasets),
      subjects: new TrainingSubjects(documents, { kbContent: names.kbContent, datasets: names.datasets }),
      close: async () => {
        client.destroy();
        await engine.close();
      },
    };
  });
  afterAll(async () => world?.close());
  return startedInBeforeAll(() => world, 'the content tables');
}

/** Stores a knowledge base of `teamId` with FastGPT's default models, as create-dataset does. */
export async function storeKnowledgeBase(world: KbContentWorld, teamId: string): Promise<DatasetRecord> {
  const time = new Date().toISOString();
  const record: DatasetRecord = {
    id: newObjectId(),
    teamId,
    tmbId: 'member-1',
    parentId: null,
    type: 'dataset',
    name: 'KB',
    intro: '',
    avatar: '/icon/logo.svg',
    vectorModel: 'text-embedding-3-small',
    agentModel: 'gpt-4o-mini',
    inheritPermission: true,
    createTime: time,
    updateTime: time,
  };
  await world.datasets.put(record);
  return record;
}

/** Stores a virtual collection as create/text does (`fileId` its text), queueing its training to `send` when given. */
export function storeTextCollection(
  world: KbContentWorld,
  dataset: Pick<DatasetRecord, 'teamId' | 'id'>,
  options: { trainingType?: 'chunk' | 'qa'; fileId?: string; send?: (message: TrainingMessage) => Promise<void> } = {},
) {
  return storeCollection(
    {
      teamId: dataset.teamId,
      tmbId: 'member-1',
      datasetId: dataset.id,
      parentId: null,
      name: 'notes',
      type: 'virtual',
      settings: { trainingType: options.trainingType ?? 'chunk', chunkSize: 1000 },
      ...(options.fileId === undefined ? {} : { fileId: options.fileId }),
      train: options.send !== undefined,
    },
    {
      datasets: world.datasets,
      content: world.content,
      queue: { send: options.send ?? (async () => {}) },
      now: () => new Date(),
    },
  );
}

/** A source store in memory. */
export function memoryFileStore(): SourceFileStore & { readonly files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  const described = new Map<string, { name: string; contentType: string }>();
  return {
    files,
    put: async (f) => {
      files.set(`${f.teamId}/${f.fileId}`, f.bytes);
      described.set(`${f.teamId}/${f.fileId}`, { name: f.name, contentType: f.contentType });
    },
    get: async (teamId, fileId) => {
      const bytes = files.get(`${teamId}/${fileId}`);
      const about = described.get(`${teamId}/${fileId}`) ?? { name: fileId, contentType: 'text/plain' };
      return bytes === undefined ? undefined : { bytes, ...about };
    },
    delete: async (teamId, ids) => {
      for (const id of ids) files.delete(`${teamId}/${id}`);
    },
  };
}

/** An index writer that records what it is asked to do. */
export function recordingIndexWriter(): ChunkIndexWriter & {
  readonly fullText: Map<string, FullTextDoc>;
  readonly vectors: Map<string, ChunkVector>;
  readonly removedDatasets: string[];
} {
  const fullText = new Map<string, FullTextDoc>();
  const vectors = new Map<string, ChunkVector>();
  const removedDatasets: string[] = [];
  return {
    fullText,
    vectors,
    removedDatasets,
    addFullText: async (_t, _d, docs, options) => {
      await options?.after;
      for (const doc of docs) fullText.set(doc.dataId, doc);
    },
    putVectors: async (_t, _d, rows) => {
      for (const row of rows) vectors.set(`${row.dataId}#${row.indexNo}`, row);
    },
    removeChunks: async (_t, _d, ids) => {
      for (const id of ids) {
        fullText.delete(id);
        for (const key of [...vectors.keys()]) if (key.startsWith(`${id}#`)) vectors.delete(key);
      }
    },
    removeDataset: async (_t, datasetId) => {
      removedDatasets.push(datasetId);
    },
  };
}

/** An embedder answering a small vector per text (its length and a constant), after `failures` scripted errors. */
export function scriptedEmbedder(failures: Error[] = []): Embedder & { calls: number } {
  const queue = [...failures];
  const embedder = {
    calls: 0,
    async embed(_model: string, texts: readonly string[]) {
      embedder.calls++;
      const failure = queue.shift();
      if (failure) throw failure;
      return texts.map((t) => [t.length, 1, 0]);
    },
  };
  return embedder;
}

/** Paragraphs, one chunk each. */
export const paragraphSplit: SplitText = (text) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

/** A ready chunk of `collection`'s current generation at `index`, with FastGPT's default index. */
export function chunkOf(
  collection: StoredCollection,
  index: number,
  q: string,
  a = '',
  extra: Partial<ChunkRecord> = {},
): ChunkRecord {
  const id = newObjectId();
  return {
    pk: datasetKey(collection.teamId, collection.datasetId),
    sk: chunkSortKey(collection.id, index, id),
    id,
    teamId: collection.teamId,
    tmbId: 'member-1',
    datasetId: collection.datasetId,
    collectionId: collection.id,
    chunkIndex: index,
    q,
    a,
    indexes: defaultIndexes(id, { q, a }),
    generation: collection.generation,
    ready: true,
    updateTime: new Date().toISOString(),
    ...extra,
  };
}

/**
 * The training function's parts on this file's tables, with fakes for the rest: the files store must be given; the
 * background delete uses the same content, index and files, and a queue that refuses unless one is given.
 */
export function trainingDepsOn(
  world: KbContentWorld,
  overrides: Partial<BatchDeps> & Pick<BatchDeps, 'files'>,
): BatchDeps {
  const index = overrides.index ?? recordingIndexWriter();
  return {
    content: world.content,
    subjects: world.subjects,
    split: paragraphSplit,
    embedder: scriptedEmbedder(),
    index,
    newId: () => newObjectId(),
    now: () => new Date(),
    defaults: { vectorModel: 'text-embedding-3-small', agentModel: 'gpt-4o-mini' },
    sleep: async () => {},
    deletes: {
      content: world.content,
      index,
      files: 'delete' in overrides.files ? (overrides.files as Pick<SourceFileStore, 'delete'>) : memoryFileStore(),
    },
    queue: {
      send: async () => {
        throw new Error('this test gave no queue');
      },
    },
    ...overrides,
  };
}

/** The knowledge-base API error a promise rejects with (asserted to be one), as FastGPT's envelope reads it. */
export async function refusal(promise: Promise<unknown>): Promise<{ httpStatus: number; code: number }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasetApiError);
  const { httpStatus, code } = error as DatasetApiError;
  return { httpStatus, code };
}
