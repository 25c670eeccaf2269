import { describe, expect, it } from 'vitest';
import { startDeadline } from '#functions/import-legacygw/deadline';
import { type ImportCoreDeps, importFromSource } from '#functions/import-legacygw/import-legacygw';
import { LIMITS } from '#functions/import-legacygw/limits';
import { rowsSource } from '#functions/import-legacygw/rows-source';
import { DeadlineExceededError } from '#shared/errors';
import type { RowCell } from '#shared/import-rows';
import type { ChannelStore, StoredChannel } from '#shared/repositories/channels';
import { TEST_IMPORT_CORE } from '#test/support/channel-ids';

/*
 * Review 5's route bomb: rows each within every byte limit, whose `group` column (64 KiB) names about
 * 16,600 groups and whose `models` 1,000 models, so one row names 16.6 million routes. The work per row and per
 * import is bounded: the import answers within its deadline with the exact count, dry run and import alike.
 */

const ROWS = 300;
// 25 s is the deployed deadline; the import must end well within it even on a loaded 2-core machine.
const DEADLINE_MS = 25_000;

/** A comma-separated list of `count` distinct names `prefix0`, `prefix1`, ... within `maxBytes`. */
function names(prefix: string, count: number, maxBytes: number): string {
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const name = `${prefix}${i.toString(36)}`;
    if (bytes + name.length + 1 > maxBytes) break;
    parts.push(name);
    bytes += name.length + 1;
  }
  return parts.join(',');
}

const GROUPS = names('', 100_000, LIMITS.settingsColumnBytes);
const MODELS = names('m', LIMITS.modelsPerRow, LIMITS.modelsBytes);

/** 300 bombs: half with keys of their own, half identical to the first (collapsed into it). */
function bombTable(): { columns: string[]; rows: RowCell[][] } {
  const columns = ['id', 'type', 'key', 'status', 'base_url', 'models', 'name', 'group'];
  const rows: RowCell[][] = [];
  for (let id = 1; id <= ROWS; id++) {
    const key = id <= ROWS / 2 ? `sk-bomb-${id}` : 'sk-bomb-1';
    rows.push([id, 1, key, 1, '', MODELS, `bomb ${id}`, GROUPS]);
  }
  return { columns, rows };
}

function memoryStore(): ChannelStore & { items: Map<string, StoredChannel> } {
  const items = new Map<string, StoredChannel>();
  return {
    items,
    async getCompared(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id) as StoredChannel] as const] : [])));
    },
    async getMany() {
      return new Map();
    },
    async scanIds() {
      return [...items.keys()];
    },
    async getSummaries() {
      return new Map();
    },
    async putMany(batch) {
      for (const item of batch) items.set(item.id, item);
      return batch.length;
    },
    async isEmpty() {
      return items.size === 0;
    },
  };
}

function deps(repo: ChannelStore): ImportCoreDeps {
  return {
    repo,
    ...TEST_IMPORT_CORE,
    config: { maxRows: 50_000, deadlineMs: DEADLINE_MS },
    now: () => new Date(),
    logger: { info: () => {} },
  };
}

async function run(dryRun: boolean, repo: ChannelStore) {
  const core = deps(repo);
  const deadline = startDeadline(core);
  const started = performance.now();
  try {
    const report = await importFromSource(rowsSource(bombTable()), dryRun, deadline, core);
    return { report, ms: performance.now() - started };
  } finally {
    deadline.clear();
  }
}

describe('an import of rows that each name millions of routes', () => {
  it('counts the routes it can within its bound, says the figures are incomplete, and ends well within the deadline (dry run)', {
    timeout: 60_000,
  }, async () => {
    const store = memoryStore();

    const { report, ms } = await run(true, store);

    expect(ms).toBeLessThan(DEADLINE_MS / 2);
    expect(report.rows).toEqual({ imported: ROWS / 2, skipped: ROWS / 2 });
    expect(report.channels.created).toBe(ROWS / 2);
    expect(report.routes.complete).toBe(false);
    expect(store.items.size).toBe(0);
  });

  it('writes every channel and reports the exact count well within the deadline (import)', {
    timeout: 60_000,
  }, async () => {
    const store = memoryStore();

    const { report, ms } = await run(false, store);

    expect(ms).toBeLessThan(DEADLINE_MS / 2);
    expect(report.channels.created).toBe(ROWS / 2);
    expect(store.items.size).toBe(ROWS / 2);
    expect(report.routes.complete).toBe(false);
  });
});

describe('an import from a source that never waits', () => {
  it('stops at the deadline read from its clock, and says exactly how many channels it wrote', async () => {
    const store = memoryStore();
    // Every reading of the clock is 50 ms later: the 10 s deadline passes part-way through the rows, while no
    // timer can run (the rows are in memory).
    let ticks = 0;
    const core = { ...deps(store), config: { maxRows: 50_000, deadlineMs: 10_000 } };
    core.now = () => new Date(Date.UTC(2026, 10, 27) + 50 * ticks++);
    const table = {
      columns: ['id', 'type', 'key', 'status', 'base_url', 'models', 'name'],
      rows: Array.from({ length: 1_000 }, (_, i): RowCell[] => [i + 1, 1, `sk-clock-${i + 1}`, 1, '', 'gpt-4o', 'c']),
    };
    const deadline = startDeadline(core);

    const failure = await importFromSource(rowsSource(table), false, deadline, core).then(
      () => undefined,
      (e: unknown) => e,
    );
    deadline.clear();

    expect(failure).toBeInstanceOf(DeadlineExceededError);
    expect((failure as DeadlineExceededError).written).toBe(store.items.size);
    expect(store.items.size).toBeLessThan(1_000);
  });
});
