import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import {
  type CellValue,
  type ChannelsFile,
  openChannelsFile,
  SqliteFileError,
} from '#functions/console/page/sqlite/channels-file';
import {
  callsOf,
  FAMILY_CHOICES,
  type FamilyChoice,
  ROWS_PER_CALL,
  RowTooLargeError,
  type SummedReport,
  sumReports,
} from '#shared/import-rows';
import { type ImportReport, importReportSchema } from '#shared/schemas/import-report';
import { type FileByteReader, loadSqlite, openFileReader } from './node-file.ts';
import { summary } from './summary.ts';
import { shown, shownLines, terminalSafeJson } from './terminal.ts';

export { summary };

/*
 * `npm run import:sqlite -- <file.db> --url <proxy_url> [--dry-run]` (docs/channel-import.md, "SQLite files"):
 * reads the `channels` table of a One API / New API SQLite file where it is and sends its rows, in calls of at most
 * 5,000 rows and 5 MiB, to POST <proxy_url>/api/channels/import/rows with the admin key from ADMIN_KEY; prints the
 * summed report as JSON on stdout and a summary for people on stderr.
 */

export const USAGE =
  "usage: npm run --silent import:sqlite -- <file.db> --url <proxy_url> [--dry-run] [--family oneapi|newapi|onehub|donehub] [--tokens]   (admin key: ADMIN_KEY; --tokens also carries the gateway's keys over as relay keys)";

/** The environment variable the admin key is read from (never an argument: arguments show in `ps` and history). */
export const ADMIN_KEY_VARIABLE = 'ADMIN_KEY';

export const ROWS_PATH = '/api/channels/import/rows';

// Rows read from the file at a time; callsOf packs them into calls.
const READ_BATCH = 1_000;
// A throttled call (429) is tried again after a pause, at most this many times in a row.
const THROTTLE_RETRIES = 6;
const THROTTLE_PAUSE_MS = 1_000;
const MAX_PAUSE_MS = 30_000;
// Lambda's own limit is 29 s behind API Gateway; a call that hangs longer than this never completes.
const CALL_TIMEOUT_MS = 60_000;

export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Defaults to the global fetch; tests substitute one. */
  fetch?: typeof fetch;
  /** Defaults to setTimeout; tests make pauses instant. */
  sleep?: (ms: number) => Promise<void>;
  /** Defaults to the WebAssembly build loaded once per process. */
  sqlite?: () => Promise<Sqlite3Static>;
}

interface Options {
  file: string;
  url: URL;
  dryRun: boolean;
  /** The gateway the operator says wrote the table (a fork's table is refused without it). */
  family?: FamilyChoice;
  /** Also send the `tokens`, `users` and `options` tables, so the gateway's keys become relay keys (docs/relay.md, "Keys"). */
  tokens: boolean;
}

/** A failure with the one line the CLI prints for it and its exit code. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** Whether sending the same call again can succeed (the network, the proxy's 5xx, a key set right). */
    readonly retriable = false,
  ) {
    super(message);
  }
}

/** Runs the command; resolves to the process's exit code (0 ok, 1 failed, 2 usage). */
export async function runImportSqliteCli(argv: readonly string[], given: CliIo): Promise<number> {
  // Whatever reaches the terminal goes through here: values from the file are shown() where they are written, and
  // anything else that could hold an escape sequence (the proxy's words, a driver's message) is caught here.
  const io: CliIo = {
    ...given,
    stdout: (line) => given.stdout(line),
    stderr: (line) => given.stderr(shownLines(line)),
  };
  try {
    const options = parseArgs(argv);
    if (options === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    await importFile(options, io);
    return 0;
  } catch (e) {
    if (e instanceof CliError) {
      io.stderr(`import:sqlite: ${e.message}`);
      return e.exitCode;
    }
    // Unexpected: one line, never a stack that could carry request details.
    io.stderr(`import:sqlite: unexpected failure: ${shown(e instanceof Error ? e.message : String(e))}`);
    return 1;
  }
}

function parseArgs(argv: readonly string[]): Options | 'help' {
  let file: string | undefined;
  let url: string | undefined;
  let dryRun = false;
  let family: string | undefined;
  let tokens = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--dry-run') dryRun = true;
    else if (arg === '--tokens') tokens = true;
    else if (arg === '--url') {
      url = argv[i + 1];
      i += 1;
      if (url === undefined) throw new CliError(`--url needs a value\n${USAGE}`, 2);
    } else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else if (arg === '--family') {
      family = argv[i + 1];
      i += 1;
      if (family === undefined) throw new CliError(`--family needs a value\n${USAGE}`, 2);
    } else if (arg.startsWith('--family=')) family = arg.slice('--family='.length);
    else if (arg === '--key' || arg.startsWith('--key=') || arg === '--admin-key' || arg.startsWith('--admin-key=')) {
      // Never accepted: a key on the command line lands in shell history and in every `ps` listing.
      throw new CliError(`the admin key is read from ${ADMIN_KEY_VARIABLE} only, never from an argument`, 2);
    } else if (arg.startsWith('-')) throw new CliError(`unknown option ${shown(arg)}\n${USAGE}`, 2);
    else if (file === undefined) file = arg;
    else throw new CliError(`one file at a time (got ${shown(file)} and ${shown(arg)})\n${USAGE}`, 2);
  }
  if (file === undefined) throw new CliError(`no file given\n${USAGE}`, 2);
  if (url === undefined) throw new CliError(`no --url given\n${USAGE}`, 2);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url is not a URL: ${shown(url)}`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`--url must be an http:// or https:// URL (got ${parsed.protocol})`, 2);
  }
  if (parsed.username || parsed.password) throw new CliError('--url must not carry credentials', 2);
  if (family !== undefined && !isFamilyChoice(family)) {
    throw new CliError(`--family must be one of ${FAMILY_CHOICES.join(', ')} (got ${family})`, 2);
  }
  return { file, url: parsed, dryRun, tokens, ...(family === undefined ? {} : { family }) };
}

function isFamilyChoice(value: string): value is FamilyChoice {
  return (FAMILY_CHOICES as readonly string[]).includes(value);
}

/** <proxy_url>/api/channels/import/rows, whatever path prefix the proxy URL has (a stage, a trailing slash). */
export function rowsEndpoint(url: URL): string {
  const base = new URL(url.href);
  base.search = '';
  base.hash = '';
  base.pathname = `${base.pathname.replace(/\/+$/, '')}${ROWS_PATH}`;
  return base.href;
}

async function importFile(options: Options, io: CliIo): Promise<void> {
  const adminKey = io.env[ADMIN_KEY_VARIABLE]?.trim();
  if (!adminKey) {
    throw new CliError(
      `set ${ADMIN_KEY_VARIABLE} to the proxy's admin key (npm start prints it; locally: jq -r .adminKey .data/credentials.json)`,
      2,
    );
  }
  const reader = openReader(options.file);
  try {
    const sqlite3 = await (io.sqlite ?? loadSqlite)();
    const table = openTable(sqlite3, reader, options.file);
    try {
      const report = await send(table, options, adminKey, io, options.file);
      io.stdout(terminalSafeJson(JSON.stringify(report, null, 2)));
      for (const line of summary(report, table.walMode)) io.stderr(line);
      io.stderr(
        `Read ${table.bytesRead().toLocaleString('en')} bytes of the file (${reader.size.toLocaleString('en')} bytes): its header, schema and channels table only.`,
      );
    } finally {
      table.close();
    }
  } finally {
    reader.close();
  }
}

function openReader(file: string): FileByteReader {
  let isFile: boolean;
  try {
    isFile = statSync(file).isFile();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const name = shown(file);
    throw new CliError(code === 'ENOENT' ? `${name}: no such file` : `${name}: cannot be read (${code ?? 'error'})`);
  }
  if (!isFile) throw new CliError(`${shown(file)}: not a file`);
  try {
    return openFileReader(file);
  } catch (e) {
    throw new CliError(`${shown(file)}: cannot be opened (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function openTable(sqlite3: Sqlite3Static, reader: FileByteReader, file: string): ChannelsFile {
  try {
    return openChannelsFile(sqlite3, reader);
  } catch (e) {
    if (e instanceof SqliteFileError) throw new CliError(`${shown(file)}: ${shown(e.message)}`);
    throw e;
  }
}

/** Reads the table in id order and sends it call by call; the reports are summed. */
async function send(
  table: ChannelsFile,
  options: Options,
  adminKey: string,
  io: CliIo,
  fileName: string,
): Promise<SummedReport> {
  const endpoint = rowsEndpoint(options.url);
  const total = tableCall(() => table.count(), fileName);
  const columns = table.columns();
  const reports: ImportReport[] = [];
  let sent = 0;
  const rows = readRows(table, fileName);
  try {
    for (const call of callsOf(columns, rows, {
      dryRun: options.dryRun,
      family: options.family,
      file: basename(options.file),
    })) {
      const landed = reports.length;
      let report: ImportReport;
      try {
        report = await post(endpoint, call, adminKey, io);
      } catch (e) {
        if (!(e instanceof CliError) || landed === 0) throw e;
        const calls = `${landed} ${options.dryRun ? 'dry-run ' : ''}call${landed === 1 ? '' : 's'}`;
        const before = `${calls} ${options.dryRun ? 'answered' : 'landed'} (${sent.toLocaleString('en')} of ${total.toLocaleString('en')} rows) before it`;
        const next = options.dryRun
          ? 'nothing was written: run the same command again'
          : e.retriable
            ? 'nothing is lost: run the same command again to complete the import (it is idempotent)'
            : `the rows after row ${sent.toLocaleString('en')} were not imported`;
        throw new CliError(`${e.message}. ${before}; ${next}`);
      }
      reports.push(report);
      sent += call.rows.length;
      io.stderr(
        `import:sqlite: ${options.dryRun ? 'checked' : 'sent'} ${sent.toLocaleString('en')} of ${total.toLocaleString('en')} rows (call ${reports.length})`,
      );
    }
  } catch (e) {
    if (e instanceof RowTooLargeError) throw new CliError(`${shown(fileName)}: ${shown(e.message)}`);
    throw e;
  }
  const summed = sumReports(reports);
  if (!options.tokens) return summed;
  // The token tables go in one more call of no channel rows, after the channels, so the channel calls' sizes hold.
  const tables = tableCall(
    () => ({
      tokens: table.table('tokens', ROWS_PER_CALL),
      users: table.table('users', ROWS_PER_CALL),
      options: table.table('options', ROWS_PER_CALL),
    }),
    fileName,
  );
  if (tables.tokens === undefined) throw new CliError(`${fileName}: the file has no \`tokens\` table (--tokens)`);
  const call = {
    columns,
    rows: [],
    dryRun: options.dryRun,
    // The same family as the channels calls, so the tokens are read as that gateway's.
    ...(options.family === undefined ? {} : { family: options.family }),
    file: basename(options.file),
    tokens: {
      tokens: tables.tokens,
      ...(tables.users ? { users: tables.users } : {}),
      ...(tables.options ? { options: tables.options } : {}),
    },
  };
  const report = await post(endpoint, call, adminKey, io);
  io.stderr(`import:sqlite: ${options.dryRun ? 'checked' : 'sent'} the tokens table`);
  return { ...summed, ...(report.tokens ? { tokens: report.tokens } : {}) };
}

function* readRows(table: ChannelsFile, fileName: string): Generator<CellValue[]> {
  const batches = table.batches(READ_BATCH);
  while (true) {
    const next = tableCall(() => batches.next(), fileName);
    if (next.done) return;
    yield* next.value;
  }
}

function tableCall<T>(call: () => T, fileName: string): T {
  try {
    return call();
  } catch (e) {
    if (e instanceof SqliteFileError) throw new CliError(`${shown(fileName)}: ${shown(e.message)}`);
    throw e;
  }
}

/** One call; a throttled one is retried after a pause. Every failure becomes one line without the key. */
async function post(endpoint: string, call: unknown, adminKey: string, io: CliIo): Promise<ImportReport> {
  const doFetch = io.fetch ?? fetch;
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const body = JSON.stringify(call);
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    let text: string;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
        body,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (e) {
      throw new CliError(`cannot reach the proxy at ${new URL(endpoint).origin}: ${networkReason(e)}`, 1, true);
    }
    if (response.status === 429 && attempt < THROTTLE_RETRIES) {
      await sleep(pauseMs(response.headers.get('retry-after'), attempt));
      continue;
    }
    return reportFrom(response.status, text);
  }
}

function pauseMs(retryAfter: string | null, attempt: number): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  const asked = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1_000 : THROTTLE_PAUSE_MS * 2 ** attempt;
  return Math.min(MAX_PAUSE_MS, asked);
}

function reportFrom(status: number, text: string): ImportReport {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  const said = typeof message === 'string' && message !== '' ? shown(message) : undefined;
  if (status === 401 || status === 403) {
    throw new CliError(
      `the proxy refused the admin key (HTTP ${status}): set ${ADMIN_KEY_VARIABLE} to this proxy's admin key`,
      1,
      true,
    );
  }
  if (status === 404) {
    throw new CliError(
      `the proxy answered HTTP 404${said === undefined ? '' : `: ${said}`} (--url is the proxy's base URL, without /api: the CLI adds ${ROWS_PATH})`,
    );
  }
  if (status !== 200) {
    // 429 (after the retries), 5xx and 504 (the deadline; the message says how many channels were written) pass.
    const retriable = status === 429 || status >= 500;
    throw new CliError(`the proxy answered HTTP ${status}${said === undefined ? '' : `: ${said}`}`, 1, retriable);
  }
  const data = (body as { success?: unknown; data?: unknown } | undefined)?.data;
  const parsed = importReportSchema.safeParse(data);
  if ((body as { success?: unknown } | undefined)?.success !== true || !parsed.success) {
    throw new CliError('the proxy answered HTTP 200 without an import report: is --url the channel proxy API?');
  }
  return parsed.data;
}

function networkReason(e: unknown): string {
  if (e instanceof Error && e.name === 'TimeoutError') return `no answer within ${CALL_TIMEOUT_MS / 1_000} s`;
  const cause = (e as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return shown(cause.code);
  if (typeof cause?.message === 'string') return shown(cause.message);
  return shown(e instanceof Error ? e.message : String(e));
}
