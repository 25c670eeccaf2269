import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { BatchWriter, Slots } from '#shared/repositories/batch';
import { type AddFullTextOptions, datasetKey, type FullTextDoc } from '../contract.ts';
import { batchGetAll, deletePartition, queryAll } from './dynamo-batch.ts';
import { indexBatches } from './index-batches.ts';
import {
  assertId,
  batchSk,
  blockPrefix,
  decodePostings,
  docSk,
  legacyDfCounters,
  type Posting,
  postingsIn,
  STATS_SK,
  termsOf,
} from './postings.ts';
import { segment } from './segment.ts';
import {
  CounterCommits,
  readSketch,
  SKETCH_ATTRIBUTE,
  SKETCHED_DOCS,
  sketchCells,
  sketchDeltas,
  sketchEstimate,
  writeCounters,
} from './term-sketch.ts';
import type { FullTextSearch, ScoredRef } from './types.ts';

/*
 * The full-text index on DynamoDB (docs/knowledge-base-search.md, "Full text"): table `kbTerms`, one partition per
 * knowledge base (`pk = datasetKey`), sort keys:
 * - `n`: what BM25 needs of the whole knowledge base: `docs` (N), `total` (sum of chunk lengths), and the df sketch's
 *   counters (shared/kb/search/term-sketch.ts), an upper bound of each term's df;
 * - `t#<term>#<batch>`: a postings block, one per term per write batch: `p`, lines of
 *   `dataId collectionId chunkIndex tf length` (chunkIndex -1 when unknown); its line count is its postings count (a
 *   block written before 2026-11-28 also carries it as `c`: one attribute more per item costs every write);
 * - `d#<dataId>`: the chunk's `terms` (one string, a line per term), `length` and `batch`, so removing it finds its
 *   postings and counters;
 * - `b#<batch>`: the batch's `terms` (likewise) and `ids` (the string set of its chunks still indexed): when none is
 *   left, its blocks are deleted whole.
 * Training writes a batch with BatchWriteItem only, plus the `n` item's ADD (a few UpdateItems, however many terms).
 * No counter is kept per term: a term's df is the count of its postings, which removal keeps exact (a removed chunk's
 * lines are cut out of its blocks). A query reads `n` (its terms' sketch counters, one GetItem), then the blocks of the
 * terms its budget allows with one Query each, rarest estimate first, and counts each term's df from what it read.
 */

/** BM25's parameters (Lucene's and Elasticsearch's defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Terms of a query that count: a longer query is cut (its first terms). */
export const MAX_QUERY_TERMS = 32;
/**
 * Postings one query reads at most. Terms are read rarest first; a term that would cross the budget is skipped (a
 * term in most chunks adds almost nothing to BM25 yet costs the most to read). The rarest term is always read.
 */
export const POSTINGS_BUDGET = 50_000;

export interface FullTextIndexOptions {
  /** Single-item writes in flight at once when a removal cuts lines out of blocks (default 16). */
  readonly updateConcurrency?: number;
  /** Postings one query reads at most (default POSTINGS_BUDGET). */
  readonly postingsBudget?: number;
}

/** Writes and reads the full-text index of `kbTerms`. */
export class DynamoFullTextIndex implements FullTextSearch {
  private readonly writer: BatchWriter;
  private readonly updateConcurrency: number;
  private readonly postingsBudget: number;
  private readonly counters: CounterCommits;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: FullTextIndexOptions = {},
  ) {
    this.writer = new BatchWriter(client, tableName, { writeConcurrency: 8 });
    this.updateConcurrency = options.updateConcurrency ?? 16;
    this.postingsBudget = options.postingsBudget ?? POSTINGS_BUDGET;
    this.counters = new CounterCommits((pk, changes) =>
      writeCounters(client, tableName, { pk, sk: STATS_SK }, changes),
    );
  }

  /**
   * Indexes chunks in batches (one unless they are many: shared/kb/search/index-batches.ts); a chunk indexed before
   * is removed first (unless `fresh`: a chunk that may have been
   * indexed before must not be added as fresh). The postings are computed at once, the writes wait for `after`.
   */
  async add(
    teamId: string,
    datasetId: string,
    docs: readonly FullTextDoc[],
    options: AddFullTextOptions = {},
  ): Promise<void> {
    if (docs.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    const unique = [...new Map(docs.map((d) => [d.dataId, d])).values()];
    for (const doc of unique) {
      assertId(doc.dataId, 'dataId');
      assertId(doc.collectionId, 'collectionId');
    }
    const { requests, termCounts, totalLength } = indexBatches(pk, unique);
    await options.after;
    if (options.fresh !== true) {
      await this.remove(
        teamId,
        datasetId,
        unique.map((d) => d.dataId),
      );
    }
    // Counters first: the sketch is then never below a term's df, even while the blocks are written or when writing
    // them fails (a sketch left high only makes a search read that term a little later).
    await this.counters.add(pk, {
      docs: unique.length,
      total: totalLength,
      sketched: unique.length,
      deltas: sketchDeltas(termCounts, 1),
    });
    await this.writer.writeAll(requests);
  }

  /** Removes chunks: their lines cut out of their blocks (or their batch's blocks deleted whole), then the counters. */
  async remove(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<void> {
    if (dataIds.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    const docs = await batchGetAll(
      this.client,
      this.tableName,
      [...new Set(dataIds)].map((id) => ({ pk, sk: docSk(id) })),
    );
    if (docs.length === 0) return;
    const perBatch = new Map<string, Record<string, unknown>[]>();
    const df = new Map<string, number>();
    let length = 0;
    let sketched = 0;
    for (const doc of docs) {
      if (doc.sketch === true) {
        sketched += 1;
        for (const term of termsOf(doc)) df.set(term, (df.get(term) ?? 0) + 1);
      }
      length += Number(doc.length);
      const batch = String(doc.batch);
      perBatch.set(batch, [...(perBatch.get(batch) ?? []), doc]);
    }
    // Each step can be repeated (a retried message finds the same `d#` items): the set DELETE and the line cuts are
    // idempotent. The `d#` items go before the counters, so a failure between the two leaves the counters high (the
    // sketch stays an upper bound), never subtracted twice.
    const batches = new Slots(4);
    await Promise.all(
      [...perBatch].map(([batch, inBatch]) => batches.run(() => this.removeFromBatch(pk, batch, inBatch), undefined)),
    );
    await this.writer.writeAll(docs.map((d) => ({ DeleteRequest: { Key: { pk, sk: d.sk } } })));
    await this.counters.add(pk, {
      docs: -docs.length,
      total: -length,
      sketched: -sketched,
      deltas: sketchDeltas(df, -1),
    });
  }

  /** Deletes every item of a knowledge base's partition. */
  async removeDataset(teamId: string, datasetId: string): Promise<void> {
    await deletePartition(this.client, this.writer, this.tableName, datasetKey(teamId, datasetId));
  }

  private async removeFromBatch(pk: string, batch: string, docs: readonly Record<string, unknown>[]): Promise<void> {
    const removed = new Set(docs.map((d) => String(d.sk).slice(docSk('').length)));
    const out = await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk, sk: batchSk(batch) },
          UpdateExpression: 'DELETE #ids :ids',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#ids': 'ids' },
          ExpressionAttributeValues: { ':ids': removed },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((error: unknown) => {
        // The batch item is gone already, with its blocks (its last chunks removed by an overlapping call).
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      });
    const item = out?.Attributes;
    if (item === undefined) return;
    const left = item.ids as Set<string> | undefined;
    // A batch written before the sketch counts `live` chunks instead of naming them: its blocks are only ever cut.
    const legacy = item.live !== undefined;
    if (!legacy && (left === undefined || left.size === 0)) {
      // No chunk of the batch is left: its blocks go whole, unread.
      await this.writer.writeAll([
        ...termsOf(item).map((term) => ({
          DeleteRequest: { Key: { pk, sk: `${blockPrefix(term)}${batch}` } },
        })),
        { DeleteRequest: { Key: { pk, sk: batchSk(batch) } } },
      ]);
      return;
    }
    const terms = [...new Set(docs.flatMap(termsOf))];
    const blocks = await batchGetAll(
      this.client,
      this.tableName,
      terms.map((term) => ({ pk, sk: `${blockPrefix(term)}${batch}` })),
      { consistent: true },
    );
    const slots = new Slots(this.updateConcurrency);
    await Promise.all(
      blocks.map((block) =>
        slots.run(() => this.cutLines(pk, String(block.sk), String(block.p ?? ''), removed), undefined),
      ),
    );
  }

  /**
   * Writes a block back without the removed chunks' lines (deletes it when none is left), on the condition that it
   * is still what was read: removals overlapping in one batch each re-read and cut again instead of undoing another.
   */
  private async cutLines(pk: string, sk: string, text: string, removed: ReadonlySet<string>): Promise<void> {
    let current = text;
    for (let attempt = 1; ; attempt++) {
      const lines = current.split('\n');
      const kept = lines.filter((line) => !removed.has(line.slice(0, line.indexOf(' '))));
      if (kept.length === lines.length) return;
      const condition = {
        ConditionExpression: '#p = :old',
        ExpressionAttributeNames: { '#p': 'p' },
        ExpressionAttributeValues: { ':old': current },
      };
      try {
        if (kept.length === 0) {
          await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { pk, sk }, ...condition }));
        } else {
          await this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { pk, sk, p: kept.join('\n') },
              ...condition,
            }),
          );
        }
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || attempt >= 8) throw error;
        const fresh = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: { pk, sk }, ConsistentRead: true }),
        );
        if (fresh.Item === undefined) return;
        current = String(fresh.Item.p ?? '');
      }
    }
  }

  /** BM25 over the query's terms; may include unreadable chunks (not ready, old generation), which the reader drops. */
  async search(teamId: string, datasetId: string, query: string, limit: number): Promise<ScoredRef[]> {
    const terms = [...new Set(segment(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || limit <= 0) return [];
    const pk = datasetKey(teamId, datasetId);
    const cells = [...new Set(terms.flatMap(sketchCells))];
    // The sketch's bytes, and the terms' counter attributes of an `n` item written before them.
    const { Item: stats } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk, sk: STATS_SK },
        ProjectionExpression: ['#docs', '#total', SKETCHED_DOCS, SKETCH_ATTRIBUTE, ...cells].join(', '),
        ExpressionAttributeNames: { '#docs': 'docs', '#total': 'total' },
      }),
    );
    const sketch = readSketch(stats, cells);
    const n = Number(stats?.docs ?? 0);
    if (n <= 0) return [];
    const avgLength = Math.max(1, Number(stats?.total ?? 0) / n);
    // The sketch counts what was indexed since it exists. While the index still holds chunks written before it (more
    // `docs` than the sketch counts), their terms are counted by the old `df` items (never lowered since): the sum
    // stays an upper bound either way, and an index without such chunks reads nothing more.
    const legacy =
      n > Number(stats?.[SKETCHED_DOCS] ?? 0)
        ? await legacyDfCounters(this.client, this.tableName, pk, terms)
        : new Map();
    const estimate = new Map(terms.map((t) => [t, sketchEstimate(sketch, t) + (legacy.get(t) ?? 0)]));
    // Rarest estimate first. The estimate is never below the true df, so a wave that fits the budget by estimates
    // reads at most the budget; what it really read frees the rest for the next wave (an estimate raised by a frequent
    // term sharing its counters costs a wave, not the term). A term that fits no more is skipped; the first is read.
    let pending = terms.filter((t) => estimate.get(t)! > 0).sort((a, b) => estimate.get(a)! - estimate.get(b)!);
    let budget = this.postingsBudget;
    const read: { term: string; blocks: Record<string, unknown>[] }[] = [];
    while (pending.length > 0) {
      const wave: string[] = [];
      let planned = 0;
      for (const term of pending) {
        const next = estimate.get(term)!;
        if (read.length + wave.length > 0 && planned + next > budget) continue;
        planned += next;
        wave.push(term);
      }
      if (wave.length === 0) break;
      pending = pending.filter((t) => !wave.includes(t));
      const blocks = await Promise.all(
        wave.map((term) =>
          queryAll(this.client, {
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': pk, ':prefix': blockPrefix(term) },
          }),
        ),
      );
      wave.forEach((term, i) => {
        const termBlocks = blocks[i] ?? [];
        read.push({ term, blocks: termBlocks });
        budget -= postingsIn(termBlocks);
      });
    }
    const hits = new Map<string, { ref: Posting; batch: string; score: number }>();
    for (const { term, blocks } of read) {
      // The exact df: removal cuts a removed chunk's lines out of its blocks.
      const df = Math.min(postingsIn(blocks), n);
      if (df === 0) continue;
      // Lucene's idf: never negative, so a term in most chunks still counts a little.
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const prefixLength = blockPrefix(term).length;
      for (const block of blocks) {
        const batch = String(block.sk).slice(prefixLength);
        decodePostings(String(block.p ?? ''), (posting) => {
          const norm = posting.tf + BM25_K1 * (1 - BM25_B + (BM25_B * posting.length) / avgLength);
          const score = (idf * posting.tf * (BM25_K1 + 1)) / norm;
          const hit = hits.get(posting.dataId);
          // A chunk indexed again counts from its newest batch only (left behind only by a failed removal).
          if (!hit || batch > hit.batch) hits.set(posting.dataId, { ref: posting, batch, score });
          else if (batch === hit.batch) hit.score += score;
        });
      }
    }
    return [...hits.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ ref, score }) => ({
        dataId: ref.dataId,
        collectionId: ref.collectionId,
        ...(ref.chunkIndex >= 0 ? { chunkIndex: ref.chunkIndex } : {}),
        score,
      }));
  }
}
