import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { ensureTables, localDynamoClient } from '#infra/local/dynamo-engine';
import type {
  ChunkIndexWriter,
  ChunkVector,
  Embedder,
  FullTextDoc,
  SourceFileStore,
  SplitText,
} from '#shared/kb/contract';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { KbContentRepository } from '#shared/repositories/kb-content';
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

/** A source store in memory. */
export function memoryFileStore(): SourceFileStore & { readonly files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    put: async (f) => {
      files.set(`${f.teamId}/${f.fileId}`, f.bytes);
    },
    get: async (teamId, fileId) => {
      const bytes = files.get(`${teamId}/${fileId}`);
      return bytes === undefined ? undefined : { bytes, name: fileId, contentType: 'text/plain' };
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
    addFullText: async (_t, _d, docs) => {
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
