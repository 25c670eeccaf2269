import type { ColumnSpec, SourceRow } from './families/family.ts';

/*
 * A source yields one `channels` table as (columns, rows), under limits it enforces before a value is transferred
 * (functions/import-legacygw/limits.ts). MySQL and PostgreSQL databases are sources; so are rows a client sends from
 * a SQLite file. The import core detects the family from the columns and maps the rows; it knows no source by name.
 */

/** Where the rows came from, as the report shows it (never credentials). */
export interface SourceOrigin {
  readonly engine: 'mysql' | 'postgres' | 'rows';
  readonly host: string;
  readonly port: number;
  readonly database: string;
}

/**
 * The tables of a legacy gateway a source may read: `channels`, and, when the caller asks for its keys
 * (docs/relay.md, "Keys"), `tokens` with `users` (a token's group) and `options` (ratios, routing options). Only these
 * names ever reach a query.
 */
export type LegacyTable = 'channels' | 'tokens' | 'users' | 'options';

/** The column a table's rows are read in order of: its primary key. */
export const ORDER_COLUMN: Readonly<Record<LegacyTable, string>> = {
  channels: 'id',
  tokens: 'id',
  users: 'id',
  options: 'key',
};

/** An open legacy database: its `channels` table, and the other LegacyTables when asked by name. */
export interface RowSource {
  readonly origin: SourceOrigin;
  /** Lower-case names of the table's columns (default `channels`); empty when there is no such table (or it cannot be read). */
  columns(table?: LegacyTable): Promise<ReadonlySet<string>>;
  /** How many rows the table holds (in the snapshot the rows are read from). */
  count(table?: LegacyTable): Promise<number>;
  /**
   * Streams the rows in ORDER_COLUMN order with the given columns (all present in the table), each value as text or
   * null, a value over its ColumnSpec limit null and named in `oversize`. At most `limit` rows are read (a SQL source
   * may read one more, for the caller to see that the table is over its cap).
   */
  rows(select: readonly ColumnSpec[], limit: number, table?: LegacyTable): AsyncIterable<SourceRow>;
  /** Ends the read; never throws. */
  close(): Promise<void>;
}
