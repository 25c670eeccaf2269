/**
 * The console's SQLite worker (docs/console.md, "Import from a SQLite file"): a dedicated Worker, bundled apart from
 * the page and loaded only when a file is picked. It opens the file read-only through a byte reader over
 * `File.slice` (only the pages SQLite asks for are read, never the whole file), reads the `channels` table only, and
 * cuts it into the calls of POST /api/channels/import/rows, handing the page one call at a time.
 */
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import {
  callsOf,
  type FamilyChoice,
  ROWS_PER_CALL,
  type RowsCall,
  RowTooLargeError,
} from '../../../shared/import-rows.ts';
import { type ChannelsFile, openChannelsFile, SqliteFileError } from './sqlite/channels-file.ts';
import { fileByteReader } from './sqlite/file-reader.ts';
import type { FromWorker, TokenTablesCall, ToWorker } from './sqlite-protocol.ts';

// The worker scope's postMessage and onmessage (the page compiles against the DOM library, not WebWorker's).
declare const self: {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  sqlite3ApiConfig?: unknown;
};

// No OPFS: the file is read through our own VFS, and nothing is stored in the browser.
self.sqlite3ApiConfig = {
  disable: { vfs: { opfs: true, 'opfs-vfs': true, 'opfs-sahpool': true } },
  warn: () => {},
  debug: () => {},
  log: () => {},
};

let sqlite: Promise<Sqlite3Static> | undefined;
let table: ChannelsFile | undefined;
let calls: Iterator<RowsCall & { tokens?: TokenTablesCall }> | undefined;
let index = 0;
let rowsSent = 0;
// Bytes read to open the file (header, schema) and where the counter stood when this run started.
let openBytes = 0;
let runStart = 0;
// The open file's name (never its path: a browser gives none), sent as each call's source.
let fileName: string | undefined;

/** SQLite's WebAssembly build, its binary fetched once from the console's assets (never from another origin). */
function loadSqlite(wasmUrl: string): Promise<Sqlite3Static> {
  sqlite ??= (async () => {
    // `Accept` names the binary type so that API Gateway returns the bytes, not their base64 text.
    const response = await fetch(wasmUrl, { headers: { Accept: 'application/wasm' }, credentials: 'omit' });
    if (!response.ok) {
      throw new Error(`SQLite could not be loaded (HTTP ${response.status}). Reload the page and try again.`);
    }
    const wasmBinary = await response.arrayBuffer();
    // Emscripten's module options, which the package's types do not declare: the binary is handed over, so the
    // glue neither fetches it again nor looks for it beside its own (bundled) script.
    const init = sqlite3InitModule as unknown as (options: object) => Promise<Sqlite3Static>;
    const sqlite3 = await init({ wasmBinary, locateFile: () => wasmUrl, print: () => {}, printErr: () => {} });
    sqlite3.config.warn = () => {};
    return sqlite3;
  })();
  return sqlite;
}

function* rowsOf(file: ChannelsFile) {
  for (const batch of file.batches()) yield* batch;
}

/** The channels calls, then (with `tokens`) one call of no rows carrying the token tables (docs/relay.md, "Keys"). */
function* runCalls(
  file: ChannelsFile,
  dryRun: boolean,
  tokens: boolean,
  source: { family: FamilyChoice | undefined; file: string | undefined },
) {
  yield* callsOf(file.columns(), rowsOf(file), { dryRun, ...source });
  if (!tokens) return;
  const read = (name: 'tokens' | 'users' | 'options') => file.table(name, ROWS_PER_CALL);
  const tokenRows = read('tokens');
  if (tokenRows === undefined)
    throw new SqliteFileError('unreadable', 'The file has no `tokens` table to import keys from');
  const users = read('users');
  const options = read('options');
  yield {
    columns: file.columns(),
    rows: [],
    dryRun,
    ...(source.family === undefined ? {} : { family: source.family }),
    ...(source.file === undefined ? {} : { file: source.file }),
    tokens: { tokens: tokenRows, ...(users ? { users } : {}), ...(options ? { options } : {}) },
  };
}

function fail(error: unknown): void {
  if (error instanceof SqliteFileError) {
    self.postMessage({ type: 'failed', message: error.message, problem: error.problem });
  } else if (error instanceof RowTooLargeError) {
    self.postMessage({ type: 'failed', message: error.message, problem: 'too-large-row' });
  } else {
    self.postMessage({
      type: 'failed',
      message: error instanceof Error ? error.message : 'The file could not be read.',
    });
  }
}

function next(): void {
  const step = calls?.next();
  if (step === undefined || step.done) {
    // What one run reads: opening the file, then the table's pages once.
    self.postMessage({ type: 'done', calls: index, bytesRead: openBytes + (table?.bytesRead() ?? 0) - runStart });
    return;
  }
  rowsSent += step.value.rows.length;
  self.postMessage({ type: 'call', call: step.value, index, rowsSent });
  index += 1;
}

self.onmessage = async ({ data }) => {
  try {
    if (data.type === 'open') {
      const sqlite3 = await loadSqlite(data.wasmUrl);
      // The file opened before is closed first, so a failed open leaves none behind to be sent by mistake.
      table?.close();
      table = undefined;
      calls = undefined;
      table = openChannelsFile(sqlite3, fileByteReader(data.file));
      fileName = data.file.name;
      openBytes = table.bytesRead();
      self.postMessage({ type: 'opened', columns: table.columns(), rows: table.count(), walMode: table.walMode });
    } else if (data.type === 'start') {
      if (table === undefined) throw new Error('No file is open.');
      calls = runCalls(table, data.dryRun, data.tokens === true, { family: data.family, file: fileName });
      index = 0;
      rowsSent = 0;
      runStart = table.bytesRead();
      next();
    } else {
      next();
    }
  } catch (error) {
    fail(error);
  }
};
