import type { RowOutcome } from './mapping.ts';
import type { SourceKind } from './providers.ts';

/** Most entries `items` lists before it is cut off (SPEC 3.5). */
export const MAX_REPORT_ITEMS = 1_000;

/** One noteworthy row: every skipped row and every imported row with warnings. Never carries a value of the row. */
export type ReportItem =
  | { legacyId: number; outcome: 'skipped'; reason: string; warnings?: string[] }
  | { legacyId: number; outcome: 'imported'; channels: number; warnings: string[] };

/** The `data` of a successful import response (SPEC 3.5). */
export interface ImportReport {
  dryRun: boolean;
  /** `kind`: whose `channels` table was detected, the legacy gateway's or New API's. */
  source: { host: string; port: number; database: string; rows: number; kind: SourceKind };
  rows: { imported: number; skipped: number };
  /** `edited`: existing channels changed through the review API since, left untouched. */
  channels: { created: number; updated: number; unchanged: number; edited: number };
  items: ReportItem[];
  itemsTruncated: boolean;
}

/** Counts outcomes as rows stream past, keeping at most MAX_REPORT_ITEMS items. */
export class ReportBuilder {
  readonly rows = { read: 0, imported: 0, skipped: 0 };
  readonly channels = { created: 0, updated: 0, unchanged: 0, edited: 0 };
  private readonly items: ReportItem[] = [];
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

  build(dryRun: boolean, source: { host: string; port: number; database: string; kind: SourceKind }): ImportReport {
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
