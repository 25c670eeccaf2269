import { describe, expect, it } from 'vitest';
import type { ColumnSpec } from '#functions/import-legacygw/families/family';
import { CORE_COLUMNS, LIMITS, settingsColumn } from '#functions/import-legacygw/limits';
import { rowsSource } from '#functions/import-legacygw/rows-source';
import {
  callsOf,
  jsonSize,
  ROWS_BODY_BYTES,
  ROWS_EVENT_BYTES,
  ROWS_PER_CALL,
  type RowCell,
  RowTooLargeError,
  sumReports,
} from '#shared/import-rows';
import type { ImportReport, RouteItem } from '#shared/schemas/import-report';

const spec = (name: string): ColumnSpec => {
  const found = CORE_COLUMNS.find((c) => c.name === name);
  if (found === undefined) throw new Error(name);
  return found;
};

async function read(columns: string[], rows: RowCell[][], select: ColumnSpec[], limit = 100) {
  const out = [];
  for await (const row of rowsSource({ columns, rows }).rows(select, limit)) out.push(row);
  return out;
}

describe('the rows source', () => {
  it('names the columns in lower case and counts the rows', async () => {
    const source = rowsSource({
      columns: ['ID', 'Key'],
      rows: [
        [1, 'a'],
        [2, 'b'],
      ],
    });

    expect([...(await source.columns())]).toEqual(['id', 'key']);
    expect(await source.count()).toBe(2);
    expect(source.origin).toEqual({ engine: 'rows', host: '', port: 0, database: '' });
  });

  it('hands every value over as text or null, integers as their decimal text', async () => {
    const rows = await read(
      ['id', 'type', 'key', 'priority'],
      [
        [7, 1, 'sk-a', -3],
        [8, 1.5, null, 0],
      ],
      [spec('id'), spec('type'), spec('key'), { name: 'priority', kind: 'integer', maxBytes: null }],
    );

    expect(rows).toEqual([
      { values: { id: '7', type: '1', key: 'sk-a', priority: '-3' }, oversize: [] },
      { values: { id: '8', type: '1.5', key: null, priority: '0' }, oversize: [] },
    ]);
  });

  it('reads the rows in id order: NULL first, then by value (text integers beyond 2^53 too), then other text', async () => {
    const rows = await read(
      ['id'],
      [['9007199254740993'], [10], ['x'], [2], [null], ['9007199254740992'], [-1], ['3']],
      [spec('id')],
    );

    expect(rows.map((r) => r.values.id)).toEqual([
      null,
      '-1',
      '2',
      '3',
      '10',
      '9007199254740992',
      '9007199254740993',
      'x',
    ]);
  });

  it('reads at most limit + 1 rows, as the SQL sources do, so the core can refuse a table past its cap', async () => {
    const rows = await read(['id'], [[1], [2], [3], [4]], [spec('id')], 2);

    expect(rows).toHaveLength(3);
  });

  it('drops a value over its byte limit and names the column, counting bytes of UTF-8', async () => {
    const euros = (n: number) => `https://${'€'.repeat(n)}`;
    const rows = await read(
      ['id', 'base_url', 'group'],
      [
        [1, euros(680), 'g'],
        [2, euros(681), 'g'],
        [3, 'https://x', 'g'.repeat(LIMITS.settingsColumnBytes + 1)],
        [4, 'u'.repeat(LIMITS.baseUrlBytes), '😀'.repeat(LIMITS.settingsColumnBytes / 4)],
        [5, 'u', `${'😀'.repeat(LIMITS.settingsColumnBytes / 4)}x`],
      ],
      [spec('id'), spec('base_url'), spec('group')],
    );

    expect(rows.map((r) => r.oversize)).toEqual([[], ['base_url'], ['group'], [], ['group']]);
    expect(rows[1]?.values.base_url).toBeNull();
    expect(rows[3]?.values.group).toHaveLength(LIMITS.settingsColumnBytes / 2);
  });

  it('cuts a name to 65 code points, never inside a surrogate pair, and never calls it oversize', async () => {
    const rows = await read(
      ['id', 'name'],
      [
        [1, '😀'.repeat(100)],
        [2, 'short'],
      ],
      [spec('id'), spec('name')],
    );

    expect(rows[0]?.values.name).toBe('😀'.repeat(65));
    expect(rows[0]?.oversize).toEqual([]);
    expect(rows[1]?.values.name).toBe('short');
  });

  it('selects the family columns by their lower-case names whatever case they were sent in', async () => {
    const rows = await read(['Id', 'CONFIG'], [[1, '{"region":"x"}']], [spec('id'), settingsColumn('config', 'json')]);

    expect(rows[0]?.values).toEqual({ id: '1', config: '{"region":"x"}' });
  });
});

describe('calls of at most 5,000 rows and 5 MiB', () => {
  const columns = ['id', 'key'];

  it('measures a body as UTF-8 and as a JSON string inside the Lambda event', () => {
    expect(jsonSize('{"a":"é"}')).toEqual({ bytes: 10, eventBytes: 9 + 4 + 6 - 1 });
    expect(jsonSize('"😀"')).toEqual({ bytes: 6, eventBytes: 2 * 2 + 12 });
  });

  it('sends a table without rows as one call, so its columns are still checked', () => {
    expect([...callsOf(columns, [], { dryRun: true })]).toEqual([{ columns, rows: [], dryRun: true }]);
  });

  it('cuts calls at 5,000 rows, keeping the order', () => {
    const rows = Array.from({ length: ROWS_PER_CALL * 2 + 1 }, (_, i): RowCell[] => [i, `k${i}`]);

    const calls = [...callsOf(columns, rows, { dryRun: false })];

    expect(calls.map((c) => c.rows.length)).toEqual([ROWS_PER_CALL, ROWS_PER_CALL, 1]);
    expect(calls.flatMap((c) => c.rows)).toEqual(rows);
    expect(calls.every((c) => c.dryRun === false)).toBe(true);
  });

  it('keeps every call within 5 MiB of body and within the event limit, counting quotes twice', () => {
    const quoted = '"'.repeat(200_000);
    const rows = Array.from({ length: 40 }, (_, i): RowCell[] => [i, quoted]);

    const calls = [...callsOf(columns, rows, { dryRun: true })];

    for (const call of calls) {
      const size = jsonSize(JSON.stringify(call));
      expect(size.bytes).toBeLessThanOrEqual(ROWS_BODY_BYTES);
      expect(size.eventBytes).toBeLessThanOrEqual(ROWS_EVENT_BYTES);
    }
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.flatMap((c) => c.rows)).toEqual(rows);
  });

  it('fills a call up to the byte limit exactly, and not one byte more', () => {
    const one = jsonSize(JSON.stringify({ columns, rows: [[1, 'x']], dryRun: true })).bytes;
    const rows: RowCell[][] = [
      [1, 'x'],
      [2, 'x'],
      [3, 'x'],
    ];
    // Two rows: the body of one plus a comma and the second row's 7 bytes.
    const calls = [...callsOf(columns, rows, { dryRun: true, limits: { bytes: one + 1 + 7 } })];

    expect(calls.map((c) => c.rows.length)).toEqual([2, 1]);
    expect(jsonSize(JSON.stringify(calls[0])).bytes).toBe(one + 8);
  });

  it('sends a row that fits no call alone with its largest texts as the oversize marker, so it never blocks the rest', () => {
    // A text of quotes doubles in JSON and doubles again inside the event: 6 MiB of event for 2.4 MiB of text.
    const quotes = (n: number) => '"'.repeat(n);
    const wide = ['id', 'key', 'a', 'b', 'c', 'd'];
    const rows: RowCell[][] = [
      [1, 'sk-1', 'a', 'b', 'c', 'd'],
      [2, quotes(1024 * 1024), quotes(900_000), quotes(700_000), 'small', null],
      [3, 'sk-3', 'a', 'b', 'c', 'd'],
    ];

    const calls = [...callsOf(wide, rows, { dryRun: true })];

    expect(calls.map((c) => c.rows.length)).toEqual([3]);
    // Largest first, and no more than needed: the key, then `a`; `b` fits beside them.
    const sent = calls[0]?.rows[1]?.map((cell) => (typeof cell === 'string' ? `${cell.length} chars` : cell));
    expect(sent).toEqual([
      2,
      { oversizeBytes: 1024 * 1024 },
      { oversizeBytes: 900_000 },
      '700000 chars',
      '5 chars',
      null,
    ]);
    expect(calls[0]?.rows[0]).toEqual(rows[0]);
    const size = jsonSize(JSON.stringify(calls[0]));
    expect(size.bytes).toBeLessThanOrEqual(ROWS_BODY_BYTES);
    expect(size.eventBytes).toBeLessThanOrEqual(ROWS_EVENT_BYTES);
  });

  it('gives the marker the text size in bytes of UTF-8', () => {
    const rows: RowCell[][] = [[1, '\u00e9'.repeat(3 * 1024 * 1024)]];

    const calls = [...callsOf(columns, rows, { dryRun: true })];

    expect(calls[0]?.rows[0]).toEqual([1, { oversizeBytes: 6 * 1024 * 1024 }]);
  });

  it('refuses a row that fits no call even with markers, naming its position', () => {
    const rows: RowCell[][] = [
      [1, 'x'],
      [2, 'y'.repeat(100)],
    ];
    const limits = { bytes: jsonSize(JSON.stringify({ columns, rows: [], dryRun: true })).bytes + 12 };

    expect(() => [...callsOf(columns, rows, { dryRun: true, limits })]).toThrow(RowTooLargeError);
    expect(() => [...callsOf(columns, rows, { dryRun: true, limits })]).toThrow(
      /Row 2 of the channels table is too large/,
    );
  });
});

function report(part: {
  rows?: number;
  imported?: number;
  skipped?: number;
  created?: number;
  items?: ImportReport['items'];
  itemsTruncated?: boolean;
  routes?: Partial<ImportReport['routes']> & { items?: RouteItem[] };
}): ImportReport {
  const routeItems = part.routes?.items ?? [];
  const lost = routeItems.filter((r) => r.imported === 0).length;
  const changed = routeItems.length - lost;
  const total = part.routes?.total ?? routeItems.length;
  return {
    dryRun: true,
    source: { host: '', port: 0, database: '', rows: part.rows ?? 0, kind: 'newapi' },
    rows: { imported: part.imported ?? 0, skipped: part.skipped ?? 0 },
    channels: { created: part.created ?? 0, updated: 1, unchanged: 2, edited: 3 },
    items: part.items ?? [],
    itemsTruncated: part.itemsTruncated ?? false,
    routes: {
      total,
      kept: total - lost - changed,
      changed,
      lost,
      items: routeItems,
      itemsTruncated: false,
      complete: true,
      ...part.routes,
    },
  };
}

describe('adding up the reports of several calls', () => {
  it('returns a single report as it is, every figure exact', () => {
    const one = report({
      rows: 3,
      imported: 2,
      skipped: 1,
      routes: { items: [{ group: 'default', model: 'a', legacy: 1, imported: 0 }] },
    });

    expect(sumReports([one])).toEqual({ ...one, calls: 1, exact: { lost: true, totals: true } });
  });

  it('sums rows, channels and items, and keeps the first report kind and dry run', () => {
    const a = report({
      rows: 5_000,
      imported: 4_999,
      skipped: 1,
      created: 4_999,
      items: [{ legacyId: 7, outcome: 'skipped', reason: 'no API key' }],
    });
    const b = report({
      rows: 10,
      imported: 10,
      created: 12,
      items: [{ legacyId: 5_008, outcome: 'imported', channels: 1, warnings: ['no models'] }],
    });

    const sum = sumReports([a, b]);

    expect(sum).toMatchObject({
      dryRun: true,
      source: { rows: 5_010, kind: 'newapi', host: '', port: 0, database: '' },
      rows: { imported: 5_009, skipped: 1 },
      channels: { created: 5_011, updated: 2, unchanged: 4, edited: 6 },
      items: [...a.items, ...b.items],
      itemsTruncated: false,
      calls: 2,
    });
  });

  it('lists at most 1,000 items and says when more were cut, whether by a call or by the sum', () => {
    const items = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ legacyId: from + i, outcome: 'skipped' as const, reason: 'no API key' }));

    const cutBySum = sumReports([report({ items: items(1, 600) }), report({ items: items(601, 600) })]);
    const cutByCall = sumReports([report({ items: items(1, 10), itemsTruncated: true }), report({})]);

    expect(cutBySum.items).toHaveLength(1_000);
    expect(cutBySum.items.at(-1)?.legacyId).toBe(1_000);
    expect(cutBySum.itemsTruncated).toBe(true);
    expect(cutByCall.itemsTruncated).toBe(true);
  });

  it('sums a route listed by several calls, changed when any call changed it, lost when every listing call lost it', () => {
    const a = report({
      routes: {
        total: 3,
        items: [
          { group: 'default', model: 'gpt-4o', legacy: 1, imported: 0 },
          { group: 'vip', model: 'o1', legacy: 2, imported: 0 },
        ],
      },
    });
    const b = report({
      routes: {
        total: 2,
        items: [
          { group: 'vip', model: 'o1', legacy: 3, imported: 0 },
          { group: 'default', model: 'gpt-4o', legacy: 2, imported: 1 },
        ],
      },
    });

    const { routes, exact } = sumReports([a, b]);

    expect(routes.items).toEqual([
      { group: 'vip', model: 'o1', legacy: 5, imported: 0 },
      { group: 'default', model: 'gpt-4o', legacy: 3, imported: 1 },
    ]);
    expect(routes).toMatchObject({ lost: 1, changed: 1, total: 3, kept: 1 });
    expect(exact).toEqual({ lost: false, totals: false });
  });

  it('says the lost routes are exact when no call lost one, the totals never with several calls', () => {
    const a = report({ routes: { total: 4, items: [{ group: 'default', model: 'm', legacy: 2, imported: 1 }] } });
    const b = report({ routes: { total: 4 } });

    const sum = sumReports([a, b]);

    expect(sum.exact).toEqual({ lost: true, totals: false });
    expect(sum.routes).toMatchObject({ total: 8, lost: 0, changed: 1, kept: 7 });
  });

  it('adds the figures of calls that listed more than 1,000 routes as they are, and says they are not exact', () => {
    const a = report({
      routes: { total: 3_000, lost: 1_500, changed: 0, kept: 1_500, itemsTruncated: true, items: [] },
    });
    const b = report({ routes: { total: 10, items: [{ group: 'g', model: 'm', legacy: 1, imported: 0 }] } });

    const sum = sumReports([a, b]);

    expect(sum.routes).toMatchObject({ lost: 1_501, changed: 0, itemsTruncated: true });
    expect(sum.exact.lost).toBe(false);
  });

  it('refuses to add up no report at all', () => {
    expect(() => sumReports([])).toThrow(/No report/);
  });
});

describe('stale channels over several calls (docs/channel-import.md, "Stale channels")', () => {
  const item = (id: string) => ({ id, name: id, provider: 'openai', status: 'enabled' as const, legacyId: 1 });
  const withStale = (ids: string[], itemsTruncated = false, count = ids.length): ImportReport => ({
    ...report({}),
    ...(ids.length > 0 || count > 0 ? { stale: { count, items: ids.map(item), itemsTruncated } } : {}),
  });

  it('lists only the channels that no call produced: those every call lists', () => {
    const summed = sumReports([withStale(['c2', 'gone']), withStale(['c1', 'gone'])]);

    expect(summed.stale).toEqual({ count: 1, items: [item('gone')], itemsTruncated: false });
  });

  it('has none when one call produced every channel another call calls stale', () => {
    expect(sumReports([withStale(['c2']), withStale([])]).stale).toBeUndefined();
  });

  it('says the list is cut when a call listed only part of its stale channels, counting at most the smallest', () => {
    const summed = sumReports([withStale(['gone'], true, 1_500), withStale(['gone', 'c1'], false, 2)]);

    expect(summed.stale).toEqual({ count: 2, items: [item('gone')], itemsTruncated: true });
  });
});

describe('the oversize marker of a SQLite reader', () => {
  it('is a value over its limit for any column it stands in, never text', async () => {
    const rows = await read(
      ['id', 'key', 'name', 'config'],
      [[1, { oversizeBytes: 2_000_000 }, { oversizeBytes: 70_000 }, { oversizeBytes: 65_537 }]],
      [spec('id'), spec('key'), spec('name'), settingsColumn('config', 'json')],
    );

    expect(rows).toEqual([
      { values: { id: '1', key: null, name: null, config: null }, oversize: ['key', 'name', 'config'] },
    ]);
  });
});
