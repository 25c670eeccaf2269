import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createTextCollection } from '#functions/kb-collections/create-text-collection';
import { trainBatch } from '#functions/train-collection/train-collection';
import { ensureTables, localDynamoClient, startDynamoEngine } from '#infra/local/dynamo-engine';
import { type LocalTrainingQueue, localTrainingQueue, type SqsHandler } from '#infra/local/kb-queue';
import { parseAllowList } from '#shared/allow-list';
import { newObjectId } from '#shared/ids';
import { splitTextAsFastGpt } from '#shared/kb/chunking';
import { type ChunkIndexWriter, chunkSortKey, datasetKey, type Embedder } from '#shared/kb/contract';
import { relayEmbedder } from '#shared/kb/relay-models';
import { createChunkIndexWriter } from '#shared/kb/search/factory';
import { vectorSortKey } from '#shared/kb/search/vector-layout';
import { vectorBytes } from '#shared/kb/search/vector-store';
import { LocalSourceFileStore } from '#shared/kb/sources/file-stores';
import { TRAINING_WRITE_CONCURRENCY, type TrainingDeps } from '#shared/kb/training';
import type { TrainingMessage } from '#shared/kb/training-queue';
import { createDynamoRelay } from '#shared/relay/dynamo-relay';
import { BatchWriter } from '#shared/repositories/batch';
import { toChannelItem } from '#shared/repositories/channel-item';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import { KbContentRepository } from '#shared/repositories/kb-content';
import { TrainingSubjects } from '#shared/repositories/training-subjects';
import type { TableName } from '#shared/tables';
import { startFakeOpenAi } from '#test/support/fake-upstreams';
import { seededRandom } from '#test/support/seeded-random';
import { type Figure, figure, median } from './figures.ts';
import { corpus } from './kb-corpus.ts';

/*
 * `npm run bench -- --only kb-training` (docs/performance.md, "Knowledge-base training"): text collections trained
 * through the real training core against a raw baseline, alternating rounds, on dynalite in its own process as
 * `npm start` runs it, embeddings from a fake OpenAI-compatible upstream on loopback.
 *
 * Product: each document becomes a text collection as the create/text call makes one (text in the source store,
 * collection stored `queued`); then every training message goes to `npm start`'s in-process queue at once, which runs
 * the train-collection function's batch core (split, chunks stored once in the next generation, full-text postings,
 * embeddings through the relay's routing core over a channel stored in the channels table as an import writes it,
 * vectors, generation flipped). Timed from the first message sent until the queue is idle.
 * Raw (the target's baseline): the same embedding calls and the same BatchWriteItem items, with no chunking. The
 * documents' chunks are split beforehand (no chunking timed); per document, batch by batch of the same size (32 texts),
 * one embeddings POST with a plain `fetch` to the same fake, then BatchWriteItem of the items the product's own
 * BatchWriteItem calls wrote in an untimed first training (captured on its client, put in the round's new knowledge
 * base): that document's chunk items, its vectors from the answer (the product's shape), and an even share of the
 * rest (postings blocks, their `d#` and `b#` items, usage records). None of the product's single-item requests (its
 * collection, counter and version writes, its reads): those are the product's own cost.
 * Raw, minimal items (a figure with no target, kept beside it): the same, but the chunk items of the 7 attributes a
 * chunk needs and, for every other item the product writes (its single-item writes counted in), a small item of 200
 * characters: the cost of the product's item shapes on top of the same work.
 * Every document at once, as the queue runs every collection at once. A separate client, so neither side's connections
 * wait on the other's.
 */

export interface KbTrainingBenchOptions {
  readonly documents: number;
  /** Characters per document (about). */
  readonly length: number;
  /** Rounds of each side; the median round counts. */
  readonly rounds: number;
  readonly log: (line: string) => void;
  /** Local directory for the source store. */
  readonly workDir: string;
}

export const TRAINING_RATIO_TARGET = 0.8;
const MODEL = 'text-embedding-3-small';
const DIMENSIONS = 1536;
const BATCH = 32;
const CHUNK_SIZE = 1000;
const TEAM = 'e'.repeat(24);
const TMB = 'f'.repeat(24);

/** A few unit vectors, each input given one by a hash of its text: the upstream costs the same as a real answer's size. */
function vectorPool(): (input: string) => number[] {
  const next = seededRandom(7);
  const pool = Array.from({ length: 64 }, () => {
    const v = Array.from({ length: DIMENSIONS }, () => next() * 2 - 1);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
  return (input) => {
    let hash = 2166136261;
    for (let i = 0; i < input.length; i += 7) hash = Math.imul(hash ^ input.charCodeAt(i), 16777619);
    return pool[(hash >>> 0) % pool.length] as number[];
  };
}

/** Wraps the index writer and the embedder so the product's time is split by phase (summed over concurrent work). */
function timed(deps: TrainingDeps, spent: Map<string, number>): TrainingDeps {
  const time =
    <A extends unknown[], R>(name: string, f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const t0 = performance.now();
      try {
        return await f(...args);
      } finally {
        spent.set(name, (spent.get(name) ?? 0) + performance.now() - t0);
      }
    };
  const index: ChunkIndexWriter = {
    addFullText: time('full-text postings', deps.index.addFullText.bind(deps.index)),
    putVectors: time('vector writes', deps.index.putVectors.bind(deps.index)),
    removeChunks: time('index removals', deps.index.removeChunks.bind(deps.index)),
    removeDataset: deps.index.removeDataset.bind(deps.index),
  };
  const embedder: Embedder = { embed: time('embeddings (relay)', deps.embedder.embed.bind(deps.embedder)) };
  const c = deps.content;
  const content: TrainingDeps['content'] = {
    updateCollection: time('collection reads/updates', c.updateCollection.bind(c)),
    getCollection: time('collection reads/updates', c.getCollection.bind(c)),
    chunksOf: time('chunk queries', c.chunksOf.bind(c)),
    putChunks: time('chunk writes', c.putChunks.bind(c)),
    deleteKeys: time('chunk deletes', c.deleteKeys.bind(c)),
    addToCounts: c.addToCounts.bind(c),
  };
  const subjects: TrainingDeps['subjects'] = {
    read: time('collection reads/updates', deps.subjects.read.bind(deps.subjects)),
  };
  return { ...deps, index, embedder, content, subjects };
}

export async function benchKbTraining(options: KbTrainingBenchOptions): Promise<Figure[]> {
  const { log } = options;
  const engine = await startDynamoEngine({ port: 0 });
  const dynamo = localDynamoClient(engine);
  const client = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  let writes = 0;
  /** The items of the product's BatchWriteItem calls, by table, while a first training is captured. */
  let captured: Map<string, Record<string, unknown>[]> | undefined;
  client.middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as {
        RequestItems?: Record<string, { PutRequest?: { Item: Record<string, unknown> } }[]>;
      };
      if (context.commandName === 'BatchWriteItemCommand') {
        for (const [table, requests] of Object.entries(input.RequestItems ?? {})) {
          writes += requests.length;
          if (captured === undefined) continue;
          const items = captured.get(table) ?? [];
          for (const request of requests) if (request.PutRequest) items.push({ ...request.PutRequest.Item });
          captured.set(table, items);
        }
      } else if (/^(Put|Update|Delete)ItemCommand$/.test(String(context.commandName))) writes += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countWrites' },
  );
  const rawDynamo = localDynamoClient(engine);
  const rawClient = DynamoDBDocumentClient.from(rawDynamo);
  let rawWrites = 0;
  rawClient.middlewareStack.add(
    (next) => (args) => {
      const input = args.input as { RequestItems?: Record<string, unknown[]> };
      for (const requests of Object.values(input.RequestItems ?? {})) rawWrites += requests.length;
      return next(args);
    },
    { step: 'initialize', name: 'countWrites' },
  );
  const upstream = await startFakeOpenAi({ embed: vectorPool() });
  try {
    const names = Object.fromEntries(
      ['datasets', 'channels', 'relayKeys', 'relayState', 'usage', 'kbContent', 'kbVectors', 'kbTerms'].map((n) => [
        n,
        `bench-train-${n}`,
      ]),
    ) as Record<TableName, string>;
    await ensureTables(dynamo, names);
    const now = new Date().toISOString();
    await client.send(
      new PutCommand({
        TableName: names.channels,
        Item: toChannelItem({
          id: 'c'.repeat(64),
          provider: 'openai',
          legacyType: 1,
          name: 'embeddings',
          baseUrl: upstream.url,
          models: [MODEL],
          key: 'sk-bench-embeddings-0123456789abcdef',
          status: 'enabled',
          source: { legacyId: 1, host: 'bench', database: 'bench' },
          createdAt: now,
          updatedAt: now,
          settings: { groups: ['default'] },
        }),
      }),
    );
    const relay = createDynamoRelay({
      client,
      tables: { channels: names.channels, relayState: names.relayState, usage: names.usage },
      allowedHosts: parseAllowList(['127.0.0.1']),
    });
    const datasets = new DynamoDatasetRepository(client, names.datasets);
    // As the train-collection handler builds it.
    const content = new KbContentRepository(client, names.kbContent, { writeConcurrency: TRAINING_WRITE_CONCURRENCY });
    const files = new LocalSourceFileStore(join(options.workDir, 'kb-sources'));
    await mkdir(join(options.workDir, 'kb-sources'), { recursive: true });
    const spent = new Map<string, number>();
    const deps = timed(
      {
        content,
        subjects: new TrainingSubjects(client, { kbContent: names.kbContent, datasets: names.datasets }),
        files,
        split: splitTextAsFastGpt,
        embedder: relayEmbedder(relay, 'default'),
        index: createChunkIndexWriter(client, { vectors: names.kbVectors, terms: names.kbTerms }, 'exact'),
        newId: () => newObjectId(),
        now: () => new Date(),
        defaults: { vectorModel: MODEL, agentModel: 'gpt-4o-mini' },
      },
      spent,
    );
    const silent = { warn: () => {}, error: () => {} };
    const docs = corpus(options.documents, options.length);
    const pieces = docs.map((d) =>
      splitTextAsFastGpt(d.text, { chunkSize: CHUNK_SIZE, overlapRatio: 0.2 }).filter((p) => p.trim() !== ''),
    );
    const chunkCount = pieces.reduce((n, p) => n + p.length, 0);
    log(`kb-training: ${docs.length} documents, ${chunkCount} chunks of ${CHUNK_SIZE} characters at most`);

    /** The collections of the latest product round, in the documents' order. */
    let collectionIds: string[] = [];
    const product = async (): Promise<number> => {
      const datasetId = newObjectId();
      const time = new Date().toISOString();
      await datasets.put({
        id: datasetId,
        teamId: TEAM,
        tmbId: TMB,
        parentId: null,
        type: 'dataset',
        name: 'bench',
        intro: '',
        avatar: '',
        vectorModel: MODEL,
        agentModel: 'gpt-4o-mini',
        inheritPermission: true,
        createTime: time,
        updateTime: time,
      });
      // The create/text calls first, their messages held; then all of them to the queue at once.
      const held: TrainingMessage[] = [];
      const holding = { send: async (m: TrainingMessage) => void held.push(m) };
      collectionIds = [];
      for (const doc of docs) {
        const { collectionId } = await createTextCollection(
          {
            body: {
              datasetId,
              parentId: null,
              name: doc.name,
              text: doc.text,
              trainingType: 'chunk',
              chunkSize: CHUNK_SIZE,
              chunkSplitter: undefined,
              indexSize: undefined,
              qaPrompt: undefined,
              metadata: undefined,
              tags: undefined,
            },
            caller: { scope: 'dataset', teamId: TEAM, tmbId: TMB, tokenId: 'bench' },
          },
          { datasets, content, files, queue: holding, now: () => new Date() },
        );
        collectionIds.push(collectionId);
      }
      // The bench sends training only: no delete reaches the background delete's parts.
      const batchDeps = { ...deps, deletes: { content, index: deps.index, files }, queue: holding };
      const queue: LocalTrainingQueue = localTrainingQueue(
        ((event) => trainBatch(event, batchDeps, silent)) as SqsHandler,
        {
          maxAttempts: 1,
          onDeadLetter: () => log('kb-training: a training message failed'),
        },
      );
      // Only the training's writes are counted (the create calls' are not the raw side's to match).
      writes = 0;
      const started = performance.now();
      for (const message of held) await queue.send(message);
      await queue.idle();
      const seconds = (performance.now() - started) / 1000;
      const collections = await content.allCollections(TEAM, datasetId);
      const trained = collections.reduce((n, c) => n + (c.dataAmount ?? 0), 0);
      const broken = collections.filter((c) => c.status !== 'ready' || (c.failedChunks ?? 0) > 0);
      if (broken.length > 0 || trained !== chunkCount) {
        throw new Error(`kb-training: ${broken.length} collection(s) not ready; ${trained} of ${chunkCount} chunks`);
      }
      return trained / seconds;
    };

    // An untimed first training: the engine and the relay warmed, the product's item writes counted and its
    // BatchWriteItem items captured for the raw side.
    captured = new Map();
    await product();
    const batchItems = captured;
    captured = undefined;
    const extraWrites = Math.max(0, writes - 2 * chunkCount);
    // Each document's own chunk items, and every item that is neither a chunk nor a vector, with its table.
    const docOf = new Map(collectionIds.map((id, doc) => [id, doc]));
    const chunkItems: Record<string, unknown>[][] = docs.map(() => []);
    const others: { table: string; item: Record<string, unknown> }[] = [];
    for (const [table, items] of batchItems) {
      if (table === names.kbVectors) continue;
      for (const item of items) {
        const doc = table === names.kbContent ? docOf.get(String(item.collectionId)) : undefined;
        if (doc !== undefined) chunkItems[doc]?.push(item);
        else others.push({ table, item });
      }
    }
    for (const items of chunkItems) items.sort((a, b) => Number(a.chunkIndex) - Number(b.chunkIndex));
    const batchWrites = [...batchItems.values()].reduce((n, items) => n + items.length, 0);
    log(
      `kb-training: the product writes ${writes} items for ${chunkCount} chunks, ${batchWrites} of them with ` +
        'BatchWriteItem; the raw side writes those, the minimal side as many as all',
    );
    /** The share of `total` items document `doc` writes, spread evenly. */
    const shareOf = (total: number, doc: number) =>
      Math.floor(total / docs.length) + (doc < total % docs.length ? 1 : 0);
    const startOf = (total: number, doc: number) =>
      doc * Math.floor(total / docs.length) + Math.min(doc, total % docs.length);
    const filler = 'x'.repeat(200);

    const writers = new Map(
      [names.kbContent, names.kbVectors, names.kbTerms, names.usage].map((table) => [
        table,
        new BatchWriter(rawClient, table, { writeConcurrency: 8 }),
      ]),
    );
    const writerOf = (table: string) => writers.get(table) as BatchWriter;
    const contentWriter = writerOf(names.kbContent);
    const vectorWriter = writerOf(names.kbVectors);
    const termsWriter = writerOf(names.kbTerms);
    /** The product's item in the round's knowledge base (its own key otherwise: a usage record's time gets a suffix). */
    const moved = (item: Record<string, unknown>, pk: string, round: string) =>
      'pk' in item ? { ...item, pk } : { ...item, sk: `${String(item.sk)}#${round}` };
    /** The rest's items a batch writes, by table. */
    const byTable = (items: readonly { table: string; item: Record<string, unknown> }[]) => {
      const out = new Map<string, Record<string, unknown>[]>();
      for (const { table, item } of items) out.set(table, [...(out.get(table) ?? []), item]);
      return out;
    };
    const raw = async (mode: 'same' | 'minimal'): Promise<number> => {
      const datasetId = newObjectId();
      const pk = datasetKey(TEAM, datasetId);
      const started = performance.now();
      await Promise.all(
        pieces.map(async (chunks, doc) => {
          const collectionId = newObjectId();
          const batches = Math.ceil(chunks.length / BATCH);
          const extra = mode === 'same' ? shareOf(others.length, doc) : shareOf(extraWrites, doc);
          const first = startOf(others.length, doc);
          const mine = chunkItems[doc] ?? [];
          for (let start = 0; start < chunks.length; start += BATCH) {
            const batch = chunks.slice(start, start + BATCH);
            const response = await fetch(`${upstream.url}/v1/embeddings`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-embeddings' },
              body: JSON.stringify({ model: MODEL, input: batch }),
            });
            const answer = (await response.json()) as { data: { embedding: number[] }[] };
            const ids = batch.map(() => newObjectId());
            // This batch's share of the rest.
            const from = Math.floor(extra / batches) * (start / BATCH) + Math.min(start / BATCH, extra % batches);
            const count = Math.floor(extra / batches) + (start / BATCH < extra % batches ? 1 : 0);
            const rest =
              mode === 'same' ? byTable(others.slice(first + from, first + from + count)) : new Map<string, never[]>();
            await Promise.all([
              contentWriter.writeAll(
                batch.map((q, i) => ({
                  PutRequest: {
                    Item:
                      mode === 'same' && mine[start + i] !== undefined
                        ? moved(mine[start + i] as Record<string, unknown>, pk, datasetId)
                        : {
                            pk,
                            sk: chunkSortKey(collectionId, start + i, ids[i] as string),
                            id: ids[i],
                            collectionId,
                            chunkIndex: start + i,
                            q,
                            a: '',
                          },
                  },
                })),
              ),
              ...[...rest].map(([table, items]) =>
                writerOf(table).writeAll(items.map((item) => ({ PutRequest: { Item: moved(item, pk, datasetId) } }))),
              ),
              vectorWriter.writeAll(
                answer.data.map((d, i) => ({
                  PutRequest: {
                    Item: {
                      pk,
                      sk: vectorSortKey(ids[i] as string, 0),
                      dataId: ids[i],
                      collectionId,
                      vb: vectorBytes(d.embedding),
                    },
                  },
                })),
              ),
              termsWriter.writeAll(
                Array.from({ length: mode === 'minimal' ? count : 0 }, (_, i) => ({
                  PutRequest: { Item: { pk, sk: `${collectionId}#${start}#${i}`, p: filler } },
                })),
              ),
            ]);
          }
        }),
      );
      return chunkCount / ((performance.now() - started) / 1000);
    };

    const productRates: number[] = [];
    const rawRates = { same: [] as number[], minimal: [] as number[] };
    const sides = ['product', 'same', 'minimal'] as const;
    for (let round = 0; round < options.rounds; round++) {
      // Rotating which side goes first, so none always meets a fuller table or a warmer engine.
      const order = sides.map((_, i) => sides[(i + round) % sides.length] as (typeof sides)[number]);
      for (const side of order) {
        if (side === 'product') {
          spent.clear();
          const rate = await product();
          productRates.push(rate);
          const phases = [...spent].sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${Math.round(ms / 1000)} s`);
          log(
            `kb-training round ${round + 1}: product ${rate.toFixed(1)} chunks/s (time summed: ${phases.join(', ')})`,
          );
        } else {
          rawWrites = 0;
          const rate = await raw(side);
          rawRates[side].push(rate);
          log(
            `kb-training round ${round + 1}: raw${side === 'minimal' ? ', minimal items,' : ''} ${rate.toFixed(1)} chunks/s (${rawWrites} items)`,
          );
        }
      }
    }
    const p = median(productRates);
    const name = `kb training ${docs.length} documents (${chunkCount} chunks): throughput`;
    return [
      figure(name, p, 'chunks/s', median(rawRates.same), { of: 'ratio', min: TRAINING_RATIO_TARGET }),
      // No target: what the product's item shapes cost beside the target's baseline (docs/performance.md).
      figure(`${name} against minimal items`, p, 'chunks/s', median(rawRates.minimal)),
    ];
  } finally {
    await upstream.close();
    dynamo.destroy();
    rawDynamo.destroy();
    await engine.close();
  }
}
