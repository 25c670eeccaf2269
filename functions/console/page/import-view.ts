import { FAMILY_CHOICES, type FamilyChoice, type SummedReport } from '../../../shared/import-rows.ts';
import type { Call, ImportReport } from './api.ts';
import { byId, h, say } from './dom.ts';
import { reportCounts, reportRoutes, reportStale, reportTables } from './report-view.ts';
import { openSqliteFile, type Progress, sendSqliteTable } from './sqlite-import.ts';

const IMPORT_PATH = 'api/channels/import/legacygw';
const walNote =
  'The file was in WAL mode: changes still in its -wal file are not read. Stop the gateway and checkpoint the file for them.';

export interface ImportViewDeps {
  /** The call function for the current admin key. */
  call: () => Call;
  /** Shows an error: signs out on 401, else writes the API's message into `target`. */
  fail: (error: unknown, target: HTMLElement) => void;
  /** After a real import: the channel table reloads. */
  imported: () => void;
}

/** What "Import" runs after a preview: the same DSN, or the same SQLite file. */
type Pending =
  | { kind: 'dsn'; dsn: string; tokens: boolean }
  | { kind: 'sqlite'; file: File; rows: number; tokens: boolean };

const FAMILIES: readonly string[] = FAMILY_CHOICES;

/** A picked file and how much of it the worker read. */
interface ReadFile {
  file: File;
  bytesRead: number;
}

const MB = 1024 * 1024;
const size = (bytes: number) =>
  bytes >= MB
    ? `${(bytes / MB).toLocaleString('en', { maximumFractionDigits: 1 })} MB`
    : `${Math.ceil(bytes / 1024).toLocaleString('en')} KB`;

/**
 * DSN form or SQLite file → dry run → report → "Import" → the same report for the real run. The DSN leaves the
 * input field as soon as it is sent and is held in one variable only between a successful preview
 * and its import (never in the DOM or any storage), then dropped whatever the import's outcome. A SQLite file is
 * read in a worker; only its `channels` rows are sent (sqlite-import.ts).
 */
export function importView(deps: ImportViewDeps) {
  const form = byId<HTMLFormElement>('import-form');
  const input = byId<HTMLInputElement>('dsn-input');
  const previewButton = form.querySelector('button[type="submit"]') as HTMLButtonElement;
  const status = byId('import-status');
  const error = byId('import-error');
  const report = byId('report');
  const heading = byId('report-heading');
  const run = byId<HTMLButtonElement>('import-run');
  const cancel = byId<HTMLButtonElement>('import-cancel');
  const fileForm = byId<HTMLFormElement>('sqlite-form');
  const fileInput = byId<HTMLInputElement>('sqlite-input');
  // Also carry the gateway's keys over as relay keys (docs/relay.md, "Keys"): a DSN import reads the tokens table too; a
  // file's tokens, users and options tables are sent in one more call.
  const tokensBox = byId<HTMLInputElement>('import-tokens');
  const fileButton = fileForm.querySelector('button[type="submit"]') as HTMLButtonElement;
  const familyInput = byId<HTMLSelectElement>('family-input');
  let pending: Pending | undefined;
  // The gateway chosen for the preview: "Import" runs with the same choice, whatever the field says by then.
  let family: FamilyChoice | undefined;
  const chosenFamily = (): FamilyChoice | undefined =>
    FAMILIES.includes(familyInput.value) ? (familyInput.value as FamilyChoice) : undefined;
  const withFamily = (body: Record<string, unknown>) => (family === undefined ? body : { ...body, family });
  // Where focus goes back when a run fails or the report closes: the form the operator used.
  let origin: HTMLInputElement = input;

  function busy(message: string): void {
    say(status, message);
    previewButton.disabled = message !== '';
    fileButton.disabled = message !== '';
    run.disabled = message !== '';
  }

  function sourceLine(result: ImportReport | SummedReport, read?: ReadFile): string {
    const { source } = result;
    const rows = `${source.rows.toLocaleString('en')} rows read`;
    if (read === undefined) return `Source: ${source.host}:${source.port}/${source.database}, ${rows}.`;
    const calls = 'calls' in result && result.calls > 1 ? ` in ${result.calls} calls` : '';
    return `Source: the SQLite file ${read.file.name}, channels table, ${rows}${calls}; ${size(read.bytesRead)} of its ${size(read.file.size)} read, in this browser only.`;
  }

  function show(result: ImportReport | SummedReport, file?: ReadFile): void {
    heading.textContent = result.dryRun ? 'Preview: nothing is written yet' : 'Import done';
    say(byId('report-source'), sourceLine(result, file));
    const exact = 'exact' in result ? result.exact : { lost: true, totals: true };
    const notes: HTMLElement[] = (result.notes ?? []).map((note) => h('p', { class: 'note' }, note));
    if (!exact.lost) {
      notes.push(
        h(
          'p',
          { class: 'note' },
          `The table was sent in ${'calls' in result ? result.calls : 1} calls: a model listed as losing every channel may still be served by rows sent in another call (docs/channel-import.md, "Several calls").`,
        ),
      );
    } else if (!exact.totals) {
      notes.push(
        h('p', { class: 'note' }, 'The table was sent in several calls: the totals of routes kept are upper bounds.'),
      );
    }
    byId('routes-body').replaceChildren(...reportRoutes(result), ...notes);
    byId('report-counts').replaceChildren(...reportCounts(result));
    const tables = reportTables(result.items);
    const truncated = result.itemsTruncated ? [h('p', {}, 'Only the first 1,000 rows with remarks are listed.')] : [];
    byId('report-skipped').replaceChildren(tables.skipped, ...truncated);
    byId('report-warnings').replaceChildren(tables.warnings);
    showStale(result);
    run.hidden = !result.dryRun;
    cancel.textContent = result.dryRun ? 'Cancel' : 'Close report';
    report.hidden = false;
    heading.focus();
  }

  function close(): void {
    pending = undefined;
    report.hidden = true;
    origin.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const dsn = input.value;
    input.value = '';
    pending = undefined;
    origin = input;
    report.hidden = true;
    say(error, '');
    if (dsn.trim() === '') {
      say(error, 'Enter the DSN of the legacy database first.');
      input.focus();
      return;
    }
    busy('Previewing the import…');
    family = chosenFamily();
    try {
      const tokens = tokensBox.checked;
      const body = withFamily({ dsn, dryRun: true, ...(tokens ? { tokens } : {}) });
      const result = await deps.call()<ImportReport>('POST', IMPORT_PATH, body);
      pending = { kind: 'dsn', dsn, tokens };
      busy('');
      show(result);
    } catch (failure) {
      busy('');
      deps.fail(failure, error);
      input.focus();
    }
  });

  const progressText = (verb: string) => (p: Progress) =>
    busy(
      `${verb}: call ${p.call}, ${p.rowsSent.toLocaleString('en')} of ${p.rows.toLocaleString('en')} rows of the channels table sent…`,
    );

  fileForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    pending = undefined;
    origin = fileInput;
    report.hidden = true;
    say(error, '');
    const file = fileInput.files?.[0];
    if (file === undefined) {
      say(error, "Choose the gateway's SQLite file first.");
      fileInput.focus();
      return;
    }
    busy('Loading SQLite and opening the file…');
    family = chosenFamily();
    try {
      const opened = await openSqliteFile(file);
      const tokens = tokensBox.checked;
      const { report: result, bytesRead } = await sendSqliteTable(
        deps.call(),
        true,
        opened.rows,
        progressText('Previewing'),
        family,
        tokens,
      );
      pending = { kind: 'sqlite', file, rows: opened.rows, tokens };
      busy('');
      if (opened.walMode) say(status, walNote);
      show(result, { file, bytesRead });
    } catch (failure) {
      busy('');
      deps.fail(failure, error);
      fileInput.focus();
    }
  });

  run.addEventListener('click', async () => {
    const action = pending;
    if (action === undefined) return;
    pending = undefined;
    say(error, '');
    busy('Importing…');
    try {
      if (action.kind === 'dsn') {
        const body = withFamily({ dsn: action.dsn, ...(action.tokens ? { tokens: true } : {}) });
        const result = await deps.call()<ImportReport>('POST', IMPORT_PATH, body);
        busy('');
        show(result);
      } else {
        const sent = await sendSqliteTable(
          deps.call(),
          false,
          action.rows,
          progressText('Importing'),
          family,
          action.tokens,
        );
        busy('');
        show(sent.report, { file: action.file, bytesRead: sent.bytesRead });
      }
      deps.imported();
    } catch (failure) {
      busy('');
      report.hidden = true;
      deps.fail(failure, error);
      origin.focus();
    }
  });

  // The enabled stale channels the report lists, for "Disable them".
  let staleEnabled: string[] = [];
  const staleSection = byId('report-stale');
  const staleButton = byId<HTMLButtonElement>('stale-disable');
  const staleStatus = byId('stale-status');

  function showStale(result: ImportReport | SummedReport): void {
    const parts = reportStale(result);
    staleEnabled = (result.stale?.items ?? []).filter((item) => item.status === 'enabled').map((item) => item.id);
    byId('stale-body').replaceChildren(...parts);
    staleSection.hidden = parts.length === 0;
    staleButton.hidden = staleEnabled.length === 0;
    staleButton.disabled = false;
    staleButton.textContent = `Disable the ${staleEnabled.length === 1 ? 'enabled one' : `${staleEnabled.length.toLocaleString('en')} enabled ones`}`;
    say(staleStatus, '');
  }

  staleButton.addEventListener('click', async () => {
    const ids = staleEnabled;
    if (ids.length === 0) return;
    staleButton.disabled = true;
    say(staleStatus, 'Disabling…');
    let done = 0;
    try {
      // One update each, as the review API offers; each stamps editedAt, so a later import keeps them disabled.
      for (const id of ids) {
        await deps.call()('PUT', `api/channel/${encodeURIComponent(id)}`, { status: 'disabled' });
        done += 1;
      }
      staleEnabled = [];
      staleButton.hidden = true;
      say(staleStatus, `Disabled ${done.toLocaleString('en')} stale ${done === 1 ? 'channel' : 'channels'}.`);
      deps.imported();
    } catch (failure) {
      staleButton.disabled = false;
      staleEnabled = ids.slice(done);
      deps.fail(failure, staleStatus);
    }
  });

  cancel.addEventListener('click', close);

  return {
    /** Forgets any pending preview (on sign-out). */
    reset(): void {
      pending = undefined;
      input.value = '';
      report.hidden = true;
      say(error, '');
      busy('');
    },
  };
}
