import type { ChannelSettings } from '#shared/schemas/channel-settings';
import type { RowValues } from './family.ts';

/*
 * Readers of a hub row's text values (families/hub.ts): a value arrives as text or null (families/family.ts RowValues)
 * and is read as One Hub's Go model reads it. A JSON column is empty also when it holds '{}' or '[]' (what One Hub's
 * editor saves), and a value One Hub cannot parse is INVALID, so a settings reader can name it.
 */

export function text(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function setText(
  settings: ChannelSettings,
  field: 'tag' | 'testModel' | 'proxyUrl',
  value: string | null | undefined,
) {
  const v = text(value);
  if (v !== '') settings[field] = v;
}

/** A JSON settings column: empty (NULL, '', '{}', '[]', 'null' — what an untouched editor saves) or a value. */
export function jsonColumn(value: string | null | undefined): { state: 'empty' } | { state: 'value'; value: unknown } {
  const raw = text(value);
  if (raw === '' || raw === '{}' || raw === '[]' || raw === 'null') return { state: 'empty' };
  const parsed = parseJson(raw);
  return { state: 'value', value: parsed === undefined ? INVALID : parsed };
}

export const INVALID = Symbol('invalid JSON');

export function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

export function integer(value: string | null | undefined): number | undefined {
  const v = text(value);
  if (!/^-?\d{1,15}$/.test(v)) return undefined;
  return Number(v);
}

export function decimal(value: string | null | undefined): number | undefined {
  const v = text(value);
  return /^-?\d{1,15}(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** MySQL returns a boolean as 1/0, PostgreSQL as true/false (t/f in some clients). */
export function bool(value: string | null | undefined): boolean {
  const v = text(value).toLowerCase();
  return v === '1' || v === 'true' || v === 't';
}

/** Whether the row's `plugin` column turns the named plugin on (`{"<name>": {"enable": true}}`). */
export function pluginEnabled(row: RowValues, name: string): boolean {
  const plugin = parseJson(text(row.plugin));
  const entry = isRecord(plugin) ? plugin[name] : undefined;
  return isRecord(entry) && entry.enable === true;
}
