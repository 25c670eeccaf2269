import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './dynamo-batch.ts';

/*
 * The full-text index's stored layout (shared/kb/search/full-text-index.ts describes the items): sort keys, batch ids
 * and the postings' text form, kept apart from the index's reads and writes.
 */

export const STATS_SK = 'n';
/** The per-term df items of the layout before the sketch (read only, never written). */
export const LEGACY_TERM_PREFIX = 's#';
export const blockPrefix = (term: string) => `t#${term}#`;
export const docSk = (dataId: string) => `d#${dataId}`;
export const batchSk = (batch: string) => `b#${batch}`;

/** A time-ordered id, so a chunk written twice is counted from its newest batch. */
export function newBatchId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}${randomBytes(4).toString('hex')}`;
}

export function assertId(id: string, field: string): void {
  if (!/^[^\s#]+$/u.test(id)) throw new Error(`${field} must not be empty or hold whitespace or '#'`);
}

export interface Posting {
  dataId: string;
  collectionId: string;
  chunkIndex: number;
  tf: number;
  length: number;
}

export function encodePostings(postings: readonly Posting[]): string {
  return postings.map((p) => `${p.dataId} ${p.collectionId} ${p.chunkIndex} ${p.tf} ${p.length}`).join('\n');
}

/** Calls `visit` for each posting of a block; reads the text in place (a block holds up to a batch's chunks). */
export function decodePostings(text: string, visit: (posting: Posting) => void): void {
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

/**
 * The terms of a `d#` or `b#` item: one string, a line per term (a term holds no line break: segments are words), which
 * costs the SDK and the engine far less than a list of hundreds of strings; an item written before then holds a list.
 */
export function termsOf(item: Record<string, unknown>): string[] {
  const terms = item.terms;
  if (Array.isArray(terms)) return terms.map(String);
  return typeof terms === 'string' && terms !== '' ? terms.split('\n') : [];
}

/** The postings of a term's blocks: their lines (a block written before 2026-11-28 also carries the count as `c`). */
export function postingsIn(blocks: readonly Record<string, unknown>[]): number {
  let sum = 0;
  for (const block of blocks) {
    if (typeof block.c === 'number') {
      sum += block.c;
      continue;
    }
    const p = String(block.p ?? '');
    if (p === '') continue;
    sum += 1;
    for (let at = p.indexOf('\n'); at !== -1; at = p.indexOf('\n', at + 1)) sum += 1;
  }
  return sum;
}

/** The per-term `df` items (`s#<term>`) of an index written before the sketch (2026-11-28): one BatchGetItem. */
export async function legacyDfCounters(
  client: DynamoDBDocumentClient,
  tableName: string,
  pk: string,
  terms: readonly string[],
): Promise<Map<string, number>> {
  const keys = terms.map((term) => ({ pk, sk: `${LEGACY_TERM_PREFIX}${term}` }));
  const items = await batchGetAll(client, tableName, keys, { projection: 'sk, df' });
  return new Map(items.map((i) => [String(i.sk).slice(LEGACY_TERM_PREFIX.length), Number(i.df ?? 0)]));
}
