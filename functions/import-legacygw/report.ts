import { isServable, servabilityReason } from '#shared/relay/providers/index';
import type {
  ImportReport,
  NotServableProvider,
  ReportItem,
  SourceKind,
  StaleReport,
} from '#shared/schemas/import-report';
import type { LegacyId, RowOutcome, RowRoutes } from './mapping.ts';
import { MAX_ROUTE_GROUPS_PER_ROW, type RouteRow, RouteTally, rowGroups } from './routes.ts';

export type { ImportReport, ReportItem };

/** Most entries `items` lists before it is cut off (docs/channel-import.md). */
export const MAX_REPORT_ITEMS = 1_000;

/** Counts outcomes and routes as rows stream past, keeping at most MAX_REPORT_ITEMS items. */
export class ReportBuilder {
  readonly rows = { read: 0, imported: 0, skipped: 0 };
  readonly channels = { created: 0, updated: 0, unchanged: 0, edited: 0 };
  private readonly items: ReportItem[] = [];
  private itemsTruncated = false;
  private readonly routes = new RouteTally();
  /** Whether each classified imported row serves its routes (false when any row of that legacy id does not). */
  private readonly served = new Map<LegacyId, boolean>();
  /**
   * Rows collapsed into a row not classified yet, per that row: counted when it is. Rows alike (enabled or not, the
   * same groups; a collapsed row has its target's models) are one entry with a count, so a table of 50,000 copies of
   * one row holds one entry, not 50,000, and tallies it once.
   */
  private readonly waiting = new Map<LegacyId, Map<string, { routes: RouteRow; rows: number }>>();

  addRow(outcome: RowOutcome): void {
    this.rows.read += 1;
    if (outcome.outcome === 'imported') this.countNotServable(outcome.channels);
    if (outcome.outcome === 'skipped') {
      this.rows.skipped += 1;
      const warnings = outcome.warnings.length > 0 ? { warnings: [...outcome.warnings] } : {};
      this.addItem({ legacyId: outcome.legacyId, outcome: 'skipped', reason: outcome.reason, ...warnings });
    } else {
      this.rows.imported += 1;
      if (outcome.warnings.length > 0) {
        this.addItem({
          legacyId: outcome.legacyId,
          outcome: 'imported',
          channels: outcome.channels.length,
          warnings: [...outcome.warnings],
        });
      }
    }
  }

  /**
   * Counts one legacy row's routes, once its channels are classified (docs/channel-import.md, "Routes"). `served`:
   * the import turns the row into at least one enabled channel; false for a skipped row. For an imported row, also
   * counts the rows that collapsed into it while it was being classified.
   */
  rowServed(row: { legacyId: LegacyId; outcome: RowOutcome['outcome']; routes: RowRoutes }, served: boolean): void {
    this.routes.add(routeRow(row.routes), served);
    if (row.outcome !== 'imported') return;
    this.served.set(row.legacyId, (this.served.get(row.legacyId) ?? true) && served);
    const waiting = this.waiting.get(row.legacyId);
    if (waiting === undefined) return;
    this.waiting.delete(row.legacyId);
    const isServed = this.served.get(row.legacyId) === true;
    for (const entry of waiting.values()) this.routes.add(entry.routes, isServed, entry.rows);
  }

  /**
   * A row collapsed into an identical earlier row: it serves its routes when that row does. Counted now when that row
   * is classified, else as soon as it is, so the tally's work is done as the rows are read, within the deadline.
   */
  rowCollapsed(row: { routes: RowRoutes }, identicalTo: LegacyId): void {
    const routes = routeRow(row.routes);
    const served = this.served.get(identicalTo);
    if (served !== undefined) {
      this.routes.add(routes, served);
      return;
    }
    let waiting = this.waiting.get(identicalTo);
    if (waiting === undefined) {
      waiting = new Map();
      this.waiting.set(identicalTo, waiting);
    }
    // Groups in a fixed order, so spellings of one list ("a,b", " b ,a") are one entry.
    const alike = `${routes.enabled ? 'e' : 'd'}${JSON.stringify([...routes.groups].sort())}`;
    const entry = waiting.get(alike);
    if (entry === undefined) waiting.set(alike, { routes, rows: 1 });
    else entry.rows += 1;
  }

  build(
    dryRun: boolean,
    source: { host: string; port: number; database: string; kind: SourceKind },
    unread: readonly string[] = [],
    stale?: StaleReport,
  ): ImportReport {
    // A row collapses only into an imported row, and every imported row is classified by now: nothing still waits
    // unless a classification was never reported, and then its rows serve nothing that can be shown.
    for (const waiting of this.waiting.values()) {
      for (const entry of waiting.values()) this.routes.add(entry.routes, false, entry.rows);
    }
    this.waiting.clear();
    const { kind, ...origin } = source;
    return {
      dryRun,
      source: { ...origin, rows: this.rows.read, kind },
      rows: { imported: this.rows.imported, skipped: this.rows.skipped },
      channels: { ...this.channels },
      items: this.items,
      itemsTruncated: this.itemsTruncated,
      // A fork's columns that held values may decide routes the counts cannot see: said, so "nothing lost" never is.
      routes: unread.length > 0 ? { ...this.routes.build(), unreadColumns: [...unread] } : this.routes.build(),
      ...(stale === undefined ? {} : { stale }),
    };
  }

  /** Enabled channels per provider the relay cannot serve yet (docs/relay.md, "Providers"); they route no request. */
  private readonly notServable = new Map<string, number>();

  private countNotServable(channels: readonly { provider: string; status: string }[]): void {
    for (const channel of channels) {
      if (channel.status !== 'enabled' || isServable(channel.provider)) continue;
      this.notServable.set(channel.provider, (this.notServable.get(channel.provider) ?? 0) + 1);
    }
  }

  /** The providers of enabled channels the relay cannot serve, most channels first (at most 50 providers). */
  notServableProviders(): NotServableProvider[] {
    return [...this.notServable]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 50)
      .map(([provider, channels]) => ({ provider, channels, reason: servabilityReason(provider) ?? '' }));
  }

  private addItem(item: ReportItem): void {
    if (this.items.length < MAX_REPORT_ITEMS) this.items.push(item);
    else this.itemsTruncated = true;
  }
}

function routeRow(routes: RowRoutes): RouteRow {
  // One group past the bound is read, so the tally knows the row had more than it counts.
  const groups = routes.enabled ? rowGroups(routes.group, MAX_ROUTE_GROUPS_PER_ROW) : [];
  return { groups, models: routes.models, enabled: routes.enabled };
}
