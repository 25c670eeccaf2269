import type { RouteItem, RoutesReport } from '#shared/schemas/import-report';

export type { RouteItem, RoutesReport };

/*
 * Routes (docs/channel-import.md, "Routes"): a gateway sends a request for a model, from a caller in a group, to one
 * of its enabled channels that list that model in that group. The report counts, for every (group, model) pair an
 * enabled legacy row names, how many enabled legacy rows serve it and how many of those the import turns into at
 * least one enabled channel, so an operator sees which models the import would leave without a channel.
 */

/** Most route entries the report lists before `itemsTruncated` (lost ones first, then changed ones). */
export const MAX_ROUTE_ITEMS = 1_000;

/**
 * Most distinct routes counted. A real gateway names a few thousand at most (groups × models); a hostile table could
 * name one per row and model, and the tally must not grow without bound. Routes past this many are not counted and
 * the report says `complete: false`.
 */
export const MAX_TRACKED_ROUTES = 100_000;

/**
 * Most distinct groups of one row that are counted. The gateways' group lists hold a handful; a 64 KiB `group` column
 * can name about 16,600, each paired with each of the row's models. Groups past this many are not counted (the
 * report says `complete: false`), and the column is not split past them.
 */
export const MAX_ROUTE_GROUPS_PER_ROW = 1_000;

/**
 * Most (group, model) pairs one import looks at, over all its rows: the tally's work is bounded whatever each row
 * holds, so it cannot carry an import past its deadline (review 5: 300 rows of 16,600 groups × 1,000 models were
 * 5 billion pairs, a minute of work). A row whose pairs no longer fit is not counted (`complete: false`); a smaller
 * later row still is. 4 million pairs took 60 ms on the 2-core test machine, so 40 million stay near a second even
 * under load; a real gateway's rows name far fewer (50,000 channels of 100 models in 3 groups are 15 million, and
 * rows identical to an earlier one count their pairs again).
 */
export const MAX_ROUTE_PAIRS = 40_000_000;

/**
 * Longest group or model name a route carries, in code points; a longer one is cut to this with a trailing "…". The
 * import skips a row naming a longer model, but that row's routes still count, and a report of 1,000 routes must stay
 * far below Lambda's 6 MB response limit whatever a hostile table holds (a `group` column may hold 64 KiB).
 */
export const MAX_ROUTE_NAME_CHARS = 256;

/** The group every caller without another one is in; a row with no group serves it. */
export const DEFAULT_GROUP = 'default';

/**
 * The groups a row's `group` column names: comma-separated, each trimmed, empties dropped, each once. None at all
 * (NULL, empty, only commas and spaces) is the default group. The gateways split on "," without trimming, but their
 * editors save the list without spaces, so "default, vip" is read as the operator meant it.
 */
export function rowGroups(group: string | null | undefined, max = Number.POSITIVE_INFINITY): string[] {
  const groups = new Set<string>();
  const text = group ?? '';
  // Read a part at a time, and no further than one group past `max`: a 64 KiB column is never split whole.
  for (let start = 0; start <= text.length && groups.size <= max; ) {
    const comma = text.indexOf(',', start);
    const end = comma === -1 ? text.length : comma;
    const name = text.slice(start, end).trim();
    if (name !== '') groups.add(name);
    start = end + 1;
  }
  return groups.size === 0 ? [DEFAULT_GROUP] : [...groups];
}

/** What the tally needs of one legacy row. */
export interface RouteRow {
  readonly groups: readonly string[];
  readonly models: readonly string[];
  /** Enabled in the legacy gateway (status 1, not deleted): only enabled rows route requests. */
  readonly enabled: boolean;
}

/** How many enabled legacy rows serve a route, and how many of those the import turns into an enabled channel. */
interface RouteCount {
  legacy: number;
  imported: number;
  /** The last row counted (the tally's count of rows added), so a row counts once. */
  lastRow: number;
}

/**
 * Counts routes as rows go past, in any order (a row is added once its channels are classified). Memory is one
 * entry per distinct (group, model), at most MAX_TRACKED_ROUTES; work is at most MAX_ROUTE_PAIRS pairs per import.
 */
export class RouteTally {
  // Per group, then per model: no separator is needed between two free-text names.
  private readonly routes = new Map<string, Map<string, RouteCount>>();
  private tracked = 0;
  private complete = true;
  private rowsAdded = 0;
  private pairsLeft: number;

  constructor(
    private readonly bounds: { maxRoutes: number; maxPairs: number; maxGroupsPerRow: number } = {
      maxRoutes: MAX_TRACKED_ROUTES,
      maxPairs: MAX_ROUTE_PAIRS,
      maxGroupsPerRow: MAX_ROUTE_GROUPS_PER_ROW,
    },
  ) {
    this.pairsLeft = bounds.maxPairs;
  }

  /**
   * Adds one legacy row, or `rows` identical ones (rows collapsed into one row are counted together). `served`: the
   * import turns this row into at least one enabled channel (imported, updated, unchanged, or kept as edited with the
   * operator's status enabled). A disabled row names no route. Past a bound the row is counted in part or not at
   * all, and the report says so.
   */
  add(row: RouteRow, served: boolean, rows = 1): void {
    if (!row.enabled) return;
    let groups = row.groups;
    if (groups.length > this.bounds.maxGroupsPerRow) {
      groups = groups.slice(0, this.bounds.maxGroupsPerRow);
      this.complete = false;
    }
    const pairs = groups.length * row.models.length;
    if (pairs > this.pairsLeft) {
      this.complete = false;
      return;
    }
    this.pairsLeft -= pairs;
    // A row counts once per route, even when it names a group or model twice (or two long names cut to one).
    const stamp = ++this.rowsAdded;
    for (const groupName of groups) {
      const group = boundedName(groupName);
      let byModel = this.routes.get(group);
      if (byModel === undefined && this.tracked >= this.bounds.maxRoutes) {
        this.complete = false;
        continue;
      }
      for (const modelName of row.models) {
        const model = boundedName(modelName);
        let count = byModel?.get(model);
        if (count === undefined) {
          if (this.tracked >= this.bounds.maxRoutes) {
            this.complete = false;
            continue;
          }
          if (byModel === undefined) {
            byModel = new Map();
            this.routes.set(group, byModel);
          }
          count = { legacy: 0, imported: 0, lastRow: 0 };
          byModel.set(model, count);
          this.tracked += 1;
        }
        if (count.lastRow === stamp) continue;
        count.lastRow = stamp;
        count.legacy += rows;
        if (served) count.imported += rows;
      }
    }
  }

  /** The report's `routes`: the totals, then every lost route and every changed one (at most MAX_ROUTE_ITEMS). */
  build(): RoutesReport {
    const lost: RouteItem[] = [];
    const changed: RouteItem[] = [];
    for (const [group, byModel] of this.routes) {
      for (const [model, { legacy, imported }] of byModel) {
        if (imported === 0) lost.push({ group, model, legacy, imported });
        else if (imported < legacy) changed.push({ group, model, legacy, imported });
      }
    }
    const items = [...lost.sort(byModelThenGroup), ...changed.sort(byModelThenGroup)];
    return {
      total: this.tracked,
      kept: this.tracked - lost.length - changed.length,
      changed: changed.length,
      lost: lost.length,
      items: items.slice(0, MAX_ROUTE_ITEMS),
      itemsTruncated: items.length > MAX_ROUTE_ITEMS,
      complete: this.complete,
    };
  }
}

// UTF-16 length is at least the code point count, so the common short name is returned without counting.
function boundedName(name: string): string {
  if (name.length <= MAX_ROUTE_NAME_CHARS) return name;
  const codePoints = [...name];
  if (codePoints.length <= MAX_ROUTE_NAME_CHARS) return name;
  return `${codePoints.slice(0, MAX_ROUTE_NAME_CHARS - 1).join('')}…`;
}

// Code-unit order, the same whatever the runtime's locale; a model's groups stay together.
function byModelThenGroup(a: RouteItem, b: RouteItem): number {
  return compare(a.model, b.model) || compare(a.group, b.group);
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
