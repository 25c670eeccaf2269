import type { Database, PreparedStatement, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { LIMITS } from '#functions/import-legacygw/limits';
import type { OversizeValue } from '#shared/oversize-value';
import { type ByteReader, registerFile, VFS_NAME, type VfsFile } from './byte-reader-vfs.ts';

/*
 * Reads the `channels` table of a One API / New API SQLite file (docs/channel-import.md, "SQLite files"), for the
 * console page (in a Worker) and `npm run import:sqlite` alike. The file is opened read-only through a VFS over a
 * byte reader, so only the header, the schema and the `channels` table's pages are read, whatever else the file
 * holds (a gateway's `logs` table is often most of it). A value over the reader's cap for its column is never read
 * in full: octet_length() takes its size from the record header, and the value is replaced by the oversize marker.
 */

export type { ByteReader } from './byte-reader-vfs.ts';

/** One cell as sent to the import: integers beyond 2^53 and BLOBs as text, an oversize value as the marker. */
export type CellValue = string | number | null | OversizeValue;

/** What went wrong with a file, for callers that act on it (messages are for people). */
export type SqliteFileProblem =
  | 'not-sqlite'
  | 'truncated'
  | 'corrupt'
  | 'no-channels-table'
  | 'too-many-columns'
  | 'too-many-rows'
  | 'unreadable';

/** A file that cannot be read as a gateway's SQLite database; the message says why in one sentence. */
export class SqliteFileError extends Error {
  constructor(
    readonly problem: SqliteFileProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SqliteFileError';
  }
}

/** An open `channels` table. */
export interface ChannelsFile {
  /** The table's column names, in the table's order. */
  columns(): string[];
  /** How many rows the table holds. */
  count(): number;
  /** The rows in id order, `batchSize` at a time, each row's values in the order of `columns()`. */
  batches(batchSize?: number): Generator<CellValue[][], void, undefined>;
  /** Whether the file was in WAL mode: changes still in its `-wal` file (not picked) are not read. */
  readonly walMode: boolean;
  /** Bytes of the file read so far (the header, the schema and the table's pages). */
  bytesRead(): number;
  /**
   * Another table of the gateway whose rows the token import needs (`tokens`, `users`, `options`; docs/relay.md), whole, with
   * the same caps per value; undefined when the file has no such table. At most `maxRows` rows (else an error).
   */
  table(name: 'tokens' | 'users' | 'options', maxRows: number): { columns: string[]; rows: CellValue[][] } | undefined;
  close(): void;
}

/**
 * The most of one value the reader reads: the import's own limit for the `key` column and, for every other column,
 * the largest limit of any other column (a settings column's). The import checks its exact limit per column.
 */
export const READER_CAPS = { key: LIMITS.keyColumnBytes, other: LIMITS.settingsColumnBytes } as const;

const DEFAULT_BATCH = 500;
// Two result columns per table column, and SQLite returns at most 2,000 (SQLITE_MAX_COLUMN). A gateway's table has
// about 40; the import takes at most 200.
const MAX_COLUMNS = 1_000;
const HEADER_BYTES = 100;
const MAGIC = 'SQLite format 3\u0000';

/** Opens the SQLite file behind `reader` read-only and checks that it has a `channels` table. */
export function openChannelsFile(sqlite3: Sqlite3Static, reader: ByteReader): ChannelsFile {
  let read = 0;
  const counted: ByteReader = {
    size: reader.size,
    read(offset, length) {
      const bytes = reader.read(offset, length);
      read += bytes.length;
      return bytes;
    },
  };
  checkHeader(counted);
  const file = registerFile(sqlite3, counted);
  let db: Database | undefined;
  try {
    db = run(sqlite3, file, () => new sqlite3.oo1.DB({ filename: file.name, flags: 'r', vfs: VFS_NAME }));
    const opened = db;
    // Sorting (a table whose id is not its rowid) stays in memory: the VFS opens no temporary files. The file's
    // schema is not trusted: it may call no function that is not harmless (a generated column, say).
    run(sqlite3, file, () => opened.exec('PRAGMA temp_store = MEMORY; PRAGMA trusted_schema = OFF'));
    const columns = run(sqlite3, file, () => tableColumns(opened));
    if (columns.length === 0) {
      throw new SqliteFileError(
        'no-channels-table',
        'The file has no `channels` table: it is not a One API or New API database',
      );
    }
    if (columns.length > MAX_COLUMNS) {
      throw new SqliteFileError(
        'too-many-columns',
        `The \`channels\` table has ${columns.length.toLocaleString('en')} columns (a gateway's has about 40): it is not a One API or New API table`,
      );
    }
    return channelsFile(sqlite3, opened, file, columns, () => read);
  } catch (e) {
    db?.close();
    file.unregister();
    throw e;
  }
}

function channelsFile(
  sqlite3: Sqlite3Static,
  db: Database,
  file: VfsFile,
  columns: readonly string[],
  bytesRead: () => number,
): ChannelsFile {
  const lower = columns.map((c) => c.toLowerCase());
  const orderBy = lower.includes('id') ? ` ORDER BY ${quote(columns[lower.indexOf('id')] ?? 'id')}` : '';
  // Two expressions per column: the value when within the cap, and its size when over it.
  const select = columns
    .map((column, i) => {
      const c = quote(column);
      // Cut as the SQL sources cut it (one character more than is kept, so the import can say it truncated), so a
      // long name imports as it does from MySQL rather than arriving over a cap.
      if (lower[i] === 'name') return `substr(CAST(${c} AS TEXT), 1, ${LIMITS.nameChars + 1}), NULL`;
      const cap = lower[i] === 'key' ? READER_CAPS.key : READER_CAPS.other;
      return `CASE WHEN octet_length(${c}) > ${cap} THEN NULL ELSE ${c} END, CASE WHEN octet_length(${c}) > ${cap} THEN octet_length(${c}) END`;
    })
    .join(', ');
  const sql = `SELECT ${select} FROM "channels"${orderBy}`;
  let closed = false;
  const active = new Set<PreparedStatement>();
  return {
    columns: () => [...columns],
    count: () => run(sqlite3, file, () => Number(db.selectValue('SELECT count(*) FROM "channels"') ?? 0)),
    get walMode() {
      return file.walHeader();
    },
    bytesRead,
    table(name, maxRows) {
      const names = run(sqlite3, file, () => tableColumns(db, name));
      if (names.length === 0) return undefined;
      const caps = names
        .map((column) => {
          const c = quote(column);
          return `CASE WHEN octet_length(${c}) > ${READER_CAPS.other} THEN NULL ELSE ${c} END, CASE WHEN octet_length(${c}) > ${READER_CAPS.other} THEN octet_length(${c}) END`;
        })
        .join(', ');
      const total = run(sqlite3, file, () => Number(db.selectValue(`SELECT count(*) FROM ${quote(name)}`) ?? 0));
      if (total > maxRows) {
        throw new SqliteFileError(
          'too-many-rows',
          `The \`${name}\` table has ${total.toLocaleString('en')} rows; at most ${maxRows.toLocaleString('en')} are sent`,
        );
      }
      const stmt = run(sqlite3, file, () => db.prepare(`SELECT ${caps} FROM ${quote(name)}`));
      try {
        const rows: CellValue[][] = [];
        while (run(sqlite3, file, () => stmt.step())) rows.push(names.map((_, i) => cell(stmt, i)));
        return { columns: names, rows };
      } finally {
        stmt.finalize();
      }
    },
    *batches(batchSize = DEFAULT_BATCH) {
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');
      const stmt = run(sqlite3, file, () => db.prepare(sql));
      active.add(stmt);
      try {
        let batch: CellValue[][] = [];
        while (run(sqlite3, file, () => stmt.step())) {
          batch.push(columns.map((_, i) => cell(stmt, i)));
          if (batch.length >= batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      } finally {
        active.delete(stmt);
        stmt.finalize();
      }
    },
    close() {
      if (closed) return;
      closed = true;
      for (const stmt of active) stmt.finalize();
      db.close();
      file.unregister();
    },
  };
}

const decoder = new TextDecoder('utf-8');

function cell(stmt: PreparedStatement, column: number): CellValue {
  const over = stmt.get(2 * column + 1);
  if (over !== null) return { oversizeBytes: Number(over) };
  const value = stmt.get(2 * column);
  if (value === null || typeof value === 'string') return value;
  // oo1 returns an integer beyond 2^53 as a bigint: carried as its exact text.
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  // GORM writes text columns as TEXT; a BLOB (written by some other tool) is read as the UTF-8 text it holds.
  return decoder.decode(value instanceof ArrayBuffer ? new Uint8Array(value) : value);
}

/** Column names of the table `name` (`channels` by default; any case), or none when there is no such table. */
function tableColumns(db: Database, name = 'channels'): string[] {
  // A view (or a virtual table) could run any query of the file's choosing each time it is read: only a table is.
  const kind = db.selectValue('SELECT type FROM sqlite_schema WHERE name = ? COLLATE NOCASE', [name]);
  if (kind !== undefined && kind !== 'table') {
    throw new SqliteFileError(
      'no-channels-table',
      `The file's \`${name}\` is a ${String(kind)}, not a table: it is not a One API or New API database`,
    );
  }
  const names: string[] = [];
  db.exec({
    sql: 'SELECT name FROM pragma_table_info(?)',
    bind: [name],
    rowMode: 0,
    callback: (name: unknown) => {
      names.push(String(name));
    },
  });
  return names;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Checks the 100-byte header before SQLite sees the file, for messages a person can act on: SQLite itself calls
 * every one of these cases "file is not a database" or "database disk image is malformed".
 */
function checkHeader(reader: ByteReader): void {
  if (reader.size < HEADER_BYTES) {
    throw new SqliteFileError('not-sqlite', `The file is not a SQLite database: it holds only ${reader.size} bytes`);
  }
  let header: Uint8Array;
  try {
    header = reader.read(0, HEADER_BYTES);
  } catch (e) {
    throw new SqliteFileError('unreadable', `The file could not be read: ${describe(e)}`, { cause: e });
  }
  if (header.length < HEADER_BYTES || String.fromCharCode(...header.subarray(0, 16)) !== MAGIC) {
    throw new SqliteFileError(
      'not-sqlite',
      'The file is not a SQLite database (or it is encrypted): it does not start with the SQLite header',
    );
  }
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65_536 || (pageSize & (pageSize - 1)) !== 0) {
    throw new SqliteFileError(
      'not-sqlite',
      `The file is not a readable SQLite database: its page size ${rawPageSize} is invalid`,
    );
  }
  // The in-header page count is trusted only when written by a SQLite that keeps it (3.7.0 and later).
  const pages = view.getUint32(28);
  const valid = view.getUint32(24) === view.getUint32(92);
  const expected = pages * pageSize;
  if (valid && pages > 0 && reader.size < expected) {
    throw new SqliteFileError(
      'truncated',
      `The file is truncated: its header describes ${expected.toLocaleString('en')} bytes but it holds ${reader.size.toLocaleString('en')} (copy it again, with the gateway stopped)`,
    );
  }
}

/** Runs one SQLite call and turns its failure into a SqliteFileError. */
function run<T>(sqlite3: Sqlite3Static, file: VfsFile, call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw toFileError(sqlite3, file, e);
  }
}

function toFileError(sqlite3: Sqlite3Static, file: VfsFile, e: unknown): unknown {
  if (e instanceof SqliteFileError) return e;
  const readerError = file.readerError();
  if (readerError !== undefined) {
    return new SqliteFileError('unreadable', `The file could not be read: ${describe(readerError)}`, {
      cause: readerError,
    });
  }
  if (!(e instanceof sqlite3.SQLite3Error)) return e;
  const { capi } = sqlite3;
  const primary = e.resultCode & 0xff;
  if (primary === capi.SQLITE_NOTADB) {
    return new SqliteFileError('not-sqlite', 'The file is not a SQLite database (or it is encrypted)', { cause: e });
  }
  if (primary === capi.SQLITE_CORRUPT || e.resultCode === capi.SQLITE_IOERR_SHORT_READ) {
    return new SqliteFileError(
      'corrupt',
      'The file is damaged or truncated: SQLite found pages missing or malformed (copy it again, with the gateway stopped)',
      { cause: e },
    );
  }
  return new SqliteFileError('unreadable', `SQLite could not read the file: ${e.message}`, { cause: e });
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
