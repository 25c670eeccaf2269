import { describe, expect, it } from 'vitest';
import { POSTINGS_BUDGET } from '#shared/kb/search/full-text-index';
import {
  CounterCommits,
  type CounterUpdate,
  counterUpdates,
  SKETCH_WIDTH,
  sketchCells,
  sketchDeltas,
  sketchEstimate,
} from '#shared/kb/search/term-sketch';

/** What DynamoDB makes of the `n` item after the updates: each ADD clause applied, names and values resolved. */
function apply(updates: readonly CounterUpdate[], item: Record<string, number> = {}): Record<string, number> {
  for (const update of updates) {
    expect(update.UpdateExpression.startsWith('ADD ')).toBe(true);
    for (const clause of update.UpdateExpression.slice(4).split(', ')) {
      const [name, placeholder] = clause.split(' ') as [string, string];
      const attribute = update.ExpressionAttributeNames?.[name] ?? name;
      item[attribute] = (item[attribute] ?? 0) + (update.ExpressionAttributeValues[placeholder] as number);
    }
  }
  return item;
}

/** A vocabulary with Zipf-like chunk counts: a few terms in most chunks, most in a few. */
const vocabulary = Array.from({ length: 20_000 }, (_, i) => [`term${i}`, Math.ceil(50_000 / (i + 1))] as const);

describe('the df sketch', () => {
  it('gives each term one counter per row, the same every time', () => {
    const cells = sketchCells('知识库');
    expect(cells).toHaveLength(2);
    expect(cells[0]).toMatch(/^s0[0-9a-z]{1,2}$/);
    expect(cells[1]).toMatch(/^s1[0-9a-z]{1,2}$/);
    expect(cells.every((c) => Number.parseInt(c.slice(2), 36) < SKETCH_WIDTH)).toBe(true);
    expect(sketchCells('知识库')).toEqual(cells);
  });

  it('never estimates a term below its df, and over it by a small part of a query’s postings budget', () => {
    const item = apply(counterUpdates(0, 0, sketchDeltas(vocabulary, 1)));

    const over = vocabulary.map(([term, df]) => sketchEstimate(item, term) - df).sort((a, b) => a - b);

    expect(over[0]).toBeGreaterThanOrEqual(0);
    // 20,000 terms in 534,000 postings: about 520 per counter; 99% of the terms are read as if their df were exact
    // unless a query's terms add up to nearly the whole budget.
    expect(over[Math.floor(over.length * 0.99)]).toBeLessThan(POSTINGS_BUDGET / 25);
  });

  it('comes back to zero when what was added is removed, in any grouping', () => {
    const item = apply(counterUpdates(10, 400, sketchDeltas(vocabulary.slice(0, 500), 1)));
    apply(counterUpdates(-4, -150, sketchDeltas(vocabulary.slice(0, 200), -1)), item);
    apply(counterUpdates(-6, -250, sketchDeltas(vocabulary.slice(200, 500), -1)), item);

    expect(Object.values(item).every((v) => v === 0)).toBe(true);
    expect(item).toMatchObject({ docs: 0, total: 0 });
  });

  it('splits an update under DynamoDB’s 4 KB expression limit, docs and total counted once', () => {
    const updates = counterUpdates(3, 120, sketchDeltas(vocabulary, 1));

    expect(updates.length).toBeGreaterThan(1);
    expect(updates.length).toBeLessThanOrEqual(12);
    expect(updates.every((u) => u.UpdateExpression.length <= 4096)).toBe(true);
    const item = apply(updates);
    expect(item).toMatchObject({ docs: 3, total: 120 });
    expect(Object.keys(item)).toHaveLength(2 + 2 * SKETCH_WIDTH);
  });

  it('needs one update for a document’s couple of hundred terms', () => {
    const document = vocabulary.slice(0, 230).map(([term]) => [term, 1] as const);
    expect(counterUpdates(6, 900, sketchDeltas(document, 1))).toHaveLength(1);
  });
});

describe('the counters’ group commit', () => {
  it('sends the changes that arrive while an update is in flight together, each caller settled with its update', async () => {
    const sent: { key: string; docs: number; total: number; deltas: Record<string, number> }[] = [];
    let release = () => {};
    const commits = new CounterCommits(async (key, changes) => {
      sent.push({ key, docs: changes.docs, total: changes.total, deltas: Object.fromEntries(changes.deltas) });
      if (sent.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });

    const first = commits.add('kb-1', 1, 10, new Map([['s00', 1]]));
    const waiting = [
      commits.add('kb-1', 2, 20, new Map([['s00', 2]])),
      commits.add('kb-1', -1, -5, new Map([['s01', -1]])),
    ];
    const other = commits.add('kb-2', 1, 1, new Map());
    await other;
    release();
    await Promise.all([first, ...waiting]);

    expect(sent).toEqual([
      { key: 'kb-1', docs: 1, total: 10, deltas: { s00: 1 } },
      { key: 'kb-2', docs: 1, total: 1, deltas: {} },
      { key: 'kb-1', docs: 1, total: 15, deltas: { s00: 2, s01: -1 } },
    ]);
  });

  it('fails every caller whose changes were in a failed update, and only those', async () => {
    let calls = 0;
    let release = () => {};
    const commits = new CounterCommits(async () => {
      calls++;
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
      if (calls === 2) throw new Error('throttled');
    });

    const first = commits.add('kb', 1, 1, new Map());
    const second = commits.add('kb', 1, 1, new Map());
    const third = commits.add('kb', 1, 1, new Map());
    release();

    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toThrow('throttled');
    await expect(third).rejects.toThrow('throttled');
    await expect(commits.add('kb', 1, 1, new Map())).resolves.toBeUndefined();
  });
});
