import type { ImportReport, ReportItem, SourceKind, StaleReport } from '#shared/schemas/import-report';
import type { LegacyId, RowOutcome, RowRoutes } from './mapping.ts';
import { type RouteRow, RouteTally, rowGroups } from './routes.ts';

export type { ImportReport, ReportItem };

/** Most entries `items` lists before it is cut off (docs/channel-import.md). */
export const MAX_REPORT_ITEMS = 1_000;

/** Counts outcomes and routes as rows stream past, keeping at most MAX_REPORT_ITEMS items. */
export class ReportBuilder {
  readonly rows = { read: 0, imported: 0, skipped: 0 };
  readonly channels = { created: 0, updated: 0, unchanged: 0, edited: 0 };
  private readonly items: ReportItem[] = [];
  private readonly collapsed: { routes: RouteRow; identicalTo: LegacyId }[] = [];
  private itemsTruncated = false;
  private readonly routes = new RouteTally();

  addRow(outcome: RowOutcome): void {
    this.rows.read += 1;
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
   * the import turns the row into at least one enabled channel; false for a skipped row.
   */
  rowServed(row: { routes: RowRoutes }, served: boolean): void {
    this.routes.add(routeRow(row.routes), served);
  }

  /** A row collapsed into an identical earlier row: it serves its routes when that row does (known by build time). */
  rowCollapsed(row: { routes: RowRoutes }, identicalTo: LegacyId): void {
    this.collapsed.push({ routes: routeRow(row.routes), identicalTo });
  }

  build(
    dryRun: boolean,
    source: { host: string; port: number; database: string; kind: SourceKind },
    unserved: ReadonlySet<LegacyId>,
    unread: readonly string[] = [],
    stale?: StaleReport,
  ): ImportReport {
    // A row collapses only into an imported row, and every imported row is classified by now: it serves its routes
    // unless it is among those that became no enabled channel.
    for (const row of this.collapsed) this.routes.add(row.routes, !unserved.has(row.identicalTo));
    this.collapsed.length = 0;
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

  private addItem(item: ReportItem): void {
    if (this.items.length < MAX_REPORT_ITEMS) this.items.push(item);
    else this.itemsTruncated = true;
  }
}

function routeRow(routes: RowRoutes): RouteRow {
  return { groups: rowGroups(routes.group), models: routes.models, enabled: routes.enabled };
}
