import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchKbTraining, TRAINING_RATIO_TARGET } from '../bench/kb-training.ts';

// `npm run bench -- --only kb-training` runs whole: a handful of documents through both sides, so a change to the
// training core, the relay or the tables that breaks the bench fails here instead of at the next bench run.

const dir = mkdtempSync(join(tmpdir(), 'bench-kb-training-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the kb-training bench part', () => {
  it('trains its documents on both sides and reports chunks per second against the raw baseline', async () => {
    const lines: string[] = [];

    const figures = await benchKbTraining({
      workDir: dir,
      documents: 4,
      length: 2_500,
      rounds: 1,
      log: (l) => lines.push(l),
    });

    expect(figures).toHaveLength(2);
    const [throughput, minimal] = figures;
    expect(throughput).toMatchObject({ unit: 'chunks/s', target: `ratio >= ${TRAINING_RATIO_TARGET}` });
    expect(throughput?.name).toMatch(/^kb training 4 documents \(\d+ chunks\): throughput$/);
    expect(throughput?.value).toBeGreaterThan(0);
    expect(throughput?.baseline).toBeGreaterThan(0);
    // The minimal-items side: a ratio, no target.
    expect(minimal?.name).toBe(`${throughput?.name} against minimal items`);
    expect(minimal?.target).toBeUndefined();
    expect(minimal?.baseline).toBeGreaterThan(0);
    const written = lines
      .map((l) => /the product writes (\d+) items for \d+ chunks, (\d+) of them with BatchWriteItem/.exec(l))
      .find(Boolean);
    // Its BatchWriteItem items are most of what it writes (the raw side replays them); the rest are its own.
    expect(Number(written?.[2])).toBeGreaterThan(0);
    expect(Number(written?.[2])).toBeLessThan(Number(written?.[1]));
  }, 60_000);
});
