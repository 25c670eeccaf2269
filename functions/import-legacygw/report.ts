import type { ImportReport, ReportItem } from '#shared/schemas/import-report';
import type { RowOutcome } from './mapping.ts';
import type { SourceKind } from './providers.ts';
import { type RouteRow, RouteTally } from './routes.ts';

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
  rowRoutes(row: RouteRow, served: boolean): void {
    this.routes.add(row, served);
  }

  build(dryRun: boolean, source: { host: string; port: number; database: string; kind: SourceKind }): ImportReport {
    const { kind, ...origin } = source;
    return {
      dryRun,
      source: { ...origin, rows: this.rows.read, kind },
      rows: { imported: this.rows.imported, skipped: this.rows.skipped },
      channels: { ...this.channels },
      items: this.items,
      itemsTruncated: this.itemsTruncated,
      routes: this.routes.build(),
    };
  }

  private addItem(item: ReportItem): void {
    if (this.items.length < MAX_REPORT_ITEMS) this.items.push(item);
    else this.itemsTruncated = true;
  }
}
