import type { RowCell } from '#shared/import-rows';
import type { StoredChannel } from '#shared/repositories/channels';
import type { TestMariaDb } from '#test/support/mariadb';

/** The rows route of the channel proxy API. */
export const ROWS_PATH = '/api/channels/import/rows';

/**
 * A database's `channels` table as a client that read it from SQLite sends it: the columns in table order, the rows
 * in id order, integers as JSON numbers (an integer beyond 2^53 as text), everything else as text or null.
 */
export async function tableAsRows(
  db: TestMariaDb,
  database: string,
): Promise<{ columns: string[]; rows: RowCell[][] }> {
  const columns = (await db.query(
    'SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
    [database, 'channels'],
  )) as { name: string }[];
  const names = columns.map((c) => String(c.name));
  const rows = (await db.query(`SELECT * FROM \`${database}\`.channels ORDER BY id`)) as Record<string, unknown>[];
  return { columns: names, rows: rows.map((row) => names.map((name) => asCell(row[name]))) };
}

function asCell(value: unknown): RowCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    // mysql2 reads a BIGINT beyond 2^53 as a rounded number: the fixtures hold none, and a test must not round one.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) throw new Error(`${value} lost digits`);
    return value;
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return JSON.stringify(value);
}

/** A stored channel without what differs by source and clock: where it was read from and when it was written. */
export function comparable(channel: StoredChannel): Omit<StoredChannel, 'createdAt' | 'updatedAt' | 'source'> & {
  legacyId: number | string;
} {
  const { createdAt: _c, updatedAt: _u, source, ...rest } = channel;
  return { ...rest, legacyId: source.legacyId };
}
