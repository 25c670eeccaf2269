/*
 * Small readers of a source row's text values shared by the One API and New API families. A value arrives as text or
 * null (families/family.ts RowValues); these turn it into what Go's GORM model would have read.
 */

import type { ChannelSettings } from '#shared/schemas/channel-settings';

/** The value trimmed, or '' for null or absent. */
export function text(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** An integer column's value, or undefined when it is NULL or not a safe integer. */
export function integer(value: string | null | undefined): number | undefined {
  const t = text(value);
  if (!/^-?\d+$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A JSON column read as Go reads it: empty (NULL, blank, `null`), a parsed value, or text that is not JSON. */
export type JsonColumn =
  | { readonly state: 'empty' }
  | { readonly state: 'value'; readonly value: unknown }
  | { readonly state: 'invalid' };

export function jsonColumn(value: string | null | undefined): JsonColumn {
  const t = text(value);
  if (t === '') return { state: 'empty' };
  try {
    const parsed: unknown = JSON.parse(t);
    return parsed === null ? { state: 'empty' } : { state: 'value', value: parsed };
  } catch {
    return { state: 'invalid' };
  }
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose every value is a string. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** Go's zero values, which a GORM model or an editor writes for "not set": "", 0, false, null, [] and {}. */
export function isZeroValue(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return false;
}

/** Trimmed, empties dropped, first occurrence kept (case-sensitive). */
export function unique(parts: readonly string[]): string[] {
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ''))];
}

/** A comma-separated column (`group`) as its trimmed, non-empty, de-duplicated items. */
export function commaList(value: string | null | undefined): string[] {
  return unique(text(value).split(','));
}

/**
 * A model mapping column (JSON object: requested name -> upstream name) as both gateways apply it: an entry whose
 * target is empty maps nothing, so it is dropped. `undefined` when nothing is left; `invalid` when the column holds
 * something the gateway cannot read as such an object (it then maps nothing, but the operator meant something).
 */
export function modelMapping(value: string | null | undefined): Record<string, string> | undefined | 'invalid' {
  const column = jsonColumn(value);
  if (column.state === 'empty') return undefined;
  if (column.state === 'invalid' || !isStringRecord(column.value)) return 'invalid';
  const entries = Object.entries(column.value).filter(([from, to]) => from.trim() !== '' && to.trim() !== '');
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/**
 * The two settings One API and New API read alike: `model_mapping` (JSON an upstream cannot read is a warning, not a
 * setting) and a non-zero `priority`.
 */
export function mappingAndPriority(
  row: { model_mapping?: string | null; priority?: string | null },
  settings: ChannelSettings,
  warnings: string[],
): void {
  const mapping = modelMapping(row.model_mapping);
  if (mapping === 'invalid') warnings.push('model mapping not imported');
  else if (mapping !== undefined) settings.modelMapping = mapping;
  const priority = integer(row.priority);
  if (priority !== undefined && priority !== 0) settings.priority = priority;
}
