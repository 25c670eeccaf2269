import type { Call, RelayKey, RelayKeyFields } from './api.ts';
import { confirmDialog, runDialog } from './dialogs.ts';
import { byId, h, isolated, say, visible } from './dom.ts';

/*
 * The Keys view (docs/console.md, "Relay keys"): list, create, edit, enable/disable and delete relay keys. The whole key
 * exists in the page only between a create's answer and Done: it sits in one read-only field (never in an attribute,
 * never in storage), and Done, sign-out or a new create empties that field. Every other view shows `sk-…<id>`.
 */

export interface KeysViewDeps {
  call: () => Call;
  fail: (error: unknown, target: HTMLElement) => void;
}

/** A comma-separated list as names; empty = undefined (no list). */
export function listField(text: string): string[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

/** A whole number typed in a quota field; undefined when empty; an Error naming the field otherwise. */
export function quotaField(text: string, field: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^-?\d{1,15}$/.test(trimmed)) throw new Error(`${field} must be a whole number.`);
  return Number(trimmed);
}

/** The create body of the form's fields. */
export function createBody(form: {
  name: string;
  groups: string;
  models: string;
  quota: string;
  expires: string;
}): RelayKeyFields {
  const body: RelayKeyFields = { name: form.name.trim() };
  const groups = listField(form.groups);
  const models = listField(form.models);
  const quota = quotaField(form.quota, 'Quota');
  if (groups) body.groups = groups;
  if (models) body.models = models;
  if (quota !== undefined) body.remainQuota = quota;
  if (form.expires !== '') body.expiresAt = form.expires;
  return body;
}

/** The fields of the edit form that differ from the key (null removes a limit). */
export function keyChangesFrom(
  key: RelayKey,
  form: { name: string; status: string; groups: string; models: string; ips: string; expires: string; quota: string },
): RelayKeyFields {
  const changes: RelayKeyFields = {};
  const same = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined) =>
    (a ?? []).join('\n') === (b ?? []).join('\n');
  if (form.name.trim() !== key.name) changes.name = form.name.trim();
  if (form.status !== key.status) changes.status = form.status as RelayKey['status'];
  const groups = listField(form.groups) ?? ['default'];
  if (!same(groups, key.groups)) changes.groups = groups;
  const models = listField(form.models) ?? null;
  if (!same(models, key.models)) changes.models = models;
  const ips = listField(form.ips) ?? null;
  if (!same(ips, key.ips)) changes.ips = ips;
  const expires = form.expires === '' ? null : form.expires;
  if (expires !== (key.expiresAt?.slice(0, 10) ?? null)) changes.expiresAt = expires;
  const quota = quotaField(form.quota, 'Remaining quota');
  if (quota === undefined && !key.unlimitedQuota) changes.unlimitedQuota = true;
  if (quota !== undefined && (key.unlimitedQuota || quota !== key.remainQuota)) changes.remainQuota = quota;
  if (quota !== undefined && key.unlimitedQuota) changes.unlimitedQuota = false;
  return changes;
}

const count = (n: number) => n.toLocaleString('en');
const when = (iso: string | null) => (iso === null ? 'never' : iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z'));

/** How a key's status reads: enabled, disabled with its reason, expired. */
function statusText(key: RelayKey): string {
  if (key.expired) return 'expired';
  if (key.status === 'enabled') return 'enabled';
  return key.statusReason ? `disabled (${key.statusReason})` : 'disabled';
}

function quotaText(key: RelayKey): string {
  const used = `${count(key.usedQuota)} used`;
  return key.unlimitedQuota ? `unlimited, ${used}` : `${count(key.remainQuota ?? 0)} left, ${used}`;
}

/** The Keys section. */
export function keysView(deps: KeysViewDeps) {
  const createForm = byId<HTMLFormElement>('key-create-form');
  const create = {
    name: byId<HTMLInputElement>('key-create-name'),
    groups: byId<HTMLInputElement>('key-create-groups'),
    models: byId<HTMLInputElement>('key-create-models'),
    quota: byId<HTMLInputElement>('key-create-quota'),
    expires: byId<HTMLInputElement>('key-create-expires'),
  };
  const createError = byId('key-create-error');
  const panel = byId('key-new');
  const newValue = byId<HTMLInputElement>('key-new-value');
  const newName = byId('key-new-name');
  const status = byId('keys-status');
  const error = byId('keys-error');
  const body = byId('keys-body');

  /** Empties the one place the whole key was: the field, its panel, and the clipboard button's state. */
  function dismissNewKey(): void {
    newValue.value = '';
    newName.textContent = '';
    panel.hidden = true;
  }

  async function load(): Promise<boolean> {
    say(error, '');
    say(status, 'Loading keys…');
    try {
      const keys = await deps.call()<RelayKey[]>('GET', 'api/keys');
      render(keys);
      say(status, keys.length === 1 ? '1 key.' : `${count(keys.length)} keys.`);
      return true;
    } catch (failure) {
      say(status, '');
      deps.fail(failure, error);
      return false;
    }
  }

  async function update(key: RelayKey, changes: RelayKeyFields): Promise<void> {
    await deps.call()<RelayKey>('PUT', `api/key/${encodeURIComponent(key.id)}`, changes);
  }

  function render(keys: RelayKey[]): void {
    if (keys.length === 0) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: '9' }, 'No key yet.')));
      return;
    }
    body.replaceChildren(
      ...keys.map((key) => {
        const label = visible(key.name);
        const edit = h('button', { type: 'button', 'aria-label': `Edit ${label}` }, 'Edit');
        const toggle = h(
          'button',
          { type: 'button', 'aria-label': `${key.status === 'enabled' ? 'Disable' : 'Enable'} ${label}` },
          key.status === 'enabled' ? 'Disable' : 'Enable',
        );
        const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${label}` }, 'Delete');
        edit.addEventListener('click', async () => {
          if (await editKeyDialog(key, edit, (changes) => update(key, changes))) await load();
        });
        toggle.addEventListener('click', async () => {
          say(error, '');
          try {
            await update(key, { status: key.status === 'enabled' ? 'disabled' : 'enabled' });
            await load();
            say(status, `${label} is ${key.status === 'enabled' ? 'disabled' : 'enabled'}.`);
          } catch (failure) {
            deps.fail(failure, error);
          }
        });
        remove.addEventListener('click', async () => {
          const done = await confirmDialog(
            'Delete this key?',
            ['Applications using ', isolated(key.name), ' lose the relay within two minutes.'],
            remove,
            () => deps.call()('DELETE', `api/key/${encodeURIComponent(key.id)}`),
          );
          if (done) {
            await load();
            byId('keys-heading').focus();
          }
        });
        const cells: [string, Node | string][] = [
          ['Name', isolated(key.name)],
          ['Key', h('code', {}, key.key)],
          ['Status', statusText(key)],
          ['Groups', isolated(key.groups.join(', '))],
          ['Models', key.models === null ? 'all' : isolated(key.models.join(', '))],
          ['Quota', quotaText(key)],
          ['Expires', when(key.expiresAt)],
          ['Last used', when(key.lastUsedAt)],
          ['Actions', h('div', { class: 'row' }, edit, toggle, remove)],
        ];
        return h('tr', {}, ...cells.map(([header, cell]) => h('td', { 'data-label': header }, cell)));
      }),
    );
  }

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    say(createError, '');
    dismissNewKey();
    let request: RelayKeyFields;
    try {
      request = createBody({
        name: create.name.value,
        groups: create.groups.value,
        models: create.models.value,
        quota: create.quota.value,
        expires: create.expires.value,
      });
    } catch (failure) {
      say(createError, (failure as Error).message);
      create.quota.focus();
      return;
    }
    const submit = createForm.querySelector('button[type="submit"]') as HTMLButtonElement;
    submit.disabled = true;
    try {
      const created = await deps.call()<RelayKey>('POST', 'api/keys', request);
      createForm.reset();
      newName.textContent = visible(created.name);
      newValue.value = created.key;
      panel.hidden = false;
      newValue.focus();
      newValue.select();
      await load();
    } catch (failure) {
      deps.fail(failure, createError);
      create.name.focus();
    } finally {
      submit.disabled = false;
    }
  });

  byId('key-new-copy').addEventListener('click', async () => {
    newValue.select();
    try {
      await navigator.clipboard.writeText(newValue.value);
      say(status, 'Copied.');
    } catch {
      say(status, 'Copy it from the field.');
    }
  });
  byId('key-new-done').addEventListener('click', () => {
    dismissNewKey();
    byId('keys-heading').focus();
  });
  byId('keys-refresh').addEventListener('click', () => void load());

  return {
    load,
    /** Empties the view, the new key first (on sign-out). */
    reset(): void {
      dismissNewKey();
      body.replaceChildren();
      say(status, '');
      say(error, '');
      say(createError, '');
    },
  };
}

/** The edit dialog of one key; resolves true when a change was saved. */
function editKeyDialog(
  key: RelayKey,
  opener: HTMLElement,
  save: (changes: RelayKeyFields) => Promise<void>,
): Promise<boolean> {
  const form = byId<HTMLFormElement>('key-edit-form');
  const fields = {
    name: byId<HTMLInputElement>('key-edit-name'),
    status: byId<HTMLSelectElement>('key-edit-status'),
    groups: byId<HTMLInputElement>('key-edit-groups'),
    models: byId<HTMLInputElement>('key-edit-models'),
    ips: byId<HTMLInputElement>('key-edit-ips'),
    expires: byId<HTMLInputElement>('key-edit-expires'),
    quota: byId<HTMLInputElement>('key-edit-quota'),
  };
  byId('key-edit-heading').textContent = `Edit ${visible(key.name)} (${key.key})`;
  fields.name.value = key.name;
  fields.status.value = key.status;
  fields.groups.value = key.groups.join(', ');
  fields.models.value = (key.models ?? []).join(', ');
  fields.ips.value = (key.ips ?? []).join(', ');
  fields.expires.value = key.expiresAt?.slice(0, 10) ?? '';
  fields.quota.value = key.unlimitedQuota ? '' : String(key.remainQuota ?? 0);
  say(byId('key-edit-quota-hint'), `${count(key.usedQuota)} used so far.`);
  return runDialog({
    dialog: byId<HTMLDialogElement>('key-edit-dialog'),
    opener,
    trigger: form,
    busy: form.querySelector('button[type="submit"]') as HTMLButtonElement,
    cancel: byId<HTMLButtonElement>('key-edit-cancel'),
    error: byId('key-edit-error'),
    focus: fields.name,
    act: async () => {
      const changes = keyChangesFrom(key, {
        name: fields.name.value,
        status: fields.status.value,
        groups: fields.groups.value,
        models: fields.models.value,
        ips: fields.ips.value,
        expires: fields.expires.value,
        quota: fields.quota.value,
      });
      if (Object.keys(changes).length === 0) return false;
      await save(changes);
      return true;
    },
  });
}
