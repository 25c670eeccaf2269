import type { Channel, ChannelChanges, Settings } from './api.ts';
import { byId, h, say, visible } from './dom.ts';
import { JSON_SETTINGS, type SettingsForm, settingsChanges, settingsFrom, TEXT_SETTINGS } from './settings-form.ts';

/** Reports a failure inside a dialog (the dialog stays open so the user can correct or cancel). */
export type FailHandler = (error: unknown, target: HTMLElement) => void;

let fail: FailHandler = (error, target) => say(target, error instanceof Error ? error.message : String(error));

/** Sets how dialogs report a failed call (main routes a 401 to sign-out). */
export function setDialogFailHandler(handler: FailHandler): void {
  fail = handler;
}

/**
 * Opens a native modal <dialog>: the rest of the page is inert while it is open (focus stays in it),
 * Escape cancels, and focus returns to `opener` when it closes, however it closes.
 */
function openModal(dialog: HTMLDialogElement, opener: HTMLElement, onClose: () => void): void {
  const closed = () => {
    dialog.removeEventListener('close', closed);
    onClose();
    if (opener.isConnected) opener.focus();
  };
  dialog.addEventListener('close', closed);
  dialog.showModal();
}

/** Closes every open dialog (on sign-out). */
export function closeDialogs(): void {
  for (const dialog of document.querySelectorAll('dialog')) if (dialog.open) dialog.close();
}

const splitModels = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((m) => m.trim())
    .filter((m) => m !== '');

/** The fields of the form that differ from the channel; the key only when a new one was typed. */
export function changesFrom(
  channel: Channel,
  form: { name: string; baseUrl: string; models: string; status: string; key: string },
): ChannelChanges {
  const changes: ChannelChanges = {};
  if (form.name.trim() !== channel.name) changes.name = form.name.trim();
  if (form.baseUrl.trim() !== channel.baseUrl) changes.baseUrl = form.baseUrl.trim();
  const models = splitModels(form.models);
  if (models.join('\n') !== channel.models.join('\n')) changes.models = models;
  if (form.status !== channel.status) changes.status = form.status as Channel['status'];
  if (form.key !== '') changes.key = form.key;
  return changes;
}

/** The model mapping editor: one row of two names per pair, rows added and removed with buttons. */
function mappingEditor() {
  const list = byId('edit-mapping');
  const add = byId<HTMLButtonElement>('edit-mapping-add');
  const renumber = () => {
    [...list.children].forEach((row, i) => {
      const [from, to, remove] = row.querySelectorAll<HTMLElement>('input, button');
      from?.setAttribute('aria-label', `Requested model ${i + 1}`);
      to?.setAttribute('aria-label', `Upstream model ${i + 1}`);
      remove?.setAttribute('aria-label', `Remove mapping ${i + 1}`);
    });
  };
  const row = (from: string, to: string): HTMLElement => {
    const fromInput = h('input', { spellcheck: 'false', 'data-part': 'from' });
    const toInput = h('input', { spellcheck: 'false', 'data-part': 'to' });
    fromInput.value = from;
    toInput.value = to;
    const remove = h('button', { type: 'button' }, 'Remove');
    const line = h('div', { class: 'row mapping' }, fromInput, ' → ', toInput, remove);
    remove.addEventListener('click', () => {
      const next = line.nextElementSibling?.querySelector('input') ?? add;
      line.remove();
      renumber();
      (next as HTMLElement).focus();
    });
    return line;
  };
  add.addEventListener('click', () => {
    const line = row('', '');
    list.append(line);
    renumber();
    line.querySelector('input')?.focus();
  });
  return {
    fill(mapping: Record<string, string> | undefined): void {
      list.replaceChildren(...Object.entries(mapping ?? {}).map(([a, b]) => row(a, b)));
      renumber();
    },
    read(): [string, string][] {
      return [...list.children].map((line) => {
        const [from, to] = line.querySelectorAll('input');
        return [from?.value ?? '', to?.value ?? ''];
      });
    },
  };
}

let settingsEditor: ReturnType<typeof buildSettingsEditor> | undefined;

/** The settings part of the edit dialog, built once. */
function buildSettingsEditor() {
  const input = (id: string, label: string, element: HTMLInputElement | HTMLTextAreaElement) => {
    element.id = id;
    element.spellcheck = false;
    return [h('label', { for: id }, label), element];
  };
  const texts = Object.fromEntries(TEXT_SETTINGS.map(([field]) => [field, h('input', {})]));
  const json = Object.fromEntries(JSON_SETTINGS.map(([field]) => [field, h('textarea', { rows: '3' })]));
  byId('edit-texts').replaceChildren(
    ...TEXT_SETTINGS.flatMap(([field, label]) => input(`edit-${field}`, label, texts[field] as HTMLInputElement)),
  );
  byId('edit-json').replaceChildren(
    ...JSON_SETTINGS.flatMap(([field, label]) => input(`edit-${field}`, label, json[field] as HTMLTextAreaElement)),
  );
  const mapping = mappingEditor();
  const priority = byId<HTMLInputElement>('edit-priority');
  const weight = byId<HTMLInputElement>('edit-weight');
  const groups = byId<HTMLInputElement>('edit-groups');
  const systemPrompt = byId<HTMLTextAreaElement>('edit-system-prompt');
  const text = (value: unknown) => (value === undefined ? '' : String(value));
  return {
    fill(settings: Settings): void {
      mapping.fill(settings.modelMapping);
      priority.value = text(settings.priority);
      weight.value = text(settings.weight);
      groups.value = (settings.groups ?? []).join(', ');
      systemPrompt.value = settings.systemPrompt ?? '';
      for (const [field] of TEXT_SETTINGS) (texts[field] as HTMLInputElement).value = text(settings[field]);
      for (const [field] of JSON_SETTINGS) {
        const value = settings[field];
        (json[field] as HTMLTextAreaElement).value = value === undefined ? '' : JSON.stringify(value, null, 2);
      }
      (byId('edit-settings') as HTMLDetailsElement).open = false;
    },
    read(): SettingsForm {
      return {
        mapping: mapping.read(),
        priority: priority.value,
        weight: weight.value,
        groups: groups.value,
        systemPrompt: systemPrompt.value,
        texts: Object.fromEntries(TEXT_SETTINGS.map(([f]) => [f, (texts[f] as HTMLInputElement).value])),
        json: Object.fromEntries(JSON_SETTINGS.map(([f]) => [f, (json[f] as HTMLTextAreaElement).value])),
      };
    },
    /** Empties every field: nothing typed (a new secret) outlives the dialog. */
    clear(): void {
      this.fill({});
    },
  };
}

/**
 * Runs an open-and-act dialog: `trigger` (a form's submit, a button's click) runs `act` with `busy` disabled;
 * `act` resolving true closes the dialog as done, false closes it with nothing done, and a failure stays in
 * the dialog, shown in `error`, so the user can correct or cancel. Resolves whether an `act` was done.
 */
export function runDialog(parts: {
  dialog: HTMLDialogElement;
  opener: HTMLElement;
  trigger: HTMLFormElement | HTMLButtonElement;
  busy: HTMLButtonElement;
  cancel: HTMLButtonElement;
  error: HTMLElement;
  /** Where focus goes first, and back after a failure. */
  focus: HTMLElement;
  /** The field an error message names, if any: the error is then shown beside it and it gets focus. */
  fieldFor?: (message: string) => HTMLElement | undefined;
  act: () => Promise<boolean>;
  onClose?: () => void;
}): Promise<boolean> {
  const { dialog, trigger, busy, cancel, error, focus } = parts;
  const event = trigger instanceof HTMLFormElement ? 'submit' : 'click';
  // The error's own place, where it goes back when it is not beside a field.
  const home = { parent: error.parentElement, next: error.nextSibling };
  let invalid: HTMLElement | undefined;
  const unmark = () => {
    if (invalid) {
      invalid.removeAttribute('aria-invalid');
      const described = (invalid.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((id) => id && id !== error.id);
      if (described.length > 0) invalid.setAttribute('aria-describedby', described.join(' '));
      else invalid.removeAttribute('aria-describedby');
      invalid = undefined;
    }
    home.parent?.insertBefore(error, home.next);
  };
  say(error, '');
  return new Promise((resolve) => {
    let done = false;
    const onTrigger = async (e: Event) => {
      e.preventDefault();
      busy.disabled = true;
      unmark();
      say(error, '');
      try {
        done = (await parts.act()) || done;
        dialog.close();
      } catch (failure) {
        fail(failure, error);
        const field = parts.fieldFor?.(error.textContent ?? '');
        if (field?.isConnected) {
          // Beside the field it names, announced (role=alert), and read again with the field (aria-describedby).
          const details = field.closest('details');
          if (details) details.open = true;
          field.after(error);
          field.setAttribute('aria-invalid', 'true');
          const described = field.getAttribute('aria-describedby');
          field.setAttribute('aria-describedby', described ? `${described} ${error.id}` : error.id);
          invalid = field;
          field.focus();
        } else focus.focus();
      } finally {
        busy.disabled = false;
      }
    };
    const onCancel = () => dialog.close();
    trigger.addEventListener(event, onTrigger);
    cancel.addEventListener('click', onCancel);
    openModal(dialog, parts.opener, () => {
      trigger.removeEventListener(event, onTrigger);
      cancel.removeEventListener('click', onCancel);
      unmark();
      parts.onClose?.();
      resolve(done);
    });
    focus.focus();
  });
}

/**
 * The edit dialog's field an API message is about: the review API's messages start with the field's name
 * (`baseUrl must be ...`, `settings.weight must be ...`; functions/update-channel).
 */
export function editFieldFor(message: string): HTMLElement | undefined {
  const plain: [RegExp, string][] = [
    [/^name\b/, 'edit-name'],
    [/^baseUrl\b/, 'edit-base-url'],
    [/^(?:models|each model)\b/, 'edit-models'],
    [/^status\b/, 'edit-status'],
    [/^key\b/, 'edit-key'],
    [/^each requested and upstream model name\b/, 'edit-mapping-add'],
  ];
  for (const [pattern, id] of plain) if (pattern.test(message)) return document.getElementById(id) ?? undefined;
  const setting = /^settings\.([A-Za-z]+)/.exec(message)?.[1];
  if (setting === undefined) return undefined;
  if (setting === 'modelMapping') {
    return (
      document.querySelector<HTMLElement>('#edit-mapping input') ??
      document.getElementById('edit-mapping-add') ??
      undefined
    );
  }
  const id = `edit-${setting.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return document.getElementById(id) ?? document.getElementById(`edit-${setting}`) ?? undefined;
}

/** The edit dialog for one channel; resolves true when a change was saved. */
export function editDialog(
  channel: Channel,
  opener: HTMLElement,
  save: (changes: ChannelChanges) => Promise<void>,
): Promise<boolean> {
  const form = byId<HTMLFormElement>('edit-form');
  const fields = {
    name: byId<HTMLInputElement>('edit-name'),
    baseUrl: byId<HTMLInputElement>('edit-base-url'),
    models: byId<HTMLTextAreaElement>('edit-models'),
    status: byId<HTMLSelectElement>('edit-status'),
    key: byId<HTMLInputElement>('edit-key'),
  };
  byId('edit-heading').textContent = `Edit ${visible(channel.name)}`;
  fields.name.value = channel.name;
  fields.baseUrl.value = channel.baseUrl;
  fields.models.value = channel.models.join('\n');
  // The relay's own status is offered only while it holds: choosing Enabled re-enables the channel.
  const auto = byId<HTMLOptionElement>('edit-status-auto');
  auto.hidden = auto.disabled = channel.status !== 'auto-disabled';
  fields.status.value = channel.status;
  const note = byId('edit-status-note');
  note.hidden = channel.status !== 'auto-disabled';
  say(
    note,
    `Disabled by the relay: ${visible(channel.statusReason ?? 'repeated authentication failures')}. Choose Enabled to re-enable it.`,
  );
  fields.key.value = '';
  byId('edit-key-current').textContent = channel.key;
  settingsEditor ??= buildSettingsEditor();
  const editor = settingsEditor;
  const current = channel.settings ?? {};
  editor.fill(current);

  return runDialog({
    dialog: byId<HTMLDialogElement>('edit-dialog'),
    opener,
    trigger: form,
    busy: form.querySelector('button[type="submit"]') as HTMLButtonElement,
    cancel: byId<HTMLButtonElement>('edit-cancel'),
    error: byId('edit-error'),
    focus: fields.name,
    fieldFor: editFieldFor,
    act: async () => {
      const changes = changesFrom(channel, {
        name: fields.name.value,
        baseUrl: fields.baseUrl.value,
        models: fields.models.value,
        status: fields.status.value,
        key: fields.key.value,
      });
      const settings = settingsChanges(current, settingsFrom(editor.read()));
      if (Object.keys(settings).length > 0) changes.settings = settings;
      // Nothing changed: the dialog closes without a call.
      if (Object.keys(changes).length === 0) return false;
      await save(changes);
      return true;
    },
    // The typed key and settings never outlive the dialog.
    onClose: () => {
      fields.key.value = '';
      editor.clear();
    },
  });
}

/** A confirmation dialog whose OK runs `action`; resolves true when the action succeeded. */
export function confirmDialog(
  title: string,
  text: string | (Node | string)[],
  opener: HTMLElement,
  action: () => Promise<unknown>,
): Promise<boolean> {
  byId('confirm-heading').textContent = title;
  byId('confirm-text').replaceChildren(...(typeof text === 'string' ? [text] : text));
  const ok = byId<HTMLButtonElement>('confirm-ok');
  const cancel = byId<HTMLButtonElement>('confirm-cancel');
  return runDialog({
    dialog: byId<HTMLDialogElement>('confirm-dialog'),
    opener,
    trigger: ok,
    busy: ok,
    cancel,
    error: byId('confirm-error'),
    // The safe choice has focus first.
    focus: cancel,
    act: async () => {
      await action();
      return true;
    },
  });
}
