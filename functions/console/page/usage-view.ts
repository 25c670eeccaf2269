import type { Call, UsageFigures, UsageReport } from './api.ts';
import { byId, h, isolated, say, visible } from './dom.ts';

export interface UsageViewDeps {
  call: () => Call;
  fail: (error: unknown, target: HTMLElement) => void;
}

const count = (n: number) => n.toLocaleString('en');
/** A channel id is 64 hex characters: its first 10 tell channels apart on screen; the title holds it whole. */
const shortId = (id: string | null) => (id === null ? '(none answered)' : `${id.slice(0, 10)}…`);

/**
 * The usage query for a period typed as two UTC dates: `from` at 00:00, `to` through 23:59:59.999; an empty field
 * leaves the API's default (the last 24 hours).
 */
export function usagePath(from: string, to: string): string {
  const params = new URLSearchParams({ per_page: '20' });
  if (from !== '') params.set('from', `${from}T00:00:00Z`);
  if (to !== '') params.set('to', `${to}T23:59:59.999Z`);
  return `api/usage?${params}`;
}

const tokens = (f: UsageFigures) =>
  count(f.totalTokens) + (f.unknownUsage > 0 ? ` (+${count(f.unknownUsage)} unknown)` : '');

function table(caption: string, headers: string[], rows: (Node | string)[][]): HTMLElement {
  return h(
    'table',
    { class: 'cards' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((text) => h('th', { scope: 'col' }, text)))),
    h(
      'tbody',
      {},
      ...(rows.length === 0
        ? [h('tr', {}, h('td', { colspan: String(headers.length) }, 'No request in this period.'))]
        : rows.map((cells) => h('tr', {}, ...cells.map((cell, i) => h('td', { 'data-label': headers[i] }, cell))))),
    ),
  );
}

/** The usage of a period: totals, per channel, per model, and the newest requests. */
export function usageView(deps: UsageViewDeps) {
  const form = byId<HTMLFormElement>('usage-form');
  const from = byId<HTMLInputElement>('usage-from');
  const to = byId<HTMLInputElement>('usage-to');
  const status = byId('usage-status');
  const error = byId('usage-error');
  const body = byId('usage-body');

  function render(report: UsageReport): void {
    const t = report.totals;
    // A channel by name where the report knows it (a deleted channel keeps its short id); the title has the id.
    const names = new Map(report.byChannel.map((c) => [c.channelId, c.name]));
    const channel = (id: string | null) => {
      const name = names.get(id);
      return name === undefined
        ? h('code', { title: id ?? '' }, shortId(id))
        : h('bdi', { title: id ?? '' }, visible(name));
    };
    const figures: [string, string][] = [
      ['Requests', count(t.requests)],
      ['Errors', count(t.errors)],
      ['Failovers', count(t.failovers)],
      ['Prompt tokens', count(t.promptTokens)],
      ['Completion tokens', count(t.completionTokens)],
      ['Total tokens', count(t.totalTokens)],
      ['Usage unknown', count(t.unknownUsage)],
    ];
    body.replaceChildren(
      h(
        'dl',
        { class: 'counts' },
        ...figures.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
      ),
      ...(report.truncated
        ? [
            h(
              'p',
              { class: 'error' },
              'More requests than one call reads: the figures cover the newest. Choose a shorter period.',
            ),
          ]
        : []),
      table(
        'Per channel',
        ['Channel', 'Requests', 'Errors', 'Failovers', 'Failed attempts', 'Tokens'],
        report.byChannel.map((c) => [
          channel(c.channelId),
          count(c.requests),
          count(c.errors),
          count(c.failovers),
          `${count(c.failedAttempts)} of ${count(c.attempts)}`,
          tokens(c),
        ]),
      ),
      table(
        'Per model',
        ['Model', 'Requests', 'Errors', 'Failovers', 'Tokens'],
        report.byModel.map((m) => [
          isolated(m.model),
          count(m.requests),
          count(m.errors),
          count(m.failovers),
          tokens(m),
        ]),
      ),
      table(
        `Newest requests (${report.records.length} of ${count(report.total)})`,
        ['Time', 'Model', 'Channel', 'Status', 'Tokens', 'Duration'],
        report.records.map((r) => [
          r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
          isolated(r.requestedModel),
          channel(r.channelId ?? null),
          `${r.status}${r.attempts.length > 1 ? ` after ${r.attempts.length} attempts` : ''}`,
          r.totalTokens !== undefined ? count(r.totalTokens) : r.status >= 400 ? 'none' : 'unknown',
          `${count(r.durationMs)} ms`,
        ]),
      ),
    );
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    say(error, '');
    say(status, 'Loading usage…');
    try {
      const report = await deps.call()<UsageReport>('GET', usagePath(from.value, to.value));
      render(report);
      say(status, `Usage from ${report.from} to ${report.to}: ${count(report.totals.requests)} requests.`);
    } catch (failure) {
      say(status, '');
      deps.fail(failure, error);
    }
  });

  return {
    /** Empties the view (on sign-out). */
    reset(): void {
      body.replaceChildren();
      say(status, '');
      say(error, '');
    },
  };
}
