import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import { type OpenSource, openLegacySource } from '#functions/import-legacygw/legacy-source';
import type { RowSource } from '#functions/import-legacygw/source';
import { ANY_HOST } from '#shared/allow-list';
import type { ChannelStore, ComparedChannel } from '#shared/repositories/channels';
import { TEST_IMPORT_CORE } from '#test/support/channel-ids';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { FIXTURE_SQL, testLogger } from './import.helpers.ts';

let db: TestMariaDb;

beforeAll(async () => {
  db = await startMariaDb();
});

afterAll(async () => {
  await db?.stop();
});

/** A store whose first read waits until `release()`, so the import stalls mid-stream on purpose. */
function gatedStore() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reads = 0;
  let written = 0;
  const store: ChannelStore = {
    // Not empty, so every chunk is read (and held here).
    isEmpty: async () => false,
    scanIds: async () => [],
    getSummaries: async () => new Map(),
    async getCompared() {
      reads += 1;
      await gate;
      return new Map<string, ComparedChannel>();
    },
    getMany: async () => new Map(),
    async putMany(items) {
      written += items.length;
      return items.length;
    },
  };
  // The import reads up to three chunks at once: all of them held is when it stops pulling rows.
  return { store, release, written: () => written, blocked: () => reads === 3 };
}

/** Wraps the real source and counts the rows it has handed to the import. */
function countingSource(): { openSource: OpenSource; pulled: () => number } {
  let pulled = 0;
  const openSource: OpenSource = async (...args) => {
    const source: RowSource = await openLegacySource(...args);
    return {
      origin: source.origin,
      columns: () => source.columns(),
      count: () => source.count(),
      close: () => source.close(),
      async *rows(select, limit) {
        for await (const row of source.rows(select, limit)) {
          pulled += 1;
          yield row;
        }
      },
    };
  };
  return { openSource, pulled: () => pulled };
}

interface ProcessRow {
  COMMAND: string;
  STATE: string;
  INFO: string | null;
}

describe('streaming the legacy table', () => {
  it('reads rows only as fast as they are written: the server waits on the socket while a write is pending', async () => {
    // 30,000 rows of about 1 KB: far more than the client buffers, so only backpressure explains a stalled server.
    const rows = 30_000;
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await db.query(
      `TRUNCATE \`${database}\`.channels; INSERT INTO \`${database}\`.channels (id, type, \`key\`, status, base_url, models)
       SELECT seq, 1, CONCAT('sk-stream-', seq), 1, '', CONCAT('m', seq, ',', REPEAT('x,', 500)) FROM seq_1_to_${rows}`,
    );
    const gated = gatedStore();
    const counting = countingSource();
    const deps: ImportDeps = {
      openSource: counting.openSource,
      repo: gated.store,
      ...TEST_IMPORT_CORE,
      config: { maxRows: 50_000, deadlineMs: 120_000, allowedHosts: ANY_HOST },
      now: () => new Date('2026-03-01T00:00:00.000Z'),
      logger: testLogger(),
    };
    const importerSession = async () =>
      (
        (await db.query('SELECT COMMAND, STATE, INFO FROM information_schema.PROCESSLIST WHERE USER = ?', [
          db.user,
        ])) as ProcessRow[]
      )[0];

    const running = importLegacyGw({ dsn: db.dsn(database), dryRun: false }, deps);

    await vi.waitFor(() => expect(gated.blocked()).toBe(true), { timeout: 20_000 });
    const pulledWhileBlocked = counting.pulled();
    // While the first chunk is held, the server cannot finish sending: it stays inside the SELECT, writing to the net.
    await vi.waitFor(async () => expect((await importerSession())?.STATE).toBe('Writing to net'), { timeout: 20_000 });
    for (let sample = 0; sample < 10; sample++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await importerSession()).toMatchObject({ COMMAND: 'Query', INFO: expect.stringMatching(/^SELECT /) });
    }
    expect(counting.pulled()).toBe(pulledWhileBlocked);
    // The three chunks held and the one waiting for a free place.
    expect(pulledWhileBlocked).toBeLessThanOrEqual(400);
    gated.release();
    const report = await running;

    expect(report.source.rows).toBe(rows);
    expect(report.channels.created).toBe(rows);
    expect(gated.written()).toBe(rows);
    await vi.waitFor(async () => expect(await importerSession()).toBeUndefined());
  });
});
