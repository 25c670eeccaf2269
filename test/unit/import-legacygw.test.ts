import { describe, expect, it, vi } from 'vitest';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import type { OpenSource } from '#functions/import-legacygw/legacy-source';
import type { RowSource, SourceLimits } from '#functions/import-legacygw/source';
import { ANY_HOST, parseAllowList } from '#shared/allow-list';
import { ChannelsNotStoredError, DeadlineExceededError, ProxyApiError } from '#shared/errors';
import { type ChannelStore, ChannelWriteError, type StoredChannel } from '#shared/repositories/channels';
import { TEST_IMPORT_CORE, testChannelId } from '#test/support/channel-ids';
import { sourceRow, type TestRow } from '#test/support/legacy-mapper';

/** A row of One API's table as these tests write it. */
type LegacyRow = TestRow & { id: number; key?: string | null; name?: string | null };

const DSN = 'importer:s3cret@pw@tcp(10.0.0.5:3306)/legacy';
const T1 = new Date('2026-03-01T10:00:00.000Z');

function row(id: number, extra: Partial<LegacyRow> = {}): LegacyRow {
  return { id, type: 1, key: `sk-unit-${id}`, status: 1, base_url: '', models: 'gpt-4o', name: `c${id}`, ...extra };
}

const rows = (count: number, extra: Partial<LegacyRow> = {}) =>
  Array.from({ length: count }, (_, i) => row(i + 1, extra));

/**
 * A source over fixed rows. With `hangAfter`, it stops there like a silent server: the next read
 * fails only when the import's deadline aborts it (as the real source does).
 */
function fakeSource(data: LegacyRow[], options: { hangAfter?: number; columns?: readonly string[] } = {}) {
  const calls = { opened: 0, closed: 0, limits: undefined as SourceLimits | undefined };
  const openSource: OpenSource = async (_dsn, _target, limits) => {
    calls.opened += 1;
    calls.limits = limits;
    const source: RowSource = {
      origin: { engine: 'mysql', host: '10.0.0.5', port: 3306, database: 'legacy' },
      columns: async () =>
        new Set(options.columns ?? ['id', 'type', 'key', 'status', 'base_url', 'models', 'name', 'other']),
      count: async () => data.length,
      async *rows() {
        for (const [index, r] of data.entries()) {
          if (index === options.hangAfter) {
            await new Promise((_, reject) => {
              if (limits.signal.aborted) reject(limits.signal.reason);
              limits.signal.addEventListener('abort', () => reject(limits.signal.reason), { once: true });
            });
          }
          yield sourceRow(r);
        }
      },
      async close() {
        calls.closed += 1;
      },
    };
    return source;
  };
  return { openSource, calls };
}

/** A stored channel that no generated row maps to: it makes a table non-empty without changing any outcome. */
const UNRELATED: StoredChannel = {
  id: 'unrelated-channel',
  provider: 'openai',
  legacyType: 1,
  name: 'kept',
  baseUrl: 'https://api.openai.com',
  models: ['gpt-4o'],
  key: 'sk-unit-unrelated',
  status: 'enabled',
  source: { legacyId: 9_999, host: '10.0.0.5', database: 'other' },
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

/** An in-memory ChannelStore that records every call. */
function memoryStore(initial: StoredChannel[] = []) {
  const items = new Map(initial.map((i) => [i.id, i]));
  const calls = { getCompared: [] as number[], putMany: [] as number[], isEmpty: 0 };
  const store: ChannelStore = {
    async getCompared(ids) {
      calls.getCompared.push(ids.length);
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
    async getMany(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
    async putMany(batch) {
      calls.putMany.push(batch.length);
      for (const item of batch) items.set(item.id, item);
      return batch.length;
    },
    async isEmpty() {
      calls.isEmpty += 1;
      return items.size === 0;
    },
    async scanIds() {
      return [...items.keys()];
    },
    async getSummaries(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
  };
  return { store, items, calls };
}

function deps(openSource: OpenSource, repo: ChannelStore, config: Partial<ImportDeps['config']> = {}): ImportDeps {
  return {
    openSource,
    repo,
    ...TEST_IMPORT_CORE,
    config: { maxRows: 50_000, deadlineMs: 10_000, allowedHosts: ANY_HOST, ...config },
    now: () => T1,
    logger: { info: () => {} },
  };
}

/** A store whose table already holds channels (every chunk is read before it is written), found under no id read. */
function storeWithChannels(parts: Pick<ChannelStore, 'putMany'> & Partial<ChannelStore>): ChannelStore {
  return {
    isEmpty: async () => false,
    scanIds: async () => [],
    getSummaries: async () => new Map(),
    getMany: async () => new Map(),
    getCompared: async () => new Map(),
    ...parts,
  };
}

describe('importLegacyGw', () => {
  it('classifies and writes in chunks of at most 100 channels, reading each chunk before writing it', async () => {
    const source = fakeSource(rows(250));
    const memory = memoryStore([UNRELATED]);

    const report = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, memory.store));

    expect(report.channels).toEqual({ created: 250, updated: 0, unchanged: 0, edited: 0 });
    expect(memory.calls.getCompared).toEqual([100, 100, 50]);
    expect(memory.calls.putMany).toEqual([100, 100, 50]);
    expect(memory.items.size).toBe(251);
    expect(source.calls.closed).toBe(1);
  });

  it('reads nothing back when the table held no channel at the start, and reports what the read path reports', async () => {
    const empty = memoryStore();
    const holdingOther = memoryStore([UNRELATED]);

    const fromEmpty = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(fakeSource(rows(250)).openSource, empty.store),
    );
    const fromRead = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(fakeSource(rows(250)).openSource, holdingOther.store),
    );

    expect(empty.calls.isEmpty).toBe(1);
    expect(empty.calls.getCompared).toEqual([]);
    expect(empty.calls.putMany).toEqual([100, 100, 50]);
    expect(holdingOther.calls.getCompared).toEqual([100, 100, 50]);
    // The one difference: the channel no row produces is listed as stale (and left alone).
    const { stale, ...readReport } = fromRead;
    expect(fromEmpty).toEqual(readReport);
    expect(stale).toMatchObject({ count: 1, items: [{ id: UNRELATED.id }] });
    holdingOther.items.delete(UNRELATED.id);
    expect(empty.items).toEqual(holdingOther.items);
  });

  it('asks whether the table is empty once per import, so a second import reads and classifies', async () => {
    const memory = memoryStore();
    await importLegacyGw({ dsn: DSN, dryRun: false }, deps(fakeSource(rows(120)).openSource, memory.store));

    const again = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(fakeSource(rows(120)).openSource, memory.store),
    );

    expect(memory.calls.isEmpty).toBe(2);
    expect(memory.calls.getCompared).toEqual([100, 20]);
    expect(again.channels).toEqual({ created: 0, updated: 0, unchanged: 120, edited: 0 });
  });

  it('fails without writing when the emptiness check fails, and still closes the source', async () => {
    const source = fakeSource(rows(3));
    const memory = memoryStore();
    const store: ChannelStore = {
      ...memory.store,
      isEmpty: async () => {
        throw new Error('dynamodb down');
      },
    };

    const error = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, store)).catch(
      (e: unknown) => e,
    );

    expect((error as Error).message).toBe('dynamodb down');
    expect(memory.calls.putMany).toEqual([]);
    expect(source.calls.closed).toBe(1);
  });

  it('stores channel items as docs/channel-import.md describes them: the DSN host and database as source, never credentials', async () => {
    const source = fakeSource([row(7, { base_url: 'https://proxy.example.com/', models: 'a, b,a' })]);
    const memory = memoryStore();

    await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, memory.store));

    const id = testChannelId(7, 'sk-unit-7');
    expect(memory.items.get(id)).toEqual({
      id,
      provider: 'openai',
      legacyType: 1,
      name: 'c7',
      baseUrl: 'https://proxy.example.com',
      models: ['a', 'b'],
      key: 'sk-unit-7',
      status: 'enabled',
      settings: {},
      source: { legacyId: 7, host: '10.0.0.5', database: 'legacy' },
      createdAt: T1.toISOString(),
      updatedAt: T1.toISOString(),
    });
    expect(JSON.stringify([...memory.items.values()])).not.toContain('s3cret');
  });

  it('rewrites an existing channel whose models, name or status changed and keeps its createdAt', async () => {
    const created = '2025-01-01T00:00:00.000Z';
    const stored = (r: LegacyRow, over: Partial<StoredChannel> = {}): StoredChannel => ({
      id: testChannelId(r.id, String(r.key)),
      provider: 'openai',
      legacyType: 1,
      name: String(r.name),
      baseUrl: 'https://api.openai.com',
      models: ['gpt-4o'],
      key: String(r.key),
      status: 'enabled',
      settings: {},
      source: { legacyId: r.id, host: '10.0.0.5', database: 'legacy' },
      createdAt: created,
      updatedAt: created,
      ...over,
    });
    const [r1, r2, r3, r4] = rows(4);
    const memory = memoryStore([
      stored(r1!),
      stored(r2!, { models: ['gpt-4o', 'old'] }),
      stored(r3!, { name: 'old name' }),
      stored(r4!, { status: 'disabled' }),
    ]);

    const report = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(fakeSource(rows(4)).openSource, memory.store),
    );

    expect(report.channels).toEqual({ created: 0, updated: 3, unchanged: 1, edited: 0 });
    expect(memory.calls.putMany).toEqual([3]);
    const updated = memory.items.get(stored(r2!).id);
    expect(updated).toMatchObject({ models: ['gpt-4o'], createdAt: created, updatedAt: T1.toISOString() });
    expect(memory.items.get(stored(r1!).id)?.updatedAt).toBe(created);
  });

  it('reads and classifies on a dry run but never writes', async () => {
    const memory = memoryStore([UNRELATED]);

    const report = await importLegacyGw(
      { dsn: DSN, dryRun: true },
      deps(fakeSource(rows(120)).openSource, memory.store),
    );

    expect(report.dryRun).toBe(true);
    expect(report.channels.created).toBe(120);
    expect(memory.calls.getCompared).toEqual([100, 20]);
    expect(memory.calls.putMany).toEqual([]);
  });

  it('on a dry run into an empty table, reads nothing, writes nothing and counts every channel created', async () => {
    const memory = memoryStore();

    const report = await importLegacyGw(
      { dsn: DSN, dryRun: true },
      deps(fakeSource(rows(120)).openSource, memory.store),
    );

    expect(report.channels).toEqual({ created: 120, updated: 0, unchanged: 0, edited: 0 });
    expect(memory.calls.getCompared).toEqual([]);
    expect(memory.calls.putMany).toEqual([]);
    expect(memory.items.size).toBe(0);
  });

  it('lists at most 1,000 items and then says the list was truncated', async () => {
    const unknownType = rows(1_001, { type: 999 });

    const report = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(fakeSource(unknownType).openSource, memoryStore().store),
    );

    expect(report.rows).toEqual({ imported: 0, skipped: 1_001 });
    expect(report.items).toHaveLength(1_000);
    expect(report.items[999]).toEqual({
      legacyId: 1_000,
      outcome: 'skipped',
      reason: 'unknown legacy channel type 999',
    });
    expect(report.itemsTruncated).toBe(true);
  });

  it('stops at the deadline, closes the source and reports how many channels were written', async () => {
    vi.useFakeTimers();
    try {
      const source = fakeSource(rows(250), { hangAfter: 230 });
      const memory = memoryStore();

      const running = importLegacyGw(
        { dsn: DSN, dryRun: false },
        deps(source.openSource, memory.store, { deadlineMs: 5_000 }),
      ).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(5_000);
      const error = await running;

      expect(error).toBeInstanceOf(DeadlineExceededError);
      expect((error as DeadlineExceededError).written).toBe(200);
      expect((error as DeadlineExceededError).httpStatus).toBe(504);
      expect(memory.items.size).toBe(200);
      expect(source.calls.closed).toBe(1);
      expect(source.calls.limits?.signal.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts the writes of a chunk that was cut off by the deadline', async () => {
    const source = fakeSource(rows(150));
    const store = storeWithChannels({
      putMany: async (items, options) => {
        if (items.length === 100) return 100;
        // The second chunk stores 20 items, then the deadline aborts its remaining batches.
        await new Promise((resolve) => options?.signal?.addEventListener('abort', resolve, { once: true }));
        throw new ChannelWriteError(20, { cause: options?.signal?.reason });
      },
    });

    const error = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, store, { deadlineMs: 50 }))
      .then(() => undefined)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as DeadlineExceededError).written).toBe(120);
  });

  it('reports a write failure as a 500 that says how many channels were written, and still closes the source', async () => {
    const source = fakeSource(rows(3));
    const failing = storeWithChannels({
      putMany: async () => {
        throw new ChannelWriteError(1, { cause: new Error('dynamodb down') });
      },
    });

    const error = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, failing)).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ChannelsNotStoredError);
    expect((error as ChannelsNotStoredError).httpStatus).toBe(500);
    expect((error as ChannelsNotStoredError).exposed).toBe(true);
    expect((error as ChannelsNotStoredError).message).toContain('1 channel(s) were written');
    expect(source.calls.closed).toBe(1);
  });

  it('reads and classifies the next chunks while earlier ones are written, with at most three chunks pending', async () => {
    const events: string[] = [];
    let pending = 0;
    let peak = 0;
    const stored: StoredChannel[] = [];
    const store = storeWithChannels({
      getCompared: async (ids) => {
        events.push(`read ${ids.length}`);
        return new Map();
      },
      putMany: async (items) => {
        pending += 1;
        peak = Math.max(peak, pending);
        events.push(`write ${items.length}`);
        await new Promise((resolve) => setImmediate(resolve));
        stored.push(...items);
        pending -= 1;
        events.push('written');
        return items.length;
      },
    });

    const report = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(fakeSource(rows(450)).openSource, store));

    expect(report.channels).toEqual({ created: 450, updated: 0, unchanged: 0, edited: 0 });
    expect(stored).toHaveLength(450);
    expect(peak).toBe(3);
    expect(events.slice(0, 4)).toEqual(['read 100', 'write 100', 'read 100', 'write 100']);
    expect(events.filter((e) => e === 'written')).toHaveLength(5);
  });

  it('stops after a write fails while later chunks are classified, and reports every channel the run wrote', async () => {
    const source = fakeSource(rows(600));
    const reads: number[] = [];
    let writes = 0;
    // Every write waits until the third chunk is classified; then the first fails. No timers: the order is fixed.
    let thirdChunkClassified!: () => void;
    const failureAllowed = new Promise<void>((resolve) => {
      thirdChunkClassified = resolve;
    });
    const store = storeWithChannels({
      getCompared: async (ids) => {
        reads.push(ids.length);
        if (reads.length === 3) thirdChunkClassified();
        return new Map();
      },
      putMany: async (items) => {
        writes += 1;
        const first = writes === 1;
        await failureAllowed;
        if (first) throw new ChannelWriteError(40, { cause: new Error('dynamodb down') });
        await new Promise((resolve) => setImmediate(resolve));
        return items.length;
      },
    });

    const error = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, store)).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ChannelsNotStoredError);
    expect((error as ChannelsNotStoredError).written).toBe(240);
    expect((error as ChannelsNotStoredError).message).toContain('240 channel(s) were written');
    expect(writes).toBe(3);
    expect(reads).toEqual([100, 100, 100]);
    expect(source.calls.closed).toBe(1);
  });

  it('at the deadline, waits for the chunk writes still pending and counts what each stored', async () => {
    const source = fakeSource(rows(250), { hangAfter: 230 });
    let writes = 0;
    const store = storeWithChannels({
      putMany: async (items, options) => {
        writes += 1;
        if (writes === 2) return items.length;
        // The first chunk stores 60 items, then the deadline aborts its remaining batches.
        await new Promise((resolve) => options?.signal?.addEventListener('abort', resolve, { once: true }));
        throw new ChannelWriteError(60, { cause: options?.signal?.reason });
      },
    });

    const error = await importLegacyGw({ dsn: DSN, dryRun: false }, deps(source.openSource, store, { deadlineMs: 50 }))
      .then(() => undefined)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as DeadlineExceededError).written).toBe(160);
    expect(source.calls.closed).toBe(1);
  });

  it('rejects an invalid DSN with 400 before opening anything', async () => {
    const source = fakeSource([]);

    const error = await importLegacyGw(
      { dsn: 'u:pw@tcp(db:3306)/legacy?allowAllFiles=true', dryRun: false },
      deps(source.openSource, memoryStore().store),
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProxyApiError);
    expect((error as ProxyApiError).httpStatus).toBe(400);
    expect(source.calls.opened).toBe(0);
  });

  it('refuses a host outside the allow-list with 400 before connecting', async () => {
    const source = fakeSource([]);

    const error = await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(source.openSource, memoryStore().store, { allowedHosts: parseAllowList(['192.168.0.0/16']) }),
    ).catch((e: unknown) => e);

    expect((error as ProxyApiError).httpStatus).toBe(400);
    expect(source.calls.opened).toBe(0);
  });

  it('gives a hanging DNS lookup no more time than the deadline (504, nothing written)', async () => {
    const source = fakeSource([]);
    const neverAnswers = () => new Promise<never>(() => {});

    const error = await importLegacyGw(
      { dsn: 'u:pw@tcp(legacy-db.internal:3306)/legacy', dryRun: false },
      { ...deps(source.openSource, memoryStore().store, { deadlineMs: 20 }), lookup: neverAnswers },
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as DeadlineExceededError).written).toBe(0);
    expect(source.calls.opened).toBe(0);
  });

  it('hands the source a deadline signal', async () => {
    const source = fakeSource([]);

    await importLegacyGw(
      { dsn: DSN, dryRun: false },
      deps(source.openSource, memoryStore().store, { maxRows: 123, deadlineMs: 5_000 }),
    );

    expect(source.calls.limits).toMatchObject({ deadlineAt: expect.any(Number) });
    expect(source.calls.limits?.signal.aborted).toBe(false);
  });
});

const ONE_API_COLUMNS = ['id', 'type', 'key', 'status', 'base_url', 'models', 'name', 'other'];

describe('importLegacyGw: the family', () => {
  it.each([
    ['oneapi', ONE_API_COLUMNS, 'proxy', 'sk-unit-1\nsk-unit-2', 2],
    ['newapi', [...ONE_API_COLUMNS, 'auto_ban'], 'deepseek', 'sk-unit-1\nsk-unit-2', 1],
  ] as const)(
    'reads a %s table through its own type table and key rule and says which in the report',
    async (kind, columns, provider, key, channels) => {
      const source = fakeSource([row(1, { type: 43, key, base_url: 'https://gw.example.com' })], { columns });
      const memory = memoryStore();
      const logged: unknown[] = [];

      const report = await importLegacyGw(
        { dsn: DSN, dryRun: false },
        { ...deps(source.openSource, memory.store), logger: { info: (...args: unknown[]) => logged.push(args) } },
      );

      expect(report.source).toEqual({ host: '10.0.0.5', port: 3306, database: 'legacy', rows: 1, kind });
      expect(report.channels.created).toBe(channels);
      expect([...memory.items.values()].map((c) => c.provider)).toEqual(Array(channels).fill(provider));
      expect(logged.at(-1)).toEqual(['Import finished', expect.objectContaining({ kind })]);
    },
  );
});
