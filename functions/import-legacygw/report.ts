import type { ImportReport, ReportItem, SourceKind } from '#shared/schemas/import-report';
import type { LegacyId, RowOutcome, RowRoutes } from './mapping.ts';

export type { ImportReport, ReportItem };

/** Most entries `items` lists before it is cut off (docs/channel-import.md). */
export const MAX_REPORT_ITEMS = 1_000;

/** Counts outcomes as rows stream past, keeping at most MAX_REPORT_ITEMS items. */
export class ReportBuilder {
  readonly rows = { read: 0, imported: 0, skipped: 0 };
  readonly channels = { created: 0, updated: 0, unchanged: 0, edited: 0 };
  private readonly items: ReportItem[] = [];
  private readonly collapsed: { routes: RowRoutes; identicalTo: LegacyId }[] = [];
  private itemsTruncated = false;

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
   * A row's part in the routes (docs/channel-import.md, "Routes"): whether the import turns it into at least one
   * enabled channel. Called once per row, after its channels are classified.
   */
  rowServed(_row: { routes: RowRoutes }, _served: boolean): void {
    // The route tally (functions/import-legacygw/routes.ts) counts the row here once it is wired in.
  }

  /** A row collapsed into an identical earlier row: it serves its routes when that row does (known by build time). */
  rowCollapsed(row: { routes: RowRoutes }, identicalTo: LegacyId): void {
    this.collapsed.push({ routes: row.routes, identicalTo });
  }

  build(
    dryRun: boolean,
    source: { host: string; port: number; database: string; kind: SourceKind },
    served: ReadonlyMap<LegacyId, boolean> = new Map(),
  ): ImportReport {
    for (const row of this.collapsed) this.rowServed(row, served.get(row.identicalTo) === true);
    this.collapsed.length = 0;
    const { kind, ...origin } = source;
    return {
      dryRun,
      source: { ...origin, rows: this.rows.read, kind },
      rows: { imported: this.rows.imported, skipped: this.rows.skipped },
      channels: { ...this.channels },
      items: this.items,
      itemsTruncated: this.itemsTruncated,
    };
  }

  private addItem(item: ReportItem): void {
    if (this.items.length < MAX_REPORT_ITEMS) this.items.push(item);
    else this.itemsTruncated = true;
  }
}
