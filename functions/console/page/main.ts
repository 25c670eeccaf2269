/**
 * The import review console: the entry point that wires the admin key, the import view and the
 * channel table together. Built by functions/console/build.ts into one self-contained HTML document.
 */
import { ApiError, apiClient, type Call } from './api.ts';
import { channelsView } from './channels-view.ts';
import { closeDialogs, setDialogFailHandler } from './dialogs.ts';
import { byId, say } from './dom.ts';
import { importView } from './import-view.ts';
import { keysView } from './keys-view.ts';
import { adminKeyStore } from './session.ts';
import { usageView } from './usage-view.ts';

const keyForm = byId<HTMLFormElement>('key-form');
const keyInput = byId<HTMLInputElement>('key-input');
const keySet = byId('key-set');
const keyError = byId('key-error');
const sections = [byId('import-section'), byId('channels-section'), byId('usage-section'), byId('keys-section')];

function call(): Call {
  const key = adminKeyStore.read();
  if (key === null) throw new ApiError(401, 'Enter the admin key first.');
  return apiClient(key);
}

/** A 401 means the key is wrong or revoked: forget it and ask again. Anything else: the API's message. */
function fail(error: unknown, target: HTMLElement): void {
  if (error instanceof ApiError && error.status === 401) {
    signOut(error.message);
    return;
  }
  say(target, error instanceof Error ? error.message : 'Something went wrong.');
}

setDialogFailHandler(fail);
const imports = importView({ call, fail, imported: () => void channels.load() });
const channels = channelsView({ call, fail });
const usage = usageView({ call, fail });
const keys = keysView({ call, fail });

function showSignedIn(signedIn: boolean): void {
  keyForm.hidden = signedIn;
  keySet.hidden = !signedIn;
  for (const section of sections) section.hidden = !signedIn;
}

function signOut(message = ''): void {
  adminKeyStore.forget();
  closeDialogs();
  imports.reset();
  channels.reset();
  usage.reset();
  keys.reset();
  showSignedIn(false);
  say(keyError, message);
  keyInput.focus();
}

keyForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  // The key leaves the field at once; it is kept only once the API has accepted it.
  const key = keyInput.value.trim();
  keyInput.value = '';
  say(keyError, '');
  if (key === '') {
    say(keyError, 'Paste the admin key first.');
    keyInput.focus();
    return;
  }
  try {
    // A one-row list call checks the key before anything is kept.
    await apiClient(key)('GET', 'api/channels/?page=1&per_page=1');
  } catch (error) {
    say(keyError, error instanceof Error ? error.message : 'Something went wrong.');
    keyInput.focus();
    return;
  }
  adminKeyStore.write(key);
  showSignedIn(true);
  if (await channels.load()) byId('import-heading').focus();
  void keys.load();
});

byId('key-forget').addEventListener('click', () => signOut('The admin key is forgotten.'));

if (adminKeyStore.read() !== null) {
  showSignedIn(true);
  void channels.load();
  void keys.load();
}
