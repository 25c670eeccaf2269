import { ProxyApiError } from '#shared/errors';
import { type LegacyRow, NEWAPI_COLUMNS, type NewApiColumn } from './mapping.ts';
import type { SourceKind } from './providers.ts';

/*
 * The legacy `channels` table's columns: which ones the import needs, how it tells the legacy
 * gateway's table from New API's, and how a driver row becomes the mapper's row.
 */

/** Columns the import cannot do without (docs/channel-import.md). */
export const REQUIRED_COLUMNS = ['id', 'type', 'key', 'status', 'base_url', 'models'] as const;
/** Columns read when present; the v0.5 schema lacks `config`. `group` names the routes a row serves. */
export const OPTIONAL_COLUMNS = ['name', 'model_mapping', 'config', 'other', 'group'] as const;
/** Columns only New API (the most used fork of the legacy gateway) has: any one of them means its table. */
export const FORK_COLUMNS = ['tag', 'setting', 'auto_ban', 'status_code_mapping'] as const;
/**
 * Columns of the legacy gateway that New API's model never had: a table with these and a fork column matches
 * neither schema, so its type numbers cannot be trusted through either table.
 */
export const LEGACY_ONLY_COLUMNS = ['config', 'system_prompt'] as const;

export type SourceColumn = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number] | NewApiColumn;

/** Detects whose table it is and the columns to select; refuses a table that matches neither schema. */
export function checkColumns(
  present: ReadonlySet<string>,
  database: string,
): { kind: SourceKind; columns: SourceColumn[] } {
  if (present.size === 0) {
    throw new ProxyApiError(
      400,
      `The database ${JSON.stringify(database)} has no channels table (or the MySQL user may not read it)`,
    );
  }
  const fork = FORK_COLUMNS.filter((c) => present.has(c));
  const legacyOnly = LEGACY_ONLY_COLUMNS.filter((c) => present.has(c));
  if (fork.length > 0 && legacyOnly.length > 0) {
    throw new ProxyApiError(
      400,
      `The channels table has columns of a fork of the legacy gateway (${fork.join(', ')}) and columns New API ` +
        `never had (${legacyOnly.join(', ')}); its channel types cannot be read through either type table, ` +
        'so it cannot be imported',
    );
  }
  const missing = REQUIRED_COLUMNS.filter((c) => !present.has(c));
  if (missing.length > 0) {
    throw new ProxyApiError(400, `The channels table lacks required column(s): ${missing.join(', ')}`);
  }
  const kind: SourceKind = fork.length > 0 ? 'newapi' : 'legacygw';
  const optional: readonly SourceColumn[] =
    kind === 'newapi' ? [...OPTIONAL_COLUMNS, ...NEWAPI_COLUMNS] : OPTIONAL_COLUMNS;
  return { kind, columns: [...REQUIRED_COLUMNS, ...optional.filter((c) => present.has(c))] };
}

/** Converts a driver row into the mapper's shape: integers as numbers, text as strings, absent columns left out. */
export function toLegacyRow(raw: Record<string, unknown>, columns: readonly SourceColumn[]): LegacyRow {
  const row: LegacyRow = {
    id: Number(raw.id),
    type: toInteger(raw.type),
    key: toText(raw.key),
    status: toInteger(raw.status),
    base_url: toText(raw.base_url),
    models: toText(raw.models),
  };
  for (const column of columns) {
    if (column === 'channel_info') row[column] = toJsonText(raw[column]);
    else if (isOptionalColumn(column)) row[column] = toText(raw[column]);
  }
  return row;
}

function isOptionalColumn(
  column: SourceColumn,
): column is (typeof OPTIONAL_COLUMNS)[number] | Exclude<NewApiColumn, 'channel_info'> {
  return !(REQUIRED_COLUMNS as readonly string[]).includes(column) && column !== 'channel_info';
}

// mysql2 parses a MySQL JSON column into a value; MariaDB's JSON is LONGTEXT and arrives as text.
function toJsonText(value: unknown): string | null {
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return toText(value);
}

function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

// Binary collations and BLOB columns come back as Buffers; everything the import reads is text.
function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}
