import { GroupCommit } from '#shared/repositories/group-commit';
/*
 * The full-text index's document-frequency estimates (docs/knowledge-base-search.md, "Full text"): a count-min sketch,
 * two rows of 1,024 counters kept as number attributes (`s00`…`s0sf`, `s10`…`s1sf`: the row, then the counter's number
 * in base 36, short so that one UpdateExpression holds a document's changes) of the knowledge base's `n` item
 * beside `docs` and `total`. A batch of chunks adds each of its terms' chunk counts to one counter per row; removing
 * chunks subtracts them. A term's estimate is the smaller of its two counters: never below its true df (other terms
 * only add to a counter), exact unless both counters are shared with more frequent terms. The search uses it to read
 * the rarest terms first within its postings budget, and takes the exact df from the postings it reads.
 *
 * Why a sketch and not a counter per term: a counter per term cost one UpdateItem per distinct term of every batch
 * (DynamoDB has no multi-item ADD outside transactions, and dynalite has no transactions), about half the training's
 * time; the sketch is a few UpdateItems per batch whatever its vocabulary, and its item stays about 20 KB (2,048
 * counters) however large the vocabulary grows, far below the 400 KB item limit.
 */

/** Counters per row. */
export const SKETCH_WIDTH = 1024;
const ROWS = [
  { prefix: 's0', seed: 0x811c9dc5 },
  { prefix: 's1', seed: 0x9747b28c },
] as const;
/** DynamoDB's limit on an UpdateExpression is 4 KB; a longer update is split into several. */
const MAX_EXPRESSION = 3_800;

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

/** The sketch's deltas with the change to the count of chunks it counts (`SKETCHED_DOCS`). */
export function withSketchedDocs(deltas: Map<string, number>, docs: number): Map<string, number> {
  if (docs !== 0) deltas.set(SKETCHED_DOCS, docs);
  return deltas;
}

/** A term's df estimate from the `n` item (or its projection on the term's cells): at least its true df. */
export function sketchEstimate(item: Record<string, unknown> | undefined, term: string): number {
  return Math.max(0, Math.min(...sketchCells(term).map((cell) => Number(item?.[cell] ?? 0))));
}

export interface CounterUpdate {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeValues: Record<string, number>;
  readonly ExpressionAttributeNames?: Record<string, string>;
}

/**
 * The ADD updates of the `n` item for `docs`, `total` and the sketch's deltas: as few as the 4 KB expression limit
 * allows (one for a batch of a couple of hundred terms; at most six for any batch, since there are 2,048 counters).
 * The counters' names are plain (`s0ab`: no reserved word holds a digit); `docs` and `total` go through placeholders.
 */
export function counterUpdates(docs: number, total: number, deltas: ReadonlyMap<string, number>): CounterUpdate[] {
  const updates: CounterUpdate[] = [];
  let clauses: string[] = ['#docs :docs', '#total :total'];
  let values: Record<string, number> = { ':docs': docs, ':total': total };
  let names: Record<string, string> | undefined = { '#docs': 'docs', '#total': 'total' };
  let length = 'ADD '.length + clauses.join(', ').length;
  const flush = () => {
    if (clauses.length > 0) {
      updates.push({
        UpdateExpression: `ADD ${clauses.join(', ')}`,
        ExpressionAttributeValues: values,
        ...(names ? { ExpressionAttributeNames: names } : {}),
      });
    }
    clauses = [];
    values = {};
    names = undefined;
    length = 'ADD '.length;
  };
  for (const [cell, delta] of deltas) {
    // One placeholder per distinct amount: most amounts are small counts shared by many counters.
    const placeholder = delta < 0 ? `:m${-delta}` : `:${delta}`;
    const clause = `${cell} ${placeholder}`;
    if (length + clause.length + 2 > MAX_EXPRESSION) flush();
    clauses.push(clause);
    values[placeholder] = delta;
    length += clause.length + 2;
  }
  flush();
  return updates;
}

/** Changes to one `n` item: chunks, total length, and the sketch's counters. */
export interface CounterChanges {
  docs: number;
  total: number;
  readonly deltas: Map<string, number>;
}

/**
 * Group commit of the `n` item's ADDs (shared/repositories/group-commit.ts): every batch of a knowledge base adds to that
 * one item, and an update of a 2,048-counter item costs the engine several BatchWriteItem calls' work (20-35 ms each on
 * dynalite here). A caller awaits its own changes before it goes on, so the sketch stays an upper bound of every df.
 */
export class CounterCommits {
  private readonly group: GroupCommit<CounterChanges>;

  constructor(send: (key: string, changes: CounterChanges) => Promise<void>) {
    this.group = new GroupCommit<CounterChanges>(
      () => ({ docs: 0, total: 0, deltas: new Map() }),
      (into, changes) => {
        into.docs += changes.docs;
        into.total += changes.total;
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
  add(key: string, docs: number, total: number, deltas: ReadonlyMap<string, number>): Promise<void> {
    return this.group.add(key, { docs, total, deltas: new Map(deltas) });
  }
}
