import type { Call, ImportReport } from './api.ts';
import { byId, h, say } from './dom.ts';
import { reportCounts, reportRoutes, reportTables } from './report-view.ts';

const IMPORT_PATH = 'api/channels/import/legacygw';

export interface ImportViewDeps {
  /** The call function for the current admin key. */
  call: () => Call;
  /** Shows an error: signs out on 401, else writes the API's message into `target`. */
  fail: (error: unknown, target: HTMLElement) => void;
  /** After a real import: the channel table reloads. */
  imported: () => void;
}

/**
 * DSN form → dry run → report → "Import" → the same report for the real run. The DSN leaves the
 * input field as soon as it is sent and is held in one variable only between a successful preview
 * and its import (never in the DOM or any storage), then dropped whatever the import's outcome.
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
  let pendingDsn: string | undefined;

  function busy(message: string): void {
    say(status, message);
    previewButton.disabled = message !== '';
    run.disabled = message !== '';
  }

  function show(result: ImportReport): void {
    const { source } = result;
    heading.textContent = result.dryRun ? 'Preview: nothing is written yet' : 'Import done';
    say(
      byId('report-source'),
      `Source: ${source.host}:${source.port}/${source.database}, ${source.rows.toLocaleString('en')} rows read.`,
    );
    byId('routes-body').replaceChildren(...reportRoutes(result));
    byId('report-counts').replaceChildren(...reportCounts(result));
    const tables = reportTables(result.items);
    const truncated = result.itemsTruncated ? [h('p', {}, 'Only the first 1,000 rows with remarks are listed.')] : [];
    byId('report-skipped').replaceChildren(tables.skipped, ...truncated);
    byId('report-warnings').replaceChildren(tables.warnings);
    run.hidden = !result.dryRun;
    cancel.textContent = result.dryRun ? 'Cancel' : 'Close report';
    report.hidden = false;
    heading.focus();
  }

  function close(): void {
    pendingDsn = undefined;
    report.hidden = true;
    input.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const dsn = input.value;
    input.value = '';
    pendingDsn = undefined;
    report.hidden = true;
    say(error, '');
    if (dsn.trim() === '') {
      say(error, 'Enter the DSN of the legacy database first.');
      input.focus();
      return;
    }
    busy('Previewing the import…');
    try {
      const result = await deps.call()<ImportReport>('POST', IMPORT_PATH, { dsn, dryRun: true });
      pendingDsn = dsn;
      busy('');
      show(result);
    } catch (failure) {
      busy('');
      deps.fail(failure, error);
      input.focus();
    }
  });

  run.addEventListener('click', async () => {
    const dsn = pendingDsn;
    if (dsn === undefined) return;
    pendingDsn = undefined;
    say(error, '');
    busy('Importing…');
    try {
      const result = await deps.call()<ImportReport>('POST', IMPORT_PATH, { dsn });
      busy('');
      show(result);
      deps.imported();
    } catch (failure) {
      busy('');
      report.hidden = true;
      deps.fail(failure, error);
      input.focus();
    }
  });

  cancel.addEventListener('click', close);

  return {
    /** Forgets any pending preview (on sign-out). */
    reset(): void {
      pendingDsn = undefined;
      input.value = '';
      report.hidden = true;
      say(error, '');
      busy('');
    },
  };
}
