import type { ImportReport } from '#shared/schemas/import-report';

/** An import report of `rows` rows, every one imported as one new channel, no item, no route; `parts` override it. */
export function importReport(rows: number, parts: Partial<ImportReport> = {}): ImportReport {
  return {
    dryRun: false,
    source: { host: '', port: 0, database: '', rows, kind: 'oneapi' },
    rows: { imported: rows, skipped: 0 },
    channels: { created: rows, updated: 0, unchanged: 0, edited: 0 },
    items: [],
    itemsTruncated: false,
    routes: { total: 0, kept: 0, changed: 0, lost: 0, items: [], itemsTruncated: false, complete: true },
    ...parts,
  };
}
