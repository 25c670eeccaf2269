import { describe, expect, it } from 'vitest';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import type { OpenSource } from '#functions/import-legacygw/legacy-source';
import { ANY_HOST } from '#shared/allow-list';
import type { ChannelStore, StoredChannel } from '#shared/repositories/channels';
import { TEST_IMPORT_CORE, testChannelId } from '#test/support/channel-ids';
import { sourceRow, type TestRow } from '#test/support/legacy-mapper';

/** A row of One API's table as these tests write it. */
type LegacyRow = TestRow & { id: number };

// docs/channel-import.md, "Routes": which rows the import serves, decided by the core once a row's channels are
// classified, and counted by the report's route tally.

const DSN = 'importer:s3cret@tcp(10.0.0.5:3306)/legacy';
const T0 = '2026-01-01T00:00:00.000Z';

function row(id: number, extra: Partial<LegacyRow> = {}): LegacyRow {
  return { id, type: 1, key: `sk-unit-${id}`, status: 1, base_url: '', models: 'gpt-4o', group: 'default', ...extra };
}

function sourceOf(rows: LegacyRow[]): OpenSource {
  return async () => ({
    origin: { engine: 'mysql', host: '10.0.0.5', port: 3306, database: 'legacy' },
    columns: async () => new Set(['id', 'type', 'key', 'status', 'base_url', 'models', 'name', 'group']),
    count: async () => rows.length,
    async *rows() {
      for (const row of rows) yield sourceRow(row);
    },
    async close() {},
  });
}

function storeOf(initial: StoredChannel[] = []): ChannelStore {
  const items = new Map(initial.map((i) => [i.id, i]));
  return {
    async getCompared(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
    async getMany(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
    async putMany(batch) {
      for (const item of batch) items.set(item.id, item);
      return batch.length;
    },
    async isEmpty() {
      return items.size === 0;
    },
    async scanIds() {
      return [...items.keys()];
    },
    async getSummaries(ids) {
      return new Map(ids.flatMap((id) => (items.has(id) ? [[id, items.get(id)!] as const] : [])));
    },
  };
}

function deps(rows: LegacyRow[], stored: StoredChannel[] = []): ImportDeps {
  return {
    openSource: sourceOf(rows),
    repo: storeOf(stored),
    ...TEST_IMPORT_CORE,
    config: { maxRows: 50_000, deadlineMs: 10_000, allowedHosts: ANY_HOST },
    now: () => new Date(T0),
    logger: { info: () => {} },
  };
}

/** A channel of `row`'s key `index` as an operator left it after editing it through the review API. */
function edited(legacy: LegacyRow, key: string, status: 'enabled' | 'disabled'): StoredChannel {
  return {
    id: testChannelId(legacy.id, key),
    provider: 'openai',
    legacyType: 1,
    name: `edited ${legacy.id}`,
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o'],
    key,
    status,
    source: { legacyId: legacy.id, host: '10.0.0.5', database: 'legacy' },
    createdAt: T0,
    updatedAt: T0,
    editedAt: T0,
  };
}

async function routesOf(rows: LegacyRow[], stored: StoredChannel[] = [], dryRun = true) {
  return (await importLegacyGw({ dsn: DSN, dryRun }, deps(rows, stored))).routes;
}

describe('importLegacyGw: routes', () => {
  it('names each enabled row’s groups and models, reading the group column as the gateway does', async () => {
    const routes = await routesOf([
      row(1, { group: 'default, night shift', models: 'gpt-4o, gpt-4o-mini,' }),
      row(2, { group: '', models: 'claude-3-haiku' }),
      row(3, { group: null, models: 'claude-3-haiku' }),
    ]);

    expect(routes).toEqual({
      total: 5,
      kept: 5,
      changed: 0,
      lost: 0,
      items: [],
      itemsTruncated: false,
      complete: true,
    });
  });

  it('counts no route for a disabled row, so a model only disabled rows list is neither kept nor lost', async () => {
    const routes = await routesOf([row(1, { status: 2, models: 'old-model' }), row(2, { status: 3, type: 999 })]);

    expect(routes).toMatchObject({ total: 0, lost: 0, items: [] });
  });

  it.each([
    { reason: 'an unknown type', skipped: { type: 999 } },
    { reason: 'no API key', skipped: { key: ' \n ' } },
  ])('loses the routes only a row skipped for $reason serves', async ({ skipped }) => {
    const routes = await routesOf([row(1), row(2, { models: 'only-here', ...skipped })]);

    expect(routes.items).toEqual([{ group: 'default', model: 'only-here', legacy: 1, imported: 0 }]);
    expect(routes).toMatchObject({ lost: 1, kept: 1 });
  });

  it('keeps the routes of a row identical to an earlier row, served as that row is', async () => {
    const routes = await routesOf([row(1, { group: 'vip' }), row(2, { key: 'sk-unit-1', group: 'vip', name: 'copy' })]);

    expect(routes).toMatchObject({ total: 1, kept: 1, lost: 0, items: [] });
  });

  it('counts many copies of a row, collapsed into it before it is classified, as that many rows served as it is', async () => {
    const copies = Array.from({ length: 500 }, (_, i) =>
      row(i + 2, { key: 'sk-unit-1', group: i % 2 === 0 ? 'vip,default' : ' default , vip', name: `copy ${i}` }),
    );
    const disabledCopy = row(600, { key: 'sk-unit-1', group: 'vip,default', status: 2 });

    const routes = await routesOf([row(1, { group: 'default,vip' }), ...copies, disabledCopy]);

    expect(routes).toMatchObject({ total: 2, kept: 2, lost: 0, complete: true });
  });

  it('counts copies of a row that became no enabled channel as lost routes of every copy', async () => {
    const original = row(1, { group: 'vip' });
    const copies = Array.from({ length: 3 }, (_, i) =>
      row(i + 2, { key: 'sk-unit-1', group: 'vip', name: `copy ${i}` }),
    );

    const routes = await routesOf([original, ...copies], [edited(original, 'sk-unit-1', 'disabled')]);

    expect(routes.items).toEqual([{ group: 'vip', model: 'gpt-4o', legacy: 4, imported: 0 }]);
  });

  it('counts a multi-key row once per route, served when any of its channels is enabled', async () => {
    const multi = row(2, { key: 'sk-unit-2a\nsk-unit-2b\nsk-unit-2c' });
    const stored = [edited(multi, 'sk-unit-2a', 'disabled'), edited(multi, 'sk-unit-2b', 'disabled')];

    const routes = await routesOf([row(1, { type: 999 }), multi], stored);

    expect(routes.items).toEqual([{ group: 'default', model: 'gpt-4o', legacy: 2, imported: 1 }]);
  });

  it('loses a route whose only row is kept as edited but was disabled by the operator', async () => {
    const only = row(1, { models: 'gpt-4o', group: 'vip' });

    const disabled = await routesOf([only], [edited(only, 'sk-unit-1', 'disabled')]);
    const enabled = await routesOf([only], [edited(only, 'sk-unit-1', 'enabled')]);

    expect(disabled).toMatchObject({ lost: 1, items: [{ group: 'vip', model: 'gpt-4o', legacy: 1, imported: 0 }] });
    expect(enabled).toMatchObject({ kept: 1, lost: 0, items: [] });
  });

  it('serves a route through rows imported, unchanged and updated alike, and reports a real import as its dry run', async () => {
    const rows = [row(1), row(2, { models: 'gpt-4o,gpt-4o-mini' }), row(3, { type: 0, models: 'gpt-4o-mini' })];
    const store = storeOf();
    const run = (dryRun: boolean, source = rows) =>
      importLegacyGw({ dsn: DSN, dryRun }, { ...deps(source), repo: store });

    const preview = await run(true);
    const first = await run(false);
    const again = await run(false, [row(1, { name: 'renamed' }), ...rows.slice(1)]);

    expect(first.routes).toEqual(preview.routes);
    expect(again.channels).toMatchObject({ updated: 1, unchanged: 1 });
    expect(again.routes).toEqual(preview.routes);
    expect(preview.routes).toMatchObject({
      total: 2,
      kept: 1,
      changed: 1,
      lost: 0,
      items: [{ group: 'default', model: 'gpt-4o-mini', legacy: 2, imported: 1 }],
    });
  });

  it('counts the rows of every chunk, past the first 100 channels', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => row(i + 1, { models: `model-${i % 10}` }));

    const routes = await routesOf(rows, [], false);

    expect(routes).toMatchObject({ total: 10, kept: 10, lost: 0 });
  });
});
