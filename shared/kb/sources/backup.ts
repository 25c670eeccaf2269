import { SourceError } from '../contract.ts';
import { parseCsv } from './files.ts';

/*
 * FastGPT's backup files (docs/knowledge-base-sources.md, "Backup and template import"): the CSV its `collection/export` writes and
 * its `collection/create/backup` reads back, one chunk a row after a header row, never split again. Two headers, both
 * read (FastGPT reads both; packages/service/core/dataset/parseBackup.ts at c5a223d5 and the multipart description of
 * packages/global/openapi/core/dataset/collection/createApi.ts at 04b3226b):
 * - named columns `q`, `a`, `index` (any number of them) and `metadata`, in any order (a header with `q` and `index`);
 * - the older `q,a,indexes`: `q` first, `a` second, index texts in the column headed `indexes` and every column after
 *   it (without such a header, every column from the third); columns between `a` and `indexes` are metadata. FastGPT's
 *   `collection/export` (read at 06ab0a7c) writes this shape under the header `index,content`: q, then a.
 * FastGPT's per-chunk metadata is not kept by this product. A row with neither `q` nor `a`, and an empty index text,
 * are skipped. Excel backups are not read here: a .csv only.
 */

/** One chunk of a backup file. */
export interface BackupItem {
  readonly q: string;
  readonly a: string;
  /** The chunk's own index texts (FastGPT's `custom` indexes), beside its default index. */
  readonly indexes: readonly string[];
}

/** Rows a backup collection holds at most: FastGPT's export writes at most 50,000 chunks of a collection. */
export const MAX_BACKUP_ROWS = 50_000;

/** Which columns hold a row's q, a and index texts, from the header. */
function columnsOf(header: readonly string[]): { q: number; a: number; indexes: (row: readonly string[]) => string[] } {
  // trim() drops a byte-order mark before the first name too (U+FEFF is white space to it).
  const names = header.map((cell) => cell.trim().toLowerCase());
  // Named columns only with a `q` column: FastGPT's own export heads its q and a columns `index,content`, which its
  // positional reading takes as q and a.
  if (names.includes('q') && names.includes('index')) {
    const indexColumns = names.flatMap((name, i) => (name === 'index' ? [i] : []));
    return { q: names.indexOf('q'), a: names.indexOf('a'), indexes: (row) => indexColumns.map((i) => row[i] ?? '') };
  }
  const named = names.indexOf('indexes');
  const from = named >= 2 ? named : 2;
  return { q: 0, a: 1, indexes: (row) => row.slice(from) };
}

/** The chunks of a backup CSV; SourceError when it holds none or too many. */
export function backupItems(text: string): BackupItem[] {
  const [header, ...rows] = parseCsv(text);
  const columns = columnsOf(header ?? []);
  const items: BackupItem[] = [];
  for (const row of rows) {
    const q = (row[columns.q] ?? '').trim();
    const a = (row[columns.a] ?? '').trim();
    if (q === '' && a === '') continue;
    const indexes = columns
      .indexes(row)
      .map((cell) => cell.trim())
      .filter((cell) => cell !== '');
    items.push({ q, a, indexes });
  }
  if (items.length === 0) {
    throw new SourceError('the backup file holds no chunk: a header row (q, a, index), then a row for each chunk');
  }
  if (items.length > MAX_BACKUP_ROWS) {
    throw new SourceError(`the backup file holds more than ${MAX_BACKUP_ROWS.toLocaleString('en')} chunks`);
  }
  return items;
}
