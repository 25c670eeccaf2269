import type { ColumnSpec } from './families/family.ts';

/*
 * Limits on what one legacy row may hold (docs/channel-import.md, "Limits"). Sources check the byte limits in SQL
 * (or before decoding), so a value over its limit is never transferred; the core checks the rest after splitting.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

export const LIMITS = {
  /** The whole `key` column. */
  keyColumnBytes: 1 * MiB,
  /** One key after splitting. */
  keyBytes: 16 * KiB,
  keysPerRow: 1_000,
  baseUrlBytes: 2 * KiB,
  modelsBytes: 32 * KiB,
  modelsPerRow: 1_000,
  modelNameChars: 256,
  /** Each JSON or text settings column (also `group`). */
  settingsColumnBytes: 64 * KiB,
  /** Longest channel name in code points; a longer one is truncated. */
  nameChars: 64,
} as const;

/** The core's columns, read from every family's table when present (id, type, key, status, base_url and models must be). */
export const CORE_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', kind: 'integer', maxBytes: null },
  { name: 'type', kind: 'integer', maxBytes: null },
  { name: 'key', kind: 'text', maxBytes: LIMITS.keyColumnBytes },
  { name: 'status', kind: 'integer', maxBytes: null },
  { name: 'base_url', kind: 'text', maxBytes: LIMITS.baseUrlBytes },
  { name: 'models', kind: 'text', maxBytes: LIMITS.modelsBytes },
  // Cut in SQL: the name is truncated to 64 code points anyway, so a long one never needs transferring.
  { name: 'name', kind: 'text', maxBytes: null, prefixChars: LIMITS.nameChars },
  { name: 'group', kind: 'text', maxBytes: LIMITS.settingsColumnBytes },
  // GORM's soft delete (One Hub, Done Hub): any value means deleted, so only whether it is NULL matters.
  { name: 'deleted_at', kind: 'text', maxBytes: 64 },
];

/** Columns a table must have for any family. */
export const REQUIRED_COLUMNS = ['id', 'type', 'key', 'status', 'base_url', 'models'] as const;

/** A settings column of a family: JSON or text, bounded like every settings column. */
export function settingsColumn(name: string, kind: 'text' | 'json' = 'text'): ColumnSpec {
  return { name, kind, maxBytes: LIMITS.settingsColumnBytes };
}

/** An integer settings column of a family (priority, weight, ...). */
export function integerColumn(name: string): ColumnSpec {
  return { name, kind: 'integer', maxBytes: null };
}

/** A column whose SELECT returns its value only within `maxBytes` (not an integer, not cut to a prefix). */
export function hasByteLimit(column: ColumnSpec): column is ColumnSpec & { maxBytes: number } {
  return column.kind !== 'integer' && column.prefixChars === undefined && column.maxBytes !== null;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * The columns a SQL source's listing column names as over their limit: positions in `select`, in decimal, separated by
 * commas (empty or NULL: none). Only positions the SELECT bounded (`bounded`) count, each once: anything else a server
 * sends there names no column.
 */
export function overLimitColumns(
  listed: string | null,
  select: readonly ColumnSpec[],
  bounded: ReadonlySet<number>,
): readonly string[] {
  if (listed === null || listed === '') return NONE;
  const names: string[] = [];
  for (const part of listed.split(',')) {
    const at = /^\d{1,4}$/.test(part) ? Number(part) : -1;
    const column = bounded.has(at) ? select[at] : undefined;
    if (column !== undefined && !names.includes(column.name)) names.push(column.name);
  }
  return names.length > 0 ? names : NONE;
}
