import { describe, expect, it } from 'vitest';
import {
  MAX_ROUTE_GROUPS_PER_ROW,
  MAX_ROUTE_ITEMS,
  MAX_ROUTE_NAME_CHARS,
  MAX_ROUTE_PAIRS,
  MAX_TRACKED_ROUTES,
  type RouteRow,
  RouteTally,
  rowGroups,
} from '#functions/import-legacygw/routes';

// docs/channel-import.md, "Routes": the (group, model) pairs enabled legacy rows serve, and what the import keeps.

const enabledRow = (groups: string[], models: string[]): RouteRow => ({ groups, models, enabled: true });

describe('rowGroups', () => {
  it.each([
    { group: 'default', groups: ['default'] },
    { group: 'default,vip', groups: ['default', 'vip'] },
    { group: ' default , vip ', groups: ['default', 'vip'] },
    { group: 'night shift,vip', groups: ['night shift', 'vip'] },
    { group: 'vip,,vip, ', groups: ['vip'] },
    { group: '', groups: ['default'] },
    { group: ' , ,', groups: ['default'] },
    { group: null, groups: ['default'] },
    { group: undefined, groups: ['default'] },
  ])('reads $group as $groups', ({ group, groups }) => {
    expect(rowGroups(group)).toEqual(groups);
  });

  it('reads no further than one group past its bound, so a 64 KiB column is not split whole', () => {
    const column = Array.from({ length: 16_000 }, (_, i) => `g${i}`).join(',');

    expect(rowGroups(column, 10)).toEqual(Array.from({ length: 11 }, (_, i) => `g${i}`));
  });

  it('keeps case and inner spaces: groups are names the gateway compares exactly', () => {
    expect(rowGroups('VIP,vip, Free Tier')).toEqual(['VIP', 'vip', 'Free Tier']);
  });
});

describe('RouteTally', () => {
  it('reports nothing for no rows', () => {
    expect(new RouteTally().build()).toEqual({
      total: 0,
      kept: 0,
      changed: 0,
      lost: 0,
      items: [],
      itemsTruncated: false,
      complete: true,
    });
  });

  it('counts one route per group and model of a row, each once, kept when the row is served', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['default', 'vip', 'vip'], ['gpt-4o', 'gpt-4o-mini', 'gpt-4o']), true);

    expect(tally.build()).toEqual({
      total: 4,
      kept: 4,
      changed: 0,
      lost: 0,
      items: [],
      itemsTruncated: false,
      complete: true,
    });
  });

  it('reads a group with spaces and an empty group as the rows name them', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(rowGroups(' night shift ,'), ['gpt-4o']), false);
    tally.add(enabledRow(rowGroups(''), ['gpt-4o']), false);

    expect(tally.build().items).toEqual([
      { group: 'default', model: 'gpt-4o', legacy: 1, imported: 0 },
      { group: 'night shift', model: 'gpt-4o', legacy: 1, imported: 0 },
    ]);
  });

  it('ignores disabled rows: a disabled row routes nothing, whether or not the import serves it', () => {
    const tally = new RouteTally();

    tally.add({ groups: ['default'], models: ['gpt-4o'], enabled: false }, true);
    tally.add({ groups: ['default'], models: ['claude-3-haiku'], enabled: false }, false);
    tally.add(enabledRow(['default'], ['gpt-4o']), true);

    expect(tally.build()).toMatchObject({ total: 1, kept: 1, changed: 0, lost: 0, items: [] });
  });

  it('calls a route lost when none of its rows is served, changed when some are, kept when all are', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['default'], ['only-on-fork']), false);
    tally.add(enabledRow(['vip'], ['gpt-4o']), true);
    tally.add(enabledRow(['vip'], ['gpt-4o']), true);
    tally.add(enabledRow(['vip'], ['gpt-4o']), false);
    tally.add(enabledRow(['default'], ['gpt-4o-mini']), true);

    expect(tally.build()).toEqual({
      total: 3,
      kept: 1,
      changed: 1,
      lost: 1,
      items: [
        { group: 'default', model: 'only-on-fork', legacy: 1, imported: 0 },
        { group: 'vip', model: 'gpt-4o', legacy: 3, imported: 2 },
      ],
      itemsTruncated: false,
      complete: true,
    });
  });

  it('keeps the route of a row that collapsed into an identical served row: the core calls it served', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['default'], ['gpt-4o']), true);
    tally.add(enabledRow(['default'], ['gpt-4o']), true);

    expect(tally.build()).toMatchObject({ kept: 1, changed: 0, lost: 0, items: [] });
  });

  it('counts a row once per route however many keys (and channels) it has', () => {
    const tally = new RouteTally();

    // A row of three keys is one row: one add, whatever channels it becomes.
    tally.add(enabledRow(['default'], ['gpt-4o']), true);
    tally.add(enabledRow(['default'], ['gpt-4o']), false);

    expect(tally.build().items).toEqual([{ group: 'default', model: 'gpt-4o', legacy: 2, imported: 1 }]);
  });

  it('loses the route of a row kept as edited but disabled by the operator (the core calls it not served)', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['default'], ['gpt-4o']), false);

    expect(tally.build()).toMatchObject({ lost: 1, items: [{ group: 'default', model: 'gpt-4o' }] });
  });

  it('lists every lost route before every changed one, each in model then group order, whatever the row order', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['vip'], ['b-model']), true);
    tally.add(enabledRow(['vip'], ['b-model']), false);
    tally.add(enabledRow(['vip', 'default'], ['z-model', 'a-model']), false);
    tally.add(enabledRow(['default'], ['b-model']), true);
    tally.add(enabledRow(['default'], ['b-model']), false);

    expect(tally.build().items.map((i) => `${i.model} (${i.group})`)).toEqual([
      'a-model (default)',
      'a-model (vip)',
      'z-model (default)',
      'z-model (vip)',
      'b-model (default)',
      'b-model (vip)',
    ]);
  });

  it('lists at most 1,000 routes, lost ones first, then says the list was truncated; the counts stay exact', () => {
    const tally = new RouteTally();
    const models = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

    tally.add(enabledRow(['default'], models('changed', 600)), true);
    tally.add(enabledRow(['default'], models('changed', 600)), false);
    tally.add(enabledRow(['default'], models('lost', 700)), false);
    tally.add(enabledRow(['default'], models('kept', 5)), true);

    const routes = tally.build();
    expect(routes).toMatchObject({ total: 1_305, kept: 5, changed: 600, lost: 700, itemsTruncated: true });
    expect(routes.items).toHaveLength(MAX_ROUTE_ITEMS);
    expect(routes.items.slice(0, 700).every((i) => i.imported === 0)).toBe(true);
    expect(routes.items.slice(700).every((i) => i.imported === 1 && i.legacy === 2)).toBe(true);
  });

  it('cuts a group or model name over 256 characters, so 1,000 routes of a hostile table stay a small report', () => {
    const tally = new RouteTally();
    const long = (c: string) => c.repeat(40_000);
    const exactly = '😀'.repeat(MAX_ROUTE_NAME_CHARS);

    tally.add(enabledRow([long('g')], [long('m'), exactly]), false);
    tally.add(enabledRow([`${long('g')}-other`], [long('m')]), false);

    const items = tally.build().items;
    const cut = (c: string) => `${c.repeat(MAX_ROUTE_NAME_CHARS - 1)}…`;
    expect(items).toEqual([
      { group: cut('g'), model: cut('m'), legacy: 2, imported: 0 },
      { group: cut('g'), model: exactly, legacy: 1, imported: 0 },
    ]);
  });

  it('keeps its largest report, 1,000 routes of the longest names, near 1 MB: far below a Lambda response', () => {
    const tally = new RouteTally();
    const groups = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(5_000, 'g'));
    const models = Array.from({ length: 40 }, (_, i) => `${i}`.padEnd(5_000, 'm'));

    tally.add(enabledRow(groups, models), false);

    const routes = tally.build();
    expect(routes).toMatchObject({ lost: 1_600, itemsTruncated: true });
    expect(Buffer.byteLength(JSON.stringify(routes))).toBeLessThan(1.1 * 1024 * 1024);
  });

  it('stops counting new routes past its bound and says the figures are incomplete, still counting known ones', () => {
    const tally = new RouteTally();
    const names = Array.from({ length: 1_000 }, (_, i) => `m${i}`);
    const groups = Array.from({ length: MAX_TRACKED_ROUTES / 1_000 }, (_, i) => `g${i}`);

    tally.add(enabledRow(groups, names), true);
    tally.add(enabledRow(['g0', 'one-more-group'], ['m0', 'one-more-model']), false);

    const routes = tally.build();
    expect(routes).toMatchObject({ total: MAX_TRACKED_ROUTES, changed: 1, lost: 0, complete: false });
    expect(routes.items).toEqual([{ group: 'g0', model: 'm0', legacy: 2, imported: 1 }]);
  });

  it('counts no more than its bound of groups of one row, and says the figures are incomplete', () => {
    const tally = new RouteTally();
    const groups = Array.from({ length: MAX_ROUTE_GROUPS_PER_ROW + 1 }, (_, i) => `g${i}`);

    tally.add(enabledRow(groups, ['gpt-4o']), false);

    expect(tally.build()).toMatchObject({
      total: MAX_ROUTE_GROUPS_PER_ROW,
      lost: MAX_ROUTE_GROUPS_PER_ROW,
      complete: false,
    });
  });

  it('looks at no more pairs than its bound in one import: a row that no longer fits is not counted, a smaller one is', () => {
    const tally = new RouteTally({ maxRoutes: 1_000_000, maxPairs: 10, maxGroupsPerRow: 1_000 });

    tally.add(enabledRow(['a', 'b'], ['m1', 'm2', 'm3', 'm4']), true);
    tally.add(enabledRow(['c', 'd'], ['m1', 'm2']), false);
    tally.add(enabledRow(['e'], ['m1', 'm2']), false);

    expect(tally.build()).toMatchObject({ total: 10, kept: 8, lost: 2, complete: false });
  });

  it('looks at a bounded number of pairs whatever its rows hold: 300 rows of 16,600 groups × 1,000 models end in seconds, not minutes', () => {
    const tally = new RouteTally();
    const groups = Array.from({ length: 16_600 }, (_, i) => `g${i}`);
    const models = Array.from({ length: 1_000 }, (_, i) => `m${i}`);
    const started = performance.now();

    for (let row = 0; row < 300; row++) tally.add(enabledRow(groups, models), row % 2 === 0);

    // Measured about 0.3 s here; the bound is for a loaded machine.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(tally.build()).toMatchObject({ total: MAX_TRACKED_ROUTES, complete: false });
    expect(MAX_ROUTE_PAIRS).toBeLessThan(300 * 1_000 * 1_000);
  });

  it('counts identical rows together: n rows served add n to legacy and imported', () => {
    const tally = new RouteTally();

    tally.add(enabledRow(['vip'], ['gpt-4o']), true, 49_999);
    tally.add(enabledRow(['vip'], ['gpt-4o']), false);

    expect(tally.build().items).toEqual([{ group: 'vip', model: 'gpt-4o', legacy: 50_000, imported: 49_999 }]);
  });
});
