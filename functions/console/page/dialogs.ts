import type { Channel, ChannelChanges } from './api.ts';
import { byId, say, visible } from './dom.ts';

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

/**
 * Runs an open-and-act dialog: `trigger` (a form's submit, a button's click) runs `act` with `busy` disabled;
 * `act` resolving true closes the dialog as done, false closes it with nothing done, and a failure stays in
 * the dialog, shown in `error`, so the user can correct or cancel. Resolves whether an `act` was done.
 */
function runDialog(parts: {
  dialog: HTMLDialogElement;
  opener: HTMLElement;
  trigger: HTMLFormElement | HTMLButtonElement;
  busy: HTMLButtonElement;
  cancel: HTMLButtonElement;
  error: HTMLElement;
  /** Where focus goes first, and back after a failure. */
  focus: HTMLElement;
  act: () => Promise<boolean>;
  onClose?: () => void;
}): Promise<boolean> {
  const { dialog, trigger, busy, cancel, error, focus } = parts;
  const event = trigger instanceof HTMLFormElement ? 'submit' : 'click';
  say(error, '');
  return new Promise((resolve) => {
    let done = false;
    const onTrigger = async (e: Event) => {
      e.preventDefault();
      busy.disabled = true;
      say(error, '');
      try {
        done = (await parts.act()) || done;
        dialog.close();
      } catch (failure) {
        fail(failure, error);
        focus.focus();
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
      parts.onClose?.();
      resolve(done);
    });
    focus.focus();
  });
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
  fields.status.value = channel.status;
  fields.key.value = '';
  byId('edit-key-current').textContent = channel.key;

  return runDialog({
    dialog: byId<HTMLDialogElement>('edit-dialog'),
    opener,
    trigger: form,
    busy: form.querySelector('button[type="submit"]') as HTMLButtonElement,
    cancel: byId<HTMLButtonElement>('edit-cancel'),
    error: byId('edit-error'),
    focus: fields.name,
    act: async () => {
      const changes = changesFrom(channel, {
        name: fields.name.value,
        baseUrl: fields.baseUrl.value,
        models: fields.models.value,
        status: fields.status.value,
        key: fields.key.value,
      });
      // Nothing changed: the dialog closes without a call.
      if (Object.keys(changes).length === 0) return false;
      await save(changes);
      return true;
    },
    // The typed key never outlives the dialog.
    onClose: () => {
      fields.key.value = '';
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
