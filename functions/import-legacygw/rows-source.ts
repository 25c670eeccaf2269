import type { RowCell } from '#shared/import-rows';
import { isOversizeValue } from '#shared/oversize-value';
import type { ColumnSpec, SourceRow } from './families/family.ts';
import type { RowSource, SourceOrigin } from './source.ts';

/*
 * Rows a client sent (docs/channel-import.md, "Rows sent by a client"): the console and `npm run import:sqlite` read
 * a gateway's SQLite file where it is and send its `channels` table to POST /api/channels/import/rows. This source
 * hands them to the import core exactly as the MySQL source hands a database's rows: each value as text or null,
 * integers as their decimal text, in id order, a name cut to one character more than is kept, and a value over its
 * limit null and named in `oversize`, so the mapping gives the same outcome and the same skip reason for it.
 */

/** Where rows sent with the request come from, as reports and stored channels name it: no network location. */
export const ROWS_ORIGIN: SourceOrigin = Object.freeze({ engine: 'rows', host: '', port: 0, database: '' });

/** One call's table: column names as the client sent them, rows of one value per column. */
export interface SentTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly RowCell[])[];
}

/** A source over a table sent with the request (validated by importRowsBodySchema: names unique, rows full). */
export function rowsSource(table: SentTable, origin: SourceOrigin = ROWS_ORIGIN): RowSource {
  const names = table.columns.map((c) => c.toLowerCase());
  return {
    origin,
    columns: async () => new Set(names),
    count: async () => table.rows.length,
    async *rows(select: readonly ColumnSpec[], limit: number): AsyncGenerator<SourceRow> {
      const at = select.map((column) => {
        const index = names.indexOf(column.name);
        if (index < 0) throw new Error(`The rows hold no column ${column.name}`);
        return index;
      });
      const idAt = names.indexOf('id');
      // As the SQL sources' `ORDER BY id LIMIT limit + 1`: the core refuses a table past its row cap.
      for (const row of inIdOrder(table.rows, idAt).slice(0, limit + 1)) {
        yield toSourceRow(row, select, at);
      }
    },
    close: async () => {},
  };
}

function toSourceRow(row: readonly RowCell[], select: readonly ColumnSpec[], at: readonly number[]): SourceRow {
  const values: Record<string, string | null> = {};
  const oversize: string[] = [];
  select.forEach((column, i) => {
    const cell = row[at[i] as number] ?? null;
    if (isOversizeValue(cell)) {
      // The client left the value unread as over its reader's cap, which is at least the column's limit: over its
      // limit, as a database source reports a value it did not fetch. (A `name` left unread skips its row; the
      // SQLite reader cuts names in its SELECT as SQL does, so it never leaves one unread.)
      values[column.name] = null;
      oversize.push(column.name);
      return;
    }
    const value = toText(cell);
    if (value === null) {
      values[column.name] = null;
    } else if (column.prefixChars !== undefined) {
      values[column.name] = leftCodePoints(value, column.prefixChars + 1);
    } else if (column.maxBytes !== null && overBytes(value, column.maxBytes)) {
      // As the SQL sources' OCTET_LENGTH check: the value is dropped and the column named, never a part kept.
      values[column.name] = null;
      oversize.push(column.name);
    } else {
      values[column.name] = value;
    }
  });
  return { values, oversize };
}

// A number is an integer column's value from SQLite or JSON: its decimal text, as MySQL's CAST(... AS CHAR) gives.
function toText(cell: string | number | null): string | null {
  if (cell === null) return null;
  return typeof cell === 'string' ? cell : String(cell);
}

/** MySQL's LEFT(value, n) on utf8mb4: the first n code points. */
function leftCodePoints(value: string, n: number): string {
  // UTF-16 length is at least the code point count, so a short value is returned without counting.
  if (value.length <= n) return value;
  let end = 0;
  for (let count = 0; count < n && end < value.length; count += 1) {
    const c = value.charCodeAt(end);
    end += c >= 0xd800 && c <= 0xdbff && end + 1 < value.length ? 2 : 1;
  }
  return value.slice(0, end);
}

/** Whether the value's UTF-8 bytes, as OCTET_LENGTH counts them on a utf8mb4 column, exceed `maxBytes`. */
function overBytes(value: string, maxBytes: number): boolean {
  // A UTF-16 unit is one to three bytes of UTF-8, so most values are decided without counting.
  if (value.length > maxBytes) return true;
  if (value.length * 3 <= maxBytes) return false;
  return Buffer.byteLength(value, 'utf8') > maxBytes;
}

/**
 * The rows in the order `ORDER BY id` gives them on a gateway's integer id: NULL first, then numbers by value (an
 * integer as text, even beyond 2^53, by its value), then any other text by code units. The sort is stable, so rows
 * with equal ids keep the order they were sent in.
 */
function inIdOrder(rows: readonly (readonly RowCell[])[], idAt: number): (readonly RowCell[])[] {
  const keyed = rows.map((row) => ({ row, key: idKey(idAt < 0 ? null : (row[idAt] ?? null)) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key));
  return keyed.map((k) => k.row);
}

type IdKey = { rank: 0 } | { rank: 1; value: number | bigint } | { rank: 2; value: string };

function idKey(cell: RowCell): IdKey {
  if (cell === null || isOversizeValue(cell)) return { rank: 0 };
  if (typeof cell === 'number') return { rank: 1, value: cell };
  const text = cell.trim();
  if (/^-?\d{1,400}$/.test(text)) return { rank: 1, value: BigInt(text) };
  return { rank: 2, value: cell };
}

function compareKeys(a: IdKey, b: IdKey): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.rank === 0 || b.rank === 0) return 0;
  // number and bigint compare by value with < and >, whatever their mix (=== would tell 1 from 1n).
  if (a.value < b.value) return -1;
  return a.value > b.value ? 1 : 0;
}
