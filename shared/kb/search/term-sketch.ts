import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { GroupCommit } from '#shared/repositories/group-commit';
/*
 * The full-text index's document-frequency estimates (docs/knowledge-base-search.md, "Full text"): a count-min sketch,
 * two rows of 1,024 counters, named `s00`…`s0sf`, `s10`…`s1sf` (the row, then the counter's number in base 36), kept in
 * the knowledge base's `n` item beside `docs` and `total` as one binary attribute of 8 KB. A batch of chunks adds each
 * of its terms' chunk counts to one counter per row; removing chunks subtracts them. A term's estimate is the smaller of
 * its two counters: never below its true df (other terms only add to a counter), exact unless both counters are shared
 * with more frequent terms. The search uses it to read the rarest terms first within its postings budget, and takes
 * the exact df from the postings it reads.
 *
 * Why a sketch and not a counter per term: a counter per term cost one UpdateItem per distinct term of every batch
 * (DynamoDB has no multi-item ADD outside transactions, and dynalite has no transactions), about half the training's
 * time; the sketch's item stays 8 KB however large the vocabulary grows. Why bytes written whole and not a number
 * attribute per counter with ADD (as from the morning to the evening of 2026-11-28, items that are read and rewritten
 * as they are): an ADD of a document's ~460 counters costs DynamoDB the whole 20 KB item in write units and dynalite
 * about 12 ms of parsing, where a read and a conditional write of 8 KB cost about 2 ms (docs/performance.md).
 */

/** Counters per row. */
export const SKETCH_WIDTH = 1024;
const ROWS = [
  { prefix: 's0', seed: 0x811c9dc5 },
  { prefix: 's1', seed: 0x9747b28c },
] as const;

function fnv1a(text: string, seed: number): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** The attribute names of a term's counters, one per row. */
export function sketchCells(term: string): string[] {
  return ROWS.map(({ prefix, seed }) => `${prefix}${(fnv1a(term, seed) % SKETCH_WIDTH).toString(36)}`);
}

/** The counter changes of adding (`sign` 1) or removing (-1) terms with their chunk counts. */
export function sketchDeltas(counts: Iterable<readonly [string, number]>, sign: 1 | -1): Map<string, number> {
  const deltas = new Map<string, number>();
  for (const [term, count] of counts) {
    for (const cell of sketchCells(term)) deltas.set(cell, (deltas.get(cell) ?? 0) + sign * count);
  }
  for (const [cell, delta] of deltas) if (delta === 0) deltas.delete(cell);
  return deltas;
}

/**
 * The `n` item's count of chunks the sketch counts (`docs` counts every chunk): while `docs` is larger, the index still
 * holds chunks written before the sketch, whose terms only the old per-term items count. Named with a digit like the
 * counters (no reserved word), and never one of them (theirs start `s0` or `s1`).
 */
export const SKETCHED_DOCS = 's2d';

/** A term's df estimate from the `n` item (or its projection on the term's cells): at least its true df. */
export function sketchEstimate(item: Record<string, unknown> | undefined, term: string): number {
  return Math.max(0, Math.min(...sketchCells(term).map((cell) => Number(item?.[cell] ?? 0))));
}

/** The `n` item's attribute holding the sketch: its 2,048 counters as little-endian uint32 bytes (8 KB). */
export const SKETCH_ATTRIBUTE = 'k';
/** The `n` item's version, raised by every write: a write that finds another version read and computes again. */
export const COUNTERS_VERSION = 'v';

/** A counter's place in the sketch's bytes (row, then counter), from its name. */
function cellIndex(cell: string): number {
  return Number(cell[1]) * SKETCH_WIDTH + Number.parseInt(cell.slice(2), 36);
}

/**
 * The sketch of an `n` item as counters by name: from its bytes, and from the counter attributes an item written before
 * the bytes (2026-11-28) holds, or a projection of them. The counters asked for, or all of them.
 */
export function readSketch(
  item: Record<string, unknown> | undefined,
  cells?: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  const bytes = item?.[SKETCH_ATTRIBUTE];
  const view = bytes instanceof Uint8Array ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined;
  const names =
    cells ?? ROWS.flatMap((row) => Array.from({ length: SKETCH_WIDTH }, (_, i) => `${row.prefix}${i.toString(36)}`));
  for (const cell of names) {
    const at = cellIndex(cell) * 4;
    const fromBytes = view !== undefined && at + 4 <= view.byteLength ? view.getUint32(at, true) : 0;
    const count = fromBytes + Number(item?.[cell] ?? 0);
    if (count !== 0) out[cell] = count;
  }
  return out;
}

/**
 * The `n` item's fields after `changes`: `docs`, `total`, the count of sketched chunks and the sketch's bytes (the
 * counters of an older item folded in; a count never below zero).
 */
export function applyCounters(
  item: Record<string, unknown> | undefined,
  changes: CounterChanges,
): { docs: number; total: number; [SKETCHED_DOCS]: number; [SKETCH_ATTRIBUTE]: Uint8Array } {
  const bytes = new Uint8Array(ROWS.length * SKETCH_WIDTH * 4);
  const old = item?.[SKETCH_ATTRIBUTE];
  if (old instanceof Uint8Array) bytes.set(old.subarray(0, bytes.length));
  const view = new DataView(bytes.buffer);
  const add = (at: number, delta: number) =>
    view.setUint32(at * 4, Math.max(0, view.getUint32(at * 4, true) + delta), true);
  // An item written before the bytes holds its counters as attributes named like the cells.
  for (const [name, value] of Object.entries(item ?? {})) {
    if (/^s[01][0-9a-z]+$/.test(name) && typeof value === 'number') add(cellIndex(name), value);
  }
  for (const [cell, delta] of changes.deltas) add(cellIndex(cell), delta);
  return {
    docs: Number(item?.docs ?? 0) + changes.docs,
    total: Number(item?.total ?? 0) + changes.total,
    [SKETCHED_DOCS]: Number(item?.[SKETCHED_DOCS] ?? 0) + changes.sketched,
    [SKETCH_ATTRIBUTE]: bytes,
  };
}

/** Changes to one `n` item: chunks, total length, chunks the sketch counts, and the sketch's counters. */
export interface CounterChanges {
  docs: number;
  total: number;
  sketched: number;
  readonly deltas: Map<string, number>;
}

/**
 * Group commit of the `n` item's changes (shared/repositories/group-commit.ts): every batch of a knowledge base changes
 * that one item, each write reads and rewrites it, so many collections trained at once in one process share a few
 * writes. A caller awaits its own changes before it goes on, so the sketch stays an upper bound of every df.
 */
export class CounterCommits {
  private readonly group: GroupCommit<CounterChanges>;

  constructor(send: (key: string, changes: CounterChanges) => Promise<void>) {
    this.group = new GroupCommit<CounterChanges>(
      () => ({ docs: 0, total: 0, sketched: 0, deltas: new Map() }),
      (into, changes) => {
        into.docs += changes.docs;
        into.total += changes.total;
        into.sketched += changes.sketched;
        for (const [cell, delta] of changes.deltas) {
          const sum = (into.deltas.get(cell) ?? 0) + delta;
          if (sum === 0) into.deltas.delete(cell);
          else into.deltas.set(cell, sum);
        }
      },
      send,
    );
  }

  /** Adds `changes` to the item `key`; resolves once they are stored. */
  add(key: string, changes: Readonly<CounterChanges>): Promise<void> {
    return this.group.add(key, { ...changes, deltas: new Map(changes.deltas) });
  }
}

/** Reads and writes of the `n` item one change may take when other processes write it at the same time. */
const COUNTER_ATTEMPTS = 8;

/**
 * Reads the `n` item, applies the changes and writes it whole on the condition that nobody wrote it meanwhile (its
 * version); another writer's win (another process training the same knowledge base) means read and apply again.
 */
export async function writeCounters(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: { readonly pk: string; readonly sk: string },
  changes: CounterChanges,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    const version = Item?.[COUNTERS_VERSION];
    const condition =
      typeof version === 'number'
        ? {
            ConditionExpression: '#v = :v',
            ExpressionAttributeNames: { '#v': COUNTERS_VERSION },
            ExpressionAttributeValues: { ':v': version },
          }
        : Item === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'attribute_not_exists(#v)', ExpressionAttributeNames: { '#v': COUNTERS_VERSION } };
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key, ...applyCounters(Item, changes), [COUNTERS_VERSION]: Number(version ?? 0) + 1 },
          ...condition,
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || attempt >= COUNTER_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
