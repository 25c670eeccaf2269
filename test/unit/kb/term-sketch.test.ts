import { describe, expect, it } from 'vitest';
import { POSTINGS_BUDGET } from '#shared/kb/search/full-text-index';
import {
  applyCounters,
  CounterCommits,
  readSketch,
  SKETCH_WIDTH,
  sketchCells,
  sketchDeltas,
  sketchEstimate,
} from '#shared/kb/search/term-sketch';

/** The `n` item after the changes, as the counters' writer stores it. */
function apply(docs: number, total: number, deltas: Map<string, number>, item?: Record<string, unknown>) {
  return applyCounters(item, { docs, total, sketched: 0, deltas });
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
    const sketch = readSketch(apply(0, 0, sketchDeltas(vocabulary, 1)));

    const over = vocabulary.map(([term, df]) => sketchEstimate(sketch, term) - df).sort((a, b) => a - b);

    expect(over[0]).toBeGreaterThanOrEqual(0);
    // 20,000 terms in 534,000 postings: about 520 per counter; 99% of the terms are read as if their df were exact
    // unless a query's terms add up to nearly the whole budget.
    expect(over[Math.floor(over.length * 0.99)]).toBeLessThan(POSTINGS_BUDGET / 25);
  });

  it('comes back to zero when what was added is removed, in any grouping', () => {
    let item: Record<string, unknown> = apply(10, 400, sketchDeltas(vocabulary.slice(0, 500), 1));
    item = apply(-4, -150, sketchDeltas(vocabulary.slice(0, 200), -1), item);
    item = apply(-6, -250, sketchDeltas(vocabulary.slice(200, 500), -1), item);

    expect(readSketch(item)).toEqual({});
    expect(item).toMatchObject({ docs: 0, total: 0 });
  });

  it('keeps 2,048 counters in 8 KB, whatever the vocabulary', () => {
    const item = apply(3, 120, sketchDeltas(vocabulary, 1));
    expect(item.k.byteLength).toBe(2 * SKETCH_WIDTH * 4);
    expect(Object.keys(readSketch(item))).toHaveLength(2 * SKETCH_WIDTH);
    expect(item).toMatchObject({ docs: 3, total: 120 });
  });

  it('folds in the counter attributes of an item written before the bytes, once', () => {
    const [a, b] = sketchCells('knowledge') as [string, string];
    const old = { docs: 2, total: 30, s2d: 2, [a]: 2, [b]: 2 };

    const item = apply(1, 10, sketchDeltas([['knowledge', 1]], 1), old);

    expect(item).toMatchObject({ docs: 3, total: 40, s2d: 2 });
    expect(sketchEstimate(readSketch(item), 'knowledge')).toBe(3);
    // The old item's projection on the cells a search asks for reads the same.
    expect(sketchEstimate(readSketch(old, [a, b]), 'knowledge')).toBe(2);
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

    const first = commits.add('kb-1', { docs: 1, total: 10, sketched: 0, deltas: new Map([['s00', 1]]) });
    const waiting = [
      commits.add('kb-1', { docs: 2, total: 20, sketched: 0, deltas: new Map([['s00', 2]]) }),
      commits.add('kb-1', { docs: -1, total: -5, sketched: 0, deltas: new Map([['s01', -1]]) }),
    ];
    const other = commits.add('kb-2', { docs: 1, total: 1, sketched: 0, deltas: new Map() });
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

    const first = commits.add('kb', { docs: 1, total: 1, sketched: 0, deltas: new Map() });
    const second = commits.add('kb', { docs: 1, total: 1, sketched: 0, deltas: new Map() });
    const third = commits.add('kb', { docs: 1, total: 1, sketched: 0, deltas: new Map() });
    release();

    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toThrow('throttled');
    await expect(third).rejects.toThrow('throttled');
    await expect(commits.add('kb', { docs: 1, total: 1, sketched: 0, deltas: new Map() })).resolves.toBeUndefined();
  });
});
