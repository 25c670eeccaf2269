import type { Channel, ChannelChanges } from './api.ts';
import { byId, say } from './dom.ts';

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

/** The edit dialog for one channel; resolves true when a change was saved. */
export function editDialog(
  channel: Channel,
  opener: HTMLElement,
  save: (changes: ChannelChanges) => Promise<void>,
): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('edit-dialog');
  const form = byId<HTMLFormElement>('edit-form');
  const name = byId<HTMLInputElement>('edit-name');
  const baseUrl = byId<HTMLInputElement>('edit-base-url');
  const models = byId<HTMLTextAreaElement>('edit-models');
  const status = byId<HTMLSelectElement>('edit-status');
  const key = byId<HTMLInputElement>('edit-key');
  const error = byId('edit-error');
  const submit = form.querySelector('button[type="submit"]') as HTMLButtonElement;
  const cancel = byId<HTMLButtonElement>('edit-cancel');

  byId('edit-heading').textContent = `Edit ${channel.name}`;
  name.value = channel.name;
  baseUrl.value = channel.baseUrl;
  models.value = channel.models.join('\n');
  status.value = channel.status;
  key.value = '';
  byId('edit-key-current').textContent = channel.key;
  say(error, '');

  return new Promise((resolve) => {
    let saved = false;
    const onSubmit = async (event: SubmitEvent) => {
      event.preventDefault();
      const changes = changesFrom(channel, {
        name: name.value,
        baseUrl: baseUrl.value,
        models: models.value,
        status: status.value,
        key: key.value,
      });
      if (Object.keys(changes).length === 0) {
        dialog.close();
        return;
      }
      submit.disabled = true;
      say(error, '');
      try {
        await save(changes);
        saved = true;
        dialog.close();
      } catch (failure) {
        fail(failure, error);
        name.focus();
      } finally {
        submit.disabled = false;
      }
    };
    const onCancel = () => dialog.close();
    form.addEventListener('submit', onSubmit);
    cancel.addEventListener('click', onCancel);
    openModal(dialog, opener, () => {
      form.removeEventListener('submit', onSubmit);
      cancel.removeEventListener('click', onCancel);
      // The typed key never outlives the dialog.
      key.value = '';
      resolve(saved);
    });
    name.focus();
  });
}

/** A confirmation dialog whose OK runs `action`; resolves true when the action succeeded. */
export function confirmDialog(
  title: string,
  text: string,
  opener: HTMLElement,
  action: () => Promise<unknown>,
): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  const ok = byId<HTMLButtonElement>('confirm-ok');
  const cancel = byId<HTMLButtonElement>('confirm-cancel');
  const error = byId('confirm-error');
  byId('confirm-heading').textContent = title;
  byId('confirm-text').textContent = text;
  say(error, '');

  return new Promise((resolve) => {
    let done = false;
    const onOk = async () => {
      ok.disabled = true;
      say(error, '');
      try {
        await action();
        done = true;
        dialog.close();
      } catch (failure) {
        fail(failure, error);
      } finally {
        ok.disabled = false;
      }
    };
    const onCancel = () => dialog.close();
    ok.addEventListener('click', onOk);
    cancel.addEventListener('click', onCancel);
    openModal(dialog, opener, () => {
      ok.removeEventListener('click', onOk);
      cancel.removeEventListener('click', onCancel);
      resolve(done);
    });
    // The safe choice has focus first.
    cancel.focus();
  });
}
