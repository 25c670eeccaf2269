import type { ImportReport, ReportItem, RouteItem, StaleItem } from './api.ts';
import { h } from './dom.ts';
import { INCOMPLETE_ROUTES, noRouteLostSentence } from './route-words.ts';

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
    ['Routes kept', report.routes.kept],
    ['Routes changed', report.routes.changed],
    ['Routes lost', report.routes.lost],
    // The token import (docs/relay.md, "Keys"), when asked for: the gateway's keys as relay keys.
    ...(report.tokens
      ? ([
          [preview ? 'Keys to create' : 'Keys created', report.tokens.created],
          [preview ? 'Keys to update' : 'Keys updated', report.tokens.updated],
          ['Keys unchanged', report.tokens.unchanged],
          ['Edited keys kept', report.tokens.edited],
          ['Tokens skipped', report.tokens.skipped],
        ] as [string, number][])
      : []),
  ];
  return entries
    .filter((entry): entry is [string, number] => entry[1] !== undefined)
    .map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, count(value))));
}

function itemTable(caption: string, headers: [string, string], rows: [number | string, string][]): HTMLElement {
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

/**
 * The stored channels no row of this table produces any more (docs/console.md, "Stale channels"): said in words, then
 * listed (enabled first). The import leaves them as they are; the page offers to disable the enabled ones.
 */
export function reportStale(report: ImportReport): HTMLElement[] {
  const stale = report.stale;
  if (stale === undefined || stale.count === 0) return [];
  const enabled = stale.items.filter((item) => item.status === 'enabled').length;
  const they = stale.count === 1 ? 'It stays' : 'They stay';
  const parts: HTMLElement[] = [
    h(
      'p',
      { id: 'stale-summary' },
      `${count(stale.count)} stored ${stale.count === 1 ? 'channel is' : 'channels are'} produced by no row of this table any more (the legacy row was deleted, or is now skipped). ${they} as ${stale.count === 1 ? 'it is' : 'they are'}: the import never deletes a channel${enabled > 0 ? `, and ${count(enabled)} of them still ${enabled === 1 ? 'serves' : 'serve'} requests` : ''}.`,
    ),
    h(
      'table',
      {},
      h('caption', {}, `Stale channels (${count(stale.count)})`),
      h(
        'thead',
        {},
        h('tr', {}, ...['Name', 'Provider', 'Status', 'Legacy id'].map((text) => h('th', { scope: 'col' }, text))),
      ),
      h('tbody', {}, ...stale.items.map(staleRow)),
    ),
  ];
  if (stale.itemsTruncated) parts.push(h('p', {}, `Only the first ${count(stale.items.length)} are listed.`));
  return parts;
}

function staleRow(item: StaleItem): HTMLElement {
  return h(
    'tr',
    {},
    h('td', {}, h('bdi', {}, item.name)),
    h('td', {}, item.provider),
    h('td', {}, item.status),
    h('td', {}, item.legacyId === undefined ? '' : String(item.legacyId)),
  );
}

/** Most routes each list shows; the others are counted. */
const ROUTES_LISTED = 20;

const models = (n: number) => `${count(n)} ${n === 1 ? 'model' : 'models'}`;
// Names come from the legacy table: each is isolated (<bdi>) so a right-to-left or bidi control character in one
// cannot reorder the text around it.
const routeName = (item: RouteItem): (Node | string)[] => [
  h('bdi', {}, item.model),
  ' (',
  h('bdi', {}, item.group),
  ')',
];

/** The first ROUTES_LISTED routes as a list, then how many more there are. */
function routeList(
  label: string,
  total: number,
  items: readonly RouteItem[],
  text: (item: RouteItem) => (Node | string)[],
) {
  const shown = items.slice(0, ROUTES_LISTED);
  const list = h('ul', { class: 'routes', 'aria-label': label }, ...shown.map((item) => h('li', {}, ...text(item))));
  const more = total - shown.length;
  return more > 0 ? [list, h('p', {}, `And ${models(more)} more.`)] : [list];
}

/**
 * The routes as a person reads them (docs/console.md): first the models that would have no channel in a group after
 * the import, then those that keep fewer of the legacy rows that served them. `#routes-lost` describes the Import
 * button, so it is read again where the operator confirms.
 */
export function reportRoutes(report: ImportReport): HTMLElement[] {
  const { routes, dryRun } = report;
  const lost = routes.items.filter((item) => item.imported === 0);
  const changed = routes.items.filter((item) => item.imported > 0);
  const parts: HTMLElement[] = [];
  const unread = routes.unreadColumns ?? [];
  if (routes.lost === 0 && unread.length > 0) {
    // A fork's columns decide routes the counts cannot see (a model prefix, say): never "nothing lost" then.
    parts.push(
      h(
        'p',
        { id: 'routes-lost', class: 'lost' },
        `No model loses its channels among the routes this import reads, but the table's ${unread.join(', ')} ${unread.length === 1 ? 'column holds values that were' : 'columns hold values that were'} not read: routes ${unread.length === 1 ? 'it decides' : 'they decide'} are not checked.`,
      ),
    );
  } else if (routes.lost === 0) {
    parts.push(h('p', { id: 'routes-lost' }, noRouteLostSentence(routes)));
  } else {
    const their = routes.lost === 1 ? 'its group' : 'their groups';
    parts.push(
      h(
        'p',
        { id: 'routes-lost', class: 'lost' },
        `${models(routes.lost)} ${dryRun ? 'would have' : 'have'} no channel in ${their} after this import:`,
      ),
      ...routeList('Models that lose every channel', routes.lost, lost, routeName),
    );
  }
  if (routes.changed === 0) {
    const every = routes.lost === 0 ? 'Every model' : 'Every other model';
    parts.push(h('p', {}, `${every} keeps all the legacy channels that served it.`));
  } else {
    const rows = dryRun ? 'legacy rows to import' : 'legacy rows imported';
    parts.push(
      h(
        'p',
        {},
        `${models(routes.changed)} ${dryRun ? 'would keep' : 'keep'} fewer of the legacy channels that served ${routes.changed === 1 ? 'it' : 'them'}:`,
      ),
      ...routeList('Models that keep fewer channels', routes.changed, changed, (item) => [
        ...routeName(item),
        `: ${count(item.imported)} of ${count(item.legacy)} ${rows}`,
      ]),
    );
  }
  if (!routes.complete) {
    parts.push(h('p', {}, INCOMPLETE_ROUTES));
  }
  return parts;
}
