import { describe, expect, it } from 'vitest';
import type { ImportReport } from '#functions/import-legacygw/report';
import type { LegacyTable, RowSource } from '#functions/import-legacygw/source';
import { checkTokensImport, importSourceTokens } from '#functions/import-legacygw/tokens/source-tokens';
import { DeadlineExceededError, ProxyApiError } from '#shared/errors';

// docs/relay.md, "Keys carried over from the legacy gateway": the token stage of a database import, at its edges.

const REPORT = {
  dryRun: false,
  source: { host: 'db', port: 3306, database: 'gw', rows: 3, kind: 'oneapi' },
  channels: { created: 2, updated: 1, unchanged: 0, edited: 0 },
} as unknown as ImportReport;

/** A source whose `tokens` table has `columns`; reading its rows waits for `signal` when `hang`. */
function source(columns: readonly string[], signal?: AbortSignal): RowSource {
  return {
    origin: { engine: 'mysql', host: 'db', port: 3306, database: 'gw' },
    columns: async (table?: LegacyTable) => new Set(table === 'tokens' ? columns : []),
    count: async () => 1,
    async *rows() {
      await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    },
    close: async () => {},
  };
}

const store = {
  store: { findByHash: async () => undefined, create: async () => true, replaceUnlessEdited: async () => true },
  ratios: { write: async () => {} },
};
const deps = (tokens: typeof store | undefined) => ({
  ...(tokens ? { tokens } : {}),
  channelIdKey: async () => Buffer.alloc(32, 1),
  now: () => new Date('2026-11-27T00:00:00Z'),
  config: { maxRows: 100 },
});

describe('the token stage of a database import', () => {
  it('is refused before the channels when the deployment has no relay keys table', async () => {
    await expect(checkTokensImport(source(['id', 'key']), deps(undefined))).rejects.toThrow(
      new ProxyApiError(400, 'This deployment cannot import tokens'),
    );
  });

  it('is refused before the channels when the tokens table lacks its key column', async () => {
    await expect(checkTokensImport(source(['id', 'name']), deps(store))).rejects.toThrow(/no tokens table/);
  });

  it("answers the deadline's 504 with the channels the import wrote", async () => {
    const controller = new AbortController();
    const deadline = { signal: controller.signal, check: () => controller.signal.throwIfAborted() };
    setTimeout(() => controller.abort(new Error('deadline')), 20);

    const failure = await importSourceTokens(
      source(['id', 'key'], controller.signal),
      REPORT,
      deadline,
      deps(store),
    ).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(DeadlineExceededError);
    expect((failure as DeadlineExceededError).written).toBe(3);
  });
});
