import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BatchWriter, Slots, type WriteRequest } from '#shared/repositories/batch';
import { datasetKey, type FullTextDoc } from '../contract.ts';
import { batchGetAll, deletePartition, queryAll } from './dynamo-batch.ts';
import { segment, termFrequencies } from './segment.ts';
import type { FullTextSearch, ScoredRef } from './types.ts';

/*
 * The full-text index on DynamoDB (docs/knowledge-base-search.md, "Full text"): table `kbTerms`, one partition per
 * knowledge base (`pk = datasetKey`), sort keys:
 * - `n`: the counters BM25 needs of the whole knowledge base: `docs` (N) and `total` (sum of chunk lengths);
 * - `s#<term>`: `df`, the number of chunks holding the term;
 * - `t#<term>#<batch>`: a postings block, one per term per write batch: `p`, lines of
 *   `dataId collectionId chunkIndex tf length` (chunkIndex -1 when unknown);
 * - `d#<dataId>`: the chunk's `terms`, `length` and `batch`, so removing it corrects the counters;
 * - `b#<batch>`: the batch's `terms` and `live` chunk count: when none is left, its blocks are deleted.
 * A query reads the counters of its terms with one BatchGetItem, then the blocks of each term with one Query. Removed
 * chunks' postings stay in a block until the whole batch is removed; the reader never shows such a chunk (ChunkReader).
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

const STATS_SK = 'n';
const termSk = (term: string) => `s#${term}`;
const blockPrefix = (term: string) => `t#${term}#`;
const docSk = (dataId: string) => `d#${dataId}`;
const batchSk = (batch: string) => `b#${batch}`;

/** A time-ordered id, so a chunk written twice is counted from its newest batch. */
function newBatchId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}${randomBytes(4).toString('hex')}`;
}

function assertId(id: string, field: string): void {
  if (!/^[^\s#]+$/u.test(id)) throw new Error(`${field} must not be empty or hold whitespace or '#'`);
}

interface Posting {
  dataId: string;
  collectionId: string;
  chunkIndex: number;
  tf: number;
  length: number;
}

function encodePostings(postings: readonly Posting[]): string {
  return postings.map((p) => `${p.dataId} ${p.collectionId} ${p.chunkIndex} ${p.tf} ${p.length}`).join('\n');
}

/** Calls `visit` for each posting of a block; reads the text in place (a block holds up to a batch's chunks). */
function decodePostings(text: string, visit: (posting: Posting) => void): void {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const a = text.indexOf(' ', start);
    const b = text.indexOf(' ', a + 1);
    const c = text.indexOf(' ', b + 1);
    const d = text.indexOf(' ', c + 1);
    if (a > start && d > c && d < end) {
      visit({
        dataId: text.slice(start, a),
        collectionId: text.slice(a + 1, b),
        chunkIndex: Number(text.slice(b + 1, c)),
        tf: Number(text.slice(c + 1, d)),
        length: Number(text.slice(d + 1, end)),
      });
    }
    start = end + 1;
  }
}

export interface FullTextIndexOptions {
  /** UpdateItem calls in flight at once for the counters (default 16). */
  readonly updateConcurrency?: number;
}

/** Writes and reads the full-text index of `kbTerms`. */
export class DynamoFullTextIndex implements FullTextSearch {
  private readonly writer: BatchWriter;
  private readonly updateConcurrency: number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: FullTextIndexOptions = {},
  ) {
    this.writer = new BatchWriter(client, tableName, { writeConcurrency: 8 });
    this.updateConcurrency = options.updateConcurrency ?? 16;
  }

  /** Indexes chunks as one batch; a chunk indexed before is removed first (its counters corrected). */
  async add(teamId: string, datasetId: string, docs: readonly FullTextDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    const unique = [...new Map(docs.map((d) => [d.dataId, d])).values()];
    for (const doc of unique) {
      assertId(doc.dataId, 'dataId');
      assertId(doc.collectionId, 'collectionId');
    }
    await this.remove(
      teamId,
      datasetId,
      unique.map((d) => d.dataId),
    );
    const batch = newBatchId();
    const blocks = new Map<string, Posting[]>();
    const requests: WriteRequest[] = [];
    let totalLength = 0;
    for (const doc of unique) {
      const { tf, length } = termFrequencies(doc.texts);
      totalLength += length;
      for (const [term, count] of tf) {
        const block = blocks.get(term) ?? [];
        blocks.set(term, block);
        block.push({
          dataId: doc.dataId,
          collectionId: doc.collectionId,
          chunkIndex: doc.chunkIndex ?? -1,
          tf: count,
          length,
        });
      }
      requests.push({ PutRequest: { Item: { pk, sk: docSk(doc.dataId), terms: [...tf.keys()], length, batch } } });
    }
    for (const [term, postings] of blocks) {
      requests.push({ PutRequest: { Item: { pk, sk: `${blockPrefix(term)}${batch}`, p: encodePostings(postings) } } });
    }
    requests.push({ PutRequest: { Item: { pk, sk: batchSk(batch), terms: [...blocks.keys()], live: unique.length } } });
    await this.writer.writeAll(requests);
    // Counters last: a reader that sees a block before its df counts it with a slightly high idf, never fails.
    await this.addCounters(
      pk,
      new Map([...blocks].map(([term, postings]) => [term, postings.length])),
      unique.length,
      totalLength,
    );
  }

  /** Removes chunks from the counters, and the blocks of batches left with no chunk. */
  async remove(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<void> {
    if (dataIds.length === 0) return;
    const pk = datasetKey(teamId, datasetId);
    const docs = await batchGetAll(
      this.client,
      this.tableName,
      [...new Set(dataIds)].map((id) => ({ pk, sk: docSk(id) })),
    );
    if (docs.length === 0) return;
    const df = new Map<string, number>();
    const perBatch = new Map<string, number>();
    let length = 0;
    for (const doc of docs) {
      for (const term of doc.terms as string[]) df.set(term, (df.get(term) ?? 0) - 1);
      length -= Number(doc.length);
      perBatch.set(String(doc.batch), (perBatch.get(String(doc.batch)) ?? 0) + 1);
    }
    await this.writer.writeAll(docs.map((d) => ({ DeleteRequest: { Key: { pk, sk: d.sk } } })));
    await this.addCounters(pk, df, -docs.length, length);
    for (const [batch, count] of perBatch) {
      const out = await this.client
        .send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk, sk: batchSk(batch) },
            UpdateExpression: 'ADD #live :minus',
            ExpressionAttributeNames: { '#live': 'live' },
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minus': -count },
            ReturnValues: 'ALL_NEW',
          }),
        )
        .catch((error: unknown) => {
          // The batch item is gone already (its last chunks removed by a call that overlapped this one).
          if (error instanceof ConditionalCheckFailedException) return undefined;
          throw error;
        });
      const item = out?.Attributes;
      if (item && Number(item.live) <= 0) {
        const terms = item.terms as string[];
        await this.writer.writeAll([
          ...terms.map((term) => ({ DeleteRequest: { Key: { pk, sk: `${blockPrefix(term)}${batch}` } } })),
          { DeleteRequest: { Key: { pk, sk: batchSk(batch) } } },
        ]);
      }
    }
  }

  /** Deletes every item of a knowledge base's partition. */
  async removeDataset(teamId: string, datasetId: string): Promise<void> {
    await deletePartition(this.client, this.writer, this.tableName, datasetKey(teamId, datasetId));
  }

  private async addCounters(pk: string, df: Map<string, number>, docs: number, length: number): Promise<void> {
    const slots = new Slots(this.updateConcurrency);
    // Names always go through placeholders: DynamoDB reserves hundreds of words (`total` among them).
    const update = (sk: string, expression: string, values: Record<string, number>, names: Record<string, string>) =>
      slots.run(
        () =>
          this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { pk, sk },
              UpdateExpression: expression,
              ExpressionAttributeValues: values,
              ExpressionAttributeNames: names,
            }),
          ),
        undefined,
      );
    await Promise.all([
      update(STATS_SK, 'ADD #docs :d, #total :l', { ':d': docs, ':l': length }, { '#docs': 'docs', '#total': 'total' }),
      ...[...df].map(([term, n]) => update(termSk(term), 'ADD #df :n', { ':n': n }, { '#df': 'df' })),
    ]);
  }

  /** BM25 over the query's terms; chunks whose postings were removed may still be among them (the reader filters). */
  async search(teamId: string, datasetId: string, query: string, limit: number): Promise<ScoredRef[]> {
    const terms = [...new Set(segment(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || limit <= 0) return [];
    const pk = datasetKey(teamId, datasetId);
    const counters = await batchGetAll(this.client, this.tableName, [
      { pk, sk: STATS_SK },
      ...terms.map((t) => ({ pk, sk: termSk(t) })),
    ]);
    const stats = counters.find((c) => c.sk === STATS_SK);
    const n = Number(stats?.docs ?? 0);
    if (n <= 0) return [];
    const avgLength = Math.max(1, Number(stats?.total ?? 0) / n);
    const dfOf = new Map(counters.filter((c) => c.sk !== STATS_SK).map((c) => [String(c.sk).slice(2), Number(c.df)]));
    const chosen: { term: string; idf: number }[] = [];
    let budget = POSTINGS_BUDGET;
    for (const term of terms.filter((t) => (dfOf.get(t) ?? 0) > 0).sort((a, b) => dfOf.get(a)! - dfOf.get(b)!)) {
      const df = Math.min(dfOf.get(term)!, n);
      if (chosen.length > 0 && df > budget) continue;
      budget -= df;
      // Lucene's idf: never negative, so a term in most chunks still counts a little.
      chosen.push({ term, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) });
    }
    const blocks = await Promise.all(
      chosen.map(({ term }) =>
        queryAll(this.client, {
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': blockPrefix(term) },
        }),
      ),
    );
    const hits = new Map<string, { ref: Posting; batch: string; score: number }>();
    chosen.forEach(({ term, idf }, i) => {
      const prefixLength = blockPrefix(term).length;
      for (const block of blocks[i] ?? []) {
        const batch = String(block.sk).slice(prefixLength);
        decodePostings(String(block.p ?? ''), (posting) => {
          const norm = posting.tf + BM25_K1 * (1 - BM25_B + (BM25_B * posting.length) / avgLength);
          const score = (idf * posting.tf * (BM25_K1 + 1)) / norm;
          const hit = hits.get(posting.dataId);
          // A chunk indexed again counts from its newest batch only.
          if (!hit || batch > hit.batch) hits.set(posting.dataId, { ref: posting, batch, score });
          else if (batch === hit.batch) hit.score += score;
        });
      }
    });
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
