import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { searchTest } from '#functions/search-test/search-test';
import { ensureTables, startDynamoEngine } from '#infra/local/dynamo-engine';
import { DynamoChunkReader } from '#shared/kb/chunk-reader';
import { datasetKey } from '#shared/kb/contract';
import { DynamoFullTextIndex } from '#shared/kb/search/full-text-index';
import type { SearchMode } from '#shared/kb/search/search-dataset';
import { VECTOR_VERSION_SK, vectorSortKey } from '#shared/kb/search/vector-layout';
import { ExactVectorSearch } from '#shared/kb/search/vector-search-exact';
import { vectorBytes } from '#shared/kb/search/vector-store';
import { DynamoDatasetRepository } from '#shared/repositories/datasets';
import type { TableName } from '#shared/tables';
import { chunkItem, collectionItem, putItems } from '#test/support/kb-search-items';
import { seededRandom } from '#test/support/seeded-random';
import { type Figure, figure } from './figures.ts';

/*
 * `npm run bench -- --only search` (docs/performance.md, "Knowledge-base search"): searchTest's core against dynalite
 * at 10,000 and 100,000 chunks per knowledge base, in each mode, the embedding call excluded (a fake embedder that
 * answers at once). The chunks are written once per run, concurrently with BatchWriteItem; the full-text index through
 * its real writer, 5,000 chunks per batch.
 */

export interface SearchBenchOptions {
  readonly sizes: readonly number[];
  /** Timed searches per mode and size. */
  readonly searches: number;
  readonly log: (line: string) => void;
}

const DIMENSIONS = 256;
const MODES: readonly SearchMode[] = ['fullTextRecall', 'embedding', 'mixedRecall'];

// A vocabulary of English and Chinese words with Zipf-like frequencies: a few words in most chunks, most in few.
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'su', 'ra', 'to', 'vi', 'de', 'po', 'ge', 'zu'];
const HAN = '数据检索向量知识模型训练文本段落搜索系统服务接口配置网络安全存储计算分析用户权限日志缓存';
function vocabulary(size: number, next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    if (next() < 0.7) {
      // 2 to 4 syllables: 20,000 and more words to draw from, so the set fills.
      const n = 2 + Math.floor(next() * 3);
      words.add(Array.from({ length: n }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
    } else {
      words.add(HAN[Math.floor(next() * (HAN.length - 1))]! + HAN[Math.floor(next() * (HAN.length - 1))]!);
    }
  }
  return [...words];
}
const zipfPick = (words: readonly string[], next: () => number) =>
  words[Math.min(words.length - 1, Math.floor(words.length ** next() - 1))]!;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

export async function benchSearch(options: SearchBenchOptions): Promise<Figure[]> {
  const engine = await startDynamoEngine({ port: 0 });
  const dynamo = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'us-east-1',
    credentials: engine.credentials,
  });
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const names = Object.fromEntries(
    ['datasets', 'channels', 'relayKeys', 'relayState', 'usage', 'kbContent', 'kbVectors', 'kbTerms'].map((n) => [
      n,
      `bench-search-${n}`,
    ]),
  ) as Record<TableName, string>;
  const figures: Figure[] = [];
  try {
    await ensureTables(dynamo, names);
    // Seeded, so every run searches the same knowledge base.
    const next = seededRandom(20261127);
    const words = vocabulary(5_000, next);
    const teamId = 'a'.repeat(24);
    for (const size of options.sizes) {
      const datasetId = `${size.toString(16).padStart(24, '0')}`;
      await documents.send(
        new PutCommand({
          TableName: names.datasets,
          Item: { teamId, id: datasetId, type: 'dataset', name: 'bench', vectorModel: 'bench-embedder' },
        }),
      );
      const started = performance.now();
      await load(documents, names, teamId, datasetId, size, words, next, options.log);
      options.log(`search: ${size} chunks written in ${Math.round((performance.now() - started) / 1000)} s`);

      const embedder = {
        async embed(_model: string, texts: readonly string[]) {
          return texts.map(() => Array.from({ length: DIMENSIONS }, () => next() * 2 - 1));
        },
      };
      const vectors = new ExactVectorSearch(documents, names.kbVectors);
      const deps = {
        datasets: new DynamoDatasetRepository(documents, names.datasets),
        defaultVectorModel: 'bench-embedder',
        reader: new DynamoChunkReader(documents, names.kbContent),
        fullText: new DynamoFullTextIndex(documents, names.kbTerms),
        vectors,
        embedder,
      };
      const caller = { scope: 'dataset' as const, teamId, tmbId: 'b'.repeat(24), tokenId: 'bench' };
      const question = () => Array.from({ length: 4 }, () => zipfPick(words, next)).join(' ');
      const run = (searchMode: SearchMode) =>
        searchTest(
          {
            body: {
              datasetId,
              text: question(),
              limit: 5_000,
              similarity: 0,
              searchMode,
              embeddingWeight: 0.5,
              usingReRank: false,
              rerankModel: undefined,
              rerankWeight: 0.5,
              datasetSearchUsingExtensionQuery: false,
              datasetSearchExtensionModel: undefined,
              datasetSearchExtensionBg: '',
            },
            caller,
          },
          deps,
        );
      // The exact search's first call loads the knowledge base's vectors: measured on its own.
      const coldStart = performance.now();
      await run('embedding');
      figures.push(
        figure(`search ${size} chunks: first embedding search (vectors loaded)`, performance.now() - coldStart, 'ms'),
      );
      for (const mode of MODES) {
        for (let i = 0; i < 5; i++) await run(mode);
        const times: number[] = [];
        let found = 0;
        for (let i = 0; i < options.searches; i++) {
          const t0 = performance.now();
          const result = await run(mode);
          times.push(performance.now() - t0);
          found += result.list.length;
        }
        times.sort((a, b) => a - b);
        const [p50, p99] = [percentile(times, 50), percentile(times, 99)];
        options.log(
          `search ${size} ${mode}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${(found / options.searches).toFixed(1)} items per answer`,
        );
        figures.push(figure(`search ${size} chunks ${mode}: p50`, p50, 'ms'));
        figures.push(figure(`search ${size} chunks ${mode}: p99`, p99, 'ms'));
      }
    }
  } finally {
    dynamo.destroy();
    await engine.close();
  }
  return figures;
}

/** One knowledge base of `size` chunks of about 40 words, their vectors and their full-text index. */
async function load(
  documents: DynamoDBDocumentClient,
  names: Record<TableName, string>,
  teamId: string,
  datasetId: string,
  size: number,
  words: readonly string[],
  next: () => number,
  log: (line: string) => void,
): Promise<void> {
  const collection = collectionItem(teamId, datasetId, { name: 'bench.txt' });
  await putItems(documents, names.kbContent, [collection]);
  const index = new DynamoFullTextIndex(documents, names.kbTerms);
  const pk = datasetKey(teamId, datasetId);
  const BATCH = 5_000;
  for (let start = 0; start < size; start += BATCH) {
    const chunks = Array.from({ length: Math.min(BATCH, size - start) }, (_, i) => {
      const text = Array.from({ length: 40 }, () => zipfPick(words, next)).join(' ');
      return chunkItem(collection, start + i, text, { id: (start + i + 1).toString(16).padStart(24, '0') });
    });
    const vectorItems = chunks.map((c) => ({
      pk,
      sk: vectorSortKey(c.id, 0),
      dataId: c.id,
      collectionId: c.collectionId,
      chunkIndex: c.chunkIndex,
      vb: vectorBytes(Array.from({ length: DIMENSIONS }, () => next() * 2 - 1)),
    }));
    await Promise.all([
      putItems(documents, names.kbContent, chunks, 8),
      putItems(documents, names.kbVectors, vectorItems, 8),
      index.add(
        teamId,
        datasetId,
        chunks.map((c) => ({ dataId: c.id, collectionId: c.collectionId, chunkIndex: c.chunkIndex, texts: [c.q] })),
      ),
    ]);
    log(`search: ${start + chunks.length} of ${size} chunks written`);
  }
  await putItems(documents, names.kbVectors, [{ pk, sk: VECTOR_VERSION_SK, w: 1 }]);
}
