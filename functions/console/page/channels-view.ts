import type { Call, Channel, ChannelChanges, ChannelPage, ChannelTestResult, Settings } from './api.ts';
import { confirmDialog, editDialog } from './dialogs.ts';
import { byId, h, isolated, say, visible } from './dom.ts';

export interface ChannelsViewDeps {
  call: () => Call;
  fail: (error: unknown, target: HTMLElement) => void;
}

interface Query {
  page: number;
  perPage: number;
  provider: string;
  status: string;
  group: string;
  keyword: string;
}

const MODELS_SHOWN = 6;

/** The list call's query: empty filters are left out (the API reads an empty value as "no filter"). */
export function listPath(query: Query): string {
  const params = new URLSearchParams({ page: String(query.page), per_page: String(query.perPage) });
  for (const [name, value] of [
    ['provider', query.provider],
    ['status', query.status],
    ['group', query.group],
    ['keyword', query.keyword],
  ] as const) {
    if (value !== '') params.set(name, value);
  }
  return `api/channels/?${params}`;
}

const channelPath = (id: string) => `api/channel/${encodeURIComponent(id)}`;

/** A channel test's result as one sentence: status, latency and the upstream's message. */
export function testText(result: ChannelTestResult): string {
  const answer = result.status === 0 ? 'no answer' : `HTTP ${result.status}`;
  const head = `${result.ok ? 'OK' : 'Failed'}: ${answer}, ${result.latencyMs.toLocaleString('en')} ms, model ${result.model || '(none)'}`;
  return result.message ? `${head}. ${visible(result.message)}` : head;
}

/**
 * The status cell: the status; for an auto-disabled channel the relay's reason and the schedule's last re-test; for a
 * channel the re-test enabled again, when it did.
 */
function statusCell(channel: Channel): (Node | string)[] {
  const retest = channel.lastRetest;
  if (channel.status !== 'auto-disabled') {
    const last = channel.statusHistory?.at(-1);
    return last && channel.status === 'enabled'
      ? [channel.status, ` (re-enabled by the re-test, ${last.at})`]
      : [channel.status];
  }
  return [
    h('span', { class: 'flag' }, 'auto-disabled'),
    ` ${visible(channel.statusReason ?? 'by the relay')}${channel.statusChangedAt ? ` (${channel.statusChangedAt})` : ''}`,
    ...(retest && !retest.ok
      ? [
          `; last re-test ${retest.at}: ${retest.status === 0 ? 'no answer' : `HTTP ${retest.status}`}${retest.message ? ` ${visible(retest.message)}` : ''}`,
        ]
      : []),
  ];
}

/** Models as a short text: the first few, then how many more. */
function modelsText(models: readonly string[]): string {
  if (models.length === 0) return 'none';
  const shown = models.slice(0, MODELS_SHOWN).join(', ');
  return models.length > MODELS_SHOWN ? `${shown} and ${models.length - MODELS_SHOWN} more` : shown;
}

const SETTING_NAMES: Record<string, string> = {
  tag: 'tag',
  organization: 'organization',
  systemPrompt: 'system prompt',
  testModel: 'test model',
  apiVersion: 'API version',
  region: 'region',
  projectId: 'project',
  accountId: 'account',
  userId: 'user',
  proxyUrl: 'proxy',
  headerOverride: 'headers',
  paramOverride: 'parameters',
  statusCodeMapping: 'status codes',
  extra: 'other',
};

/** Settings as a short text: mapping count, priority and weight, then the names of the other fields set. */
export function settingsText(settings: Settings | undefined, abbreviated: readonly string[] = []): string {
  const parts: string[] = [];
  const pairs = Object.keys(settings?.modelMapping ?? {}).length;
  if (pairs > 0) parts.push(`${pairs} model mapping${pairs === 1 ? '' : 's'}`);
  if (settings?.priority !== undefined) parts.push(`priority ${settings.priority}`);
  if (settings?.weight !== undefined) parts.push(`weight ${settings.weight}`);
  // The groups by name: they decide who may use the channel.
  const groups = Array.isArray(settings?.groups) ? settings.groups : [];
  if (groups.length > 0) parts.push(`${groups.length === 1 ? 'group' : 'groups'} ${groups.join(', ')}`);
  const others = Object.keys(SETTING_NAMES).filter((field) => settings?.[field] !== undefined);
  if (others.length > 0) parts.push(others.map((field) => SETTING_NAMES[field]).join(', '));
  const text = parts.length === 0 ? 'none' : parts.join('; ');
  return abbreviated.length > 0 ? `${text} (shortened here: ${abbreviated.join(', ')}; Edit shows all)` : text;
}

/** What an empty table says: which filters are set, so the operator knows what to clear. */
export function emptyText(query: Pick<Query, 'provider' | 'status' | 'group' | 'keyword'>): string {
  const set = [
    query.provider === '' ? '' : `provider "${query.provider}"`,
    query.status === '' ? '' : `status ${query.status}`,
    query.group === '' ? '' : `group "${query.group}"`,
    query.keyword === '' ? '' : `keyword "${query.keyword}"`,
  ].filter((part) => part !== '');
  if (set.length === 0) return 'No channel yet: import some above.';
  return `No channel matches ${set.length === 1 ? 'the filter' : 'the filters'} ${set.join(', ')}. Clear ${set.length === 1 ? 'it' : 'them'} to see every channel.`;
}

/**
 * The channel table: filters, pages, masked keys, an "edited" mark, edit, delete one, select and
 * delete many. Selection covers the current page only, so a delete never reaches a row not in view.
 */
export function channelsView(deps: ChannelsViewDeps) {
  const filterForm = byId<HTMLFormElement>('filter-form');
  const provider = byId<HTMLInputElement>('filter-provider');
  const statusFilter = byId<HTMLSelectElement>('filter-status');
  const keyword = byId<HTMLInputElement>('filter-keyword');
  const group = byId<HTMLInputElement>('filter-group');
  const perPage = byId<HTMLSelectElement>('filter-per-page');
  const body = byId('channels-body');
  const selectAll = byId<HTMLInputElement>('select-all');
  const deleteSelected = byId<HTMLButtonElement>('delete-selected');
  const prev = byId<HTMLButtonElement>('page-prev');
  const next = byId<HTMLButtonElement>('page-next');
  const message = byId('channels-status');
  const error = byId('channels-error');
  const providers = new Set<string>();
  const selected = new Set<string>();
  let rows: Channel[] = [];
  let total = 0;
  const query: Query = { page: 1, perPage: 10, provider: '', status: '', group: '', keyword: '' };

  function lastPage(): number {
    return Math.max(1, Math.ceil(total / query.perPage));
  }

  function updateSelection(): void {
    deleteSelected.disabled = selected.size === 0;
    deleteSelected.textContent = selected.size === 0 ? 'Delete selected' : `Delete selected (${selected.size})`;
    selectAll.checked = rows.length > 0 && selected.size === rows.length;
    selectAll.indeterminate = selected.size > 0 && selected.size < rows.length;
  }

  function row(channel: Channel): HTMLTableRowElement {
    const name = visible(channel.name);
    const checkbox = h('input', { type: 'checkbox', 'aria-label': `Select ${name}` });
    checkbox.checked = selected.has(channel.id);
    checkbox.addEventListener('change', () => {
      if (checkbox.checked) selected.add(channel.id);
      else selected.delete(channel.id);
      updateSelection();
    });
    const edit = h('button', { type: 'button', 'data-action': 'edit', 'aria-label': `Edit ${name}` }, 'Edit');
    edit.addEventListener('click', () => openEditor(channel, edit));
    const remove = h(
      'button',
      { type: 'button', class: 'danger', 'data-action': 'delete', 'aria-label': `Delete ${name}` },
      'Delete',
    );
    remove.addEventListener('click', () => deleteOne(channel, remove));
    const test = h('button', { type: 'button', 'data-action': 'test', 'aria-label': `Test ${name}` }, 'Test');
    const result = h('p', { class: 'test-result' });
    test.addEventListener('click', () => runTest(channel, test, result));
    const tr = h(
      'tr',
      { 'data-id': channel.id },
      h('td', {}, checkbox),
      h(
        'td',
        { 'data-label': 'Name' },
        isolated(channel.name),
        ...(channel.editedAt
          ? [' ', h('span', { class: 'badge', title: `Edited ${channel.editedAt}` }, 'edited')]
          : []),
      ),
      h(
        'td',
        { 'data-label': 'Provider' },
        isolated(channel.provider),
        ...(channel.servable === false
          ? [' ', h('span', { class: 'flag', title: channel.servableReason ?? '' }, 'not servable')]
          : []),
      ),
      h('td', { 'data-label': 'Base URL' }, channel.baseUrl ? isolated(channel.baseUrl) : '(none)'),
      h('td', { 'data-label': 'Models' }, isolated(modelsText(channel.models))),
      h('td', { 'data-label': 'Key' }, h('code', {}, isolated(channel.key))),
      h('td', { 'data-label': 'Status', class: `status-${channel.status}` }, ...statusCell(channel)),
      h('td', { 'data-label': 'Settings' }, settingsText(channel.settings, channel.abbreviated)),
      h('td', { 'data-label': 'Actions' }, h('div', { class: 'row' }, edit, test, remove), result),
    );
    return tr;
  }

  function render(): void {
    body.replaceChildren(
      ...(rows.length === 0 ? [h('tr', {}, h('td', { colspan: '9' }, emptyText(query)))] : rows.map(row)),
    );
    for (const channel of rows) providers.add(channel.provider);
    byId('provider-list').replaceChildren(...[...providers].sort().map((p) => h('option', { value: p })));
    say(
      byId('page-info'),
      `Page ${query.page} of ${lastPage()} · ${total.toLocaleString('en')} channel${total === 1 ? '' : 's'}`,
    );
    prev.disabled = query.page <= 1;
    next.disabled = query.page >= lastPage();
    updateSelection();
  }

  /** Loads the current page; a page emptied by deletes falls back to the last page that has rows. */
  async function load(): Promise<boolean> {
    say(error, '');
    try {
      let page = await deps.call()<ChannelPage>('GET', listPath(query));
      if (page.channels.length === 0 && page.total > 0 && query.page > 1) {
        query.page = Math.max(1, Math.ceil(page.total / query.perPage));
        page = await deps.call()<ChannelPage>('GET', listPath(query));
      }
      rows = page.channels;
      total = page.total;
      selected.clear();
      render();
      return true;
    } catch (failure) {
      deps.fail(failure, error);
      return false;
    }
  }

  /** After a reload, puts focus back on the same control of the same channel (its row was rebuilt). */
  function refocus(id: string, action: 'edit' | 'delete'): void {
    const target = body.querySelector<HTMLElement>(`tr[data-id="${CSS.escape(id)}"] [data-action="${action}"]`);
    (target ?? byId('channels-heading')).focus();
  }

  async function openEditor(listed: Channel, opener: HTMLElement): Promise<void> {
    say(message, '');
    // The detail, not the list item: a list item may be shortened, and an edit must start from the whole channel.
    let channel: Channel;
    try {
      channel = await deps.call()<Channel>('GET', channelPath(listed.id));
    } catch (failure) {
      deps.fail(failure, error);
      return;
    }
    const saved = await editDialog(channel, opener, async (changes: ChannelChanges) => {
      await deps.call()<Channel>('PUT', channelPath(channel.id), changes);
    });
    if (!saved) return;
    say(message, `Saved ${visible(channel.name)}.`);
    await load();
    refocus(channel.id, 'edit');
  }

  /** Tests one channel: the result beside its button and, for screen readers, in the table's status line. */
  async function runTest(channel: Channel, button: HTMLButtonElement, result: HTMLElement): Promise<void> {
    const name = visible(channel.name);
    button.disabled = true;
    say(result, '');
    say(message, `Testing ${name}…`);
    try {
      const outcome = await deps.call()<ChannelTestResult>('POST', `${channelPath(channel.id)}/test`);
      const text = testText(outcome);
      result.className = outcome.ok ? 'test-result' : 'test-result error';
      say(result, text);
      say(message, `Test of ${name}: ${text}`);
    } catch (failure) {
      say(message, '');
      deps.fail(failure, error);
    } finally {
      button.disabled = false;
      // A disabled button drops focus to the page: the keyboard user is put back where they were.
      if (document.activeElement === document.body && button.isConnected) button.focus();
    }
  }

  async function deleteOne(channel: Channel, opener: HTMLElement): Promise<void> {
    say(message, '');
    const done = await confirmDialog(
      `Delete ${visible(channel.name)}?`,
      [
        'The channel ',
        isolated(channel.name),
        ' (',
        isolated(channel.provider),
        ') is removed. A later import that maps to it creates it again.',
      ],
      opener,
      () => deps.call()('DELETE', channelPath(channel.id)),
    );
    if (!done) return;
    say(message, `Deleted ${visible(channel.name)}.`);
    await load();
    byId('channels-heading').focus();
  }

  deleteSelected.addEventListener('click', async () => {
    const ids = [...selected];
    if (ids.length === 0) return;
    say(message, '');
    let deleted = 0;
    const done = await confirmDialog(
      `Delete ${ids.length} channel${ids.length === 1 ? '' : 's'}?`,
      `The ${ids.length} selected channel${ids.length === 1 ? ' is' : 's are'} removed. A later import that maps to them creates them again.`,
      deleteSelected,
      async () => {
        deleted = (await deps.call()<{ deleted: number }>('POST', 'api/channels/batch_delete', ids)).deleted;
      },
    );
    if (!done) return;
    say(message, `Deleted ${deleted} channel${deleted === 1 ? '' : 's'}.`);
    await load();
    byId('channels-heading').focus();
  });

  selectAll.addEventListener('change', () => {
    for (const channel of rows) {
      if (selectAll.checked) selected.add(channel.id);
      else selected.delete(channel.id);
    }
    render();
  });

  filterForm.addEventListener('submit', (event) => {
    event.preventDefault();
    Object.assign(query, {
      page: 1,
      perPage: Number(perPage.value),
      provider: provider.value.trim(),
      status: statusFilter.value,
      group: group.value.trim(),
      keyword: keyword.value.trim(),
    });
    void load();
  });

  for (const [button, step] of [
    [prev, -1],
    [next, 1],
  ] as const) {
    button.addEventListener('click', async () => {
      query.page = Math.min(lastPage(), Math.max(1, query.page + step));
      await load();
      if (button.disabled) byId('channels-heading').focus();
    });
  }

  return {
    load,
    /** Empties the table (on sign-out): nothing of the last key's answers stays on screen. */
    reset(): void {
      rows = [];
      total = 0;
      selected.clear();
      body.replaceChildren();
      say(message, '');
      say(error, '');
    },
  };
}
