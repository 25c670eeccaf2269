import type { ImportReport, ReportItem } from './api.ts';
import { h } from './dom.ts';

const count = (n: number) => n.toLocaleString('en');

/** The counts of an import as a definition list; the wording says whether anything was written. */
export function reportCounts(report: ImportReport): HTMLElement[] {
  const preview = report.dryRun;
  const entries: [string, number | undefined][] = [
    ['Rows read', report.source.rows],
    [preview ? 'Rows to import' : 'Rows imported', report.rows.imported],
    ['Rows skipped', report.rows.skipped],
    [preview ? 'Channels to create' : 'Channels created', report.channels.created],
    [preview ? 'Channels to update' : 'Channels updated', report.channels.updated],
    ['Channels unchanged', report.channels.unchanged],
    ['Edited channels kept', report.channels.edited],
  ];
  return entries
    .filter((entry): entry is [string, number] => entry[1] !== undefined)
    .map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, count(value))));
}

function itemTable(caption: string, headers: [string, string], rows: [number, string][]): HTMLElement {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
    h('tbody', {}, ...rows.map(([id, text]) => h('tr', {}, h('td', {}, String(id)), h('td', {}, text)))),
  );
}

/** One table of the skipped rows (legacy id, reason), one of the rows with warnings (legacy id, warnings). */
export function reportTables(items: readonly ReportItem[]): { skipped: HTMLElement; warnings: HTMLElement } {
  const skipped = items.filter((item) => item.outcome === 'skipped');
  const warned = items.filter((item) => (item.warnings?.length ?? 0) > 0);
  return {
    skipped:
      skipped.length === 0
        ? h('p', {}, 'No row is skipped.')
        : itemTable(
            `Skipped rows (${skipped.length})`,
            ['Legacy id', 'Reason'],
            skipped.map((item) => [item.legacyId, item.outcome === 'skipped' ? item.reason : '']),
          ),
    warnings:
      warned.length === 0
        ? h('p', {}, 'No row has a warning.')
        : itemTable(
            `Rows with warnings (${warned.length})`,
            ['Legacy id', 'Warnings'],
            warned.map((item) => [item.legacyId, (item.warnings ?? []).join('; ')]),
          ),
  };
}
