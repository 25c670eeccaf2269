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

/** An open `channels` table. */
export interface RowSource {
  readonly origin: SourceOrigin;
  /** Lower-case names of the `channels` table's columns; empty when there is no such table (or it cannot be read). */
  columns(): Promise<ReadonlySet<string>>;
  /** How many rows the table holds (in the snapshot the rows are read from). */
  count(): Promise<number>;
  /**
   * Streams the rows in id order with the given columns (all present in the table), each value as text or null, a
   * value over its ColumnSpec limit null and named in `oversize`. At most `limit` rows are read.
   */
  rows(select: readonly ColumnSpec[], limit: number): AsyncIterable<SourceRow>;
  /** Ends the read; never throws. */
  close(): Promise<void>;
}
