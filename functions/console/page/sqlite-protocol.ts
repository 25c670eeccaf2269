/**
 * Messages between the console page and its SQLite worker (sqlite-worker.ts). The worker opens the picked file with
 * SQLite's WebAssembly build, reads the `channels` table only, and hands the page one call's body at a time, so the
 * page never holds more than one call (at most 5,000 rows and 5 MiB) of the table.
 */
import type { FamilyChoice, RowsCall } from '../../../shared/import-rows.ts';
import type { SqliteFileProblem } from './sqlite/channels-file.ts';

/** The token tables of the last call of a run with `tokens` (the rows route's `tokens` field). */
export interface TokenTablesCall {
  tokens: SentTable;
  users?: SentTable;
  options?: SentTable;
}
type SentTable = { columns: string[]; rows: unknown[][] };

/** Page → worker. */
export type ToWorker =
  /** Open the file (SQLite's wasm is fetched from `wasmUrl`) and reply `opened`. */
  | { type: 'open'; file: File; wasmUrl: string }
  /**
   * Start sending the table as calls from its first row (`dryRun` goes into each call's body); reply `call`. With
   * `tokens`, one more call after the channels carries the `tokens`, `users` and `options` tables (docs/relay.md, "Keys").
   */
  | { type: 'start'; dryRun: boolean; family?: FamilyChoice; tokens?: boolean }
  /** Send the next call, or `done`. */
  | { type: 'next' };

/** Worker → page. */
export type FromWorker =
  | { type: 'opened'; columns: string[]; rows: number; walMode: boolean }
  /** One call's body; `index` counts calls from 0, `rowsSent` the rows in this and the calls before it. */
  | { type: 'call'; call: RowsCall & { tokens?: TokenTablesCall }; index: number; rowsSent: number }
  /** `bytesRead`: bytes of the file read so far (its header, schema and `channels` pages: never the whole file). */
  | { type: 'done'; calls: number; bytesRead: number }
  /** A problem with the file (`problem` from the reader) or with loading SQLite itself (`problem` absent). */
  | { type: 'failed'; message: string; problem?: SqliteFileProblem | 'too-large-row' };
