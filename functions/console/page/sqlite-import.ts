/**
 * The page's side of an import from a SQLite file (docs/console.md, "Import from a SQLite file"): it starts the
 * SQLite worker when a file is picked (the worker and SQLite's WebAssembly build are fetched then, never on the
 * page's first load), sends the calls the worker cuts to POST /api/channels/import/rows one after another, and adds
 * up their reports. Each call is a complete import of its rows, so an import stopped part-way is completed by
 * running it again.
 */
import { type FamilyChoice, type SummedReport, sumReports } from '../../../shared/import-rows.ts';
import type { ImportReport } from '../../../shared/schemas/import-report.ts';
import { ApiError, apiBase, type Call } from './api.ts';
import type { FromWorker, ToWorker } from './sqlite-protocol.ts';

/** Where the worker and SQLite's WebAssembly build are served (content-hashed names, set by functions/console/build.ts). */
declare const SQLITE_ASSETS: { readonly worker: string; readonly wasm: string };

const ROWS_PATH = 'api/channels/import/rows';
/** Waits before sending a throttled or unanswered call again; then the import stops and says so. */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000];
/** Statuses after which the same call is sent again: throttled, no answer, the gateway's 5xx, the deadline. */
const RETRIED = new Set([0, 429, 502, 503, 504]);

/** What the picked file holds, as the worker read it. */
export interface OpenedFile {
  columns: string[];
  rows: number;
  walMode: boolean;
}

/** Progress of a run, for the status line. */
export interface Progress {
  call: number;
  rowsSent: number;
  rows: number;
}

let worker: Worker | undefined;

function assetUrl(name: string): string {
  return new URL(`console/assets/${name}`, apiBase(document.baseURI)).href;
}

/** The one worker of the page, started on first use. */
function sqliteWorker(): Worker {
  worker ??= new Worker(assetUrl(SQLITE_ASSETS.worker), { name: 'sqlite' });
  return worker;
}

/** Sends one message to the worker and waits for its answer. */
function ask(message: ToWorker): Promise<Exclude<FromWorker, { type: 'failed' }>> {
  const w = sqliteWorker();
  return new Promise((resolve, reject) => {
    const done = () => {
      w.removeEventListener('message', onMessage);
      w.removeEventListener('error', onError);
    };
    const onMessage = ({ data }: MessageEvent<FromWorker>) => {
      done();
      if (data.type === 'failed') reject(new ApiError(400, data.message));
      else resolve(data);
    };
    const onError = (event: ErrorEvent) => {
      event.preventDefault();
      done();
      // A worker that cannot start (blocked, not found) says nothing useful in its event: say what failed.
      worker = undefined;
      reject(new ApiError(0, 'SQLite could not be started in this browser. Reload the page and try again.'));
    };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    w.postMessage(message);
  });
}

/** Opens the picked file in the worker: its `channels` table's columns and row count, or the reader's message. */
export async function openSqliteFile(file: File): Promise<OpenedFile> {
  const opened = await ask({ type: 'open', file, wasmUrl: assetUrl(SQLITE_ASSETS.wasm) });
  if (opened.type !== 'opened') throw new ApiError(0, 'The SQLite worker answered out of turn.');
  return { columns: opened.columns, rows: opened.rows, walMode: opened.walMode };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function send(call: Call, body: unknown): Promise<ImportReport> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call<ImportReport>('POST', ROWS_PATH, body);
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (!(error instanceof ApiError) || !RETRIED.has(error.status) || delay === undefined) throw error;
      await wait(delay);
    }
  }
}

/**
 * Sends the open file's table as calls (a dry run or the import) and returns their reports added up. A call that
 * fails stops the run with the API's status and a message that says how far it got and that running the import
 * again completes it (calls already sent are then `unchanged`).
 */
export async function sendSqliteTable(
  call: Call,
  dryRun: boolean,
  rows: number,
  progress: (p: Progress) => void,
  family?: FamilyChoice,
  tokens = false,
): Promise<{ report: SummedReport; bytesRead: number }> {
  const reports: ImportReport[] = [];
  let message = await ask({ type: 'start', dryRun, tokens, ...(family === undefined ? {} : { family }) });
  let rowsBefore = 0;
  while (message.type === 'call') {
    progress({ call: message.index + 1, rowsSent: message.rowsSent, rows });
    try {
      reports.push(await send(call, message.call));
    } catch (error) {
      throw stopped(error, dryRun, message.index, rowsBefore, rows);
    }
    rowsBefore = message.rowsSent;
    message = await ask({ type: 'next' });
  }
  // The token call (last, no rows) carries the report's `tokens`; the channels figures are summed as before.
  const tokenReport = reports.find((r) => r.tokens !== undefined)?.tokens;
  const summed = sumReports(reports);
  return {
    report: tokenReport ? { ...summed, tokens: tokenReport } : summed,
    bytesRead: message.type === 'done' ? message.bytesRead : 0,
  };
}

function stopped(error: unknown, dryRun: boolean, index: number, rowsBefore: number, rows: number): Error {
  const status = error instanceof ApiError ? error.status : 0;
  const reason = error instanceof Error ? error.message : 'The call failed.';
  if (index === 0) return new ApiError(status, reason);
  const done = rowsBefore.toLocaleString('en');
  const what = dryRun
    ? `The preview stopped after ${done} of ${rows.toLocaleString('en')} rows`
    : `The import stopped after ${done} of ${rows.toLocaleString('en')} rows were imported; nothing of them is lost`;
  return new ApiError(status, `${reason} ${what}. Run it again to complete it.`);
}
