import * as crypto from 'node:crypto';
import type { StoredChannel } from '#shared/repositories/channels';
import { legacyProvider, type SourceKind } from './providers.ts';

/** One row of the legacy `channels` table; the optional columns are absent when the schema lacks them. */
export interface LegacyRow extends Partial<Record<NewApiColumn, string | null>> {
  id: number;
  type: number | null;
  key: string | null;
  status: number | null;
  base_url: string | null;
  models: string | null;
  name?: string | null;
  model_mapping?: string | null;
  config?: string | null;
  other?: string | null;
  group?: string | null;
}

/**
 * New API's own columns that the import reads (docs/channel-import.md): `channel_info` decides the key rule, the
 * others are its settings, named in a warning when they hold more than New API's default.
 */
export const NEWAPI_COLUMNS = [
  'channel_info',
  'setting',
  'settings',
  'param_override',
  'header_override',
  'status_code_mapping',
  'tag',
  'openai_organization',
  'remark',
] as const;
export type NewApiColumn = (typeof NEWAPI_COLUMNS)[number];

// New API's settings in the order a warning names them. JSON ones count as empty when '', '{}' or 'null'.
const NEWAPI_JSON_SETTINGS = [
  'setting',
  'settings',
  'param_override',
  'header_override',
  'status_code_mapping',
] as const;
const NEWAPI_TEXT_SETTINGS = ['tag', 'openai_organization', 'remark'] as const;

/** A channel as the import stores it (docs/channel-import.md), before `source` and timestamps are added. */
export type MappedChannel = Omit<StoredChannel, 'source' | 'createdAt' | 'updatedAt'> & { legacyId: number };

/** What became of one legacy row. Warnings and reasons name fields, never values. */
export type RowOutcome =
  | { legacyId: number; outcome: 'imported'; channels: MappedChannel[]; warnings: string[] }
  | { legacyId: number; outcome: 'skipped'; reason: string; warnings: string[] };

/** Longest channel name, in code points (docs/channel-import.md). */
export const MAX_NAME_LENGTH = 64;

// Fields of the legacy `config` JSON (docs/channel-import.md). Only these are named in a warning: a JSON key is
// free text, and a warning must never be able to carry a secret someone typed in as a key.
const KNOWN_CONFIG_FIELDS = new Set([
  'region',
  'sk',
  'ak',
  'user_id',
  'api_version',
  'library_id',
  'plugin',
  'vertex_ai_project_id',
  'vertex_ai_adc',
]);

// crypto.hash (Node 20.12 and later) digests in one call without a Hash object: a third of the per-channel cost of
// createHash, which stays for older Node versions. Both hash the same UTF-8 bytes.
const sha256Hex: (input: string) => string =
  typeof crypto.hash === 'function'
    ? (input) => crypto.hash('sha256', input, 'hex')
    : (input) => crypto.createHash('sha256').update(input).digest('hex');

/** sha256 hex of provider, baseUrl and key, each length-prefixed so no two triples share an input. */
export function channelId(provider: string, baseUrl: string, key: string): string {
  // One string is the same bytes as the three parts fed in turn: each part starts after an ASCII prefix, so no
  // surrogate pair is joined or split at a boundary.
  return sha256Hex(
    `${Buffer.byteLength(provider)}:${provider}${Buffer.byteLength(baseUrl)}:${baseUrl}${Buffer.byteLength(key)}:${key}`,
  );
}

/**
 * A mapper for one import run (docs/channel-import.md). It remembers the channel ids it has produced, so a later row whose
 * keys all repeat an earlier (provider, baseUrl, key) is skipped as `duplicate of legacy channel N`. A row where
 * only some keys repeat imports the new ones and warns with the count and the earlier legacy ids; its channels
 * keep the ` #n` suffix of the key's position in the row, so names do not depend on other rows.
 */
export function createRowMapper(kind: SourceKind = 'legacygw'): { map(row: LegacyRow): RowOutcome } {
  const seen = new Map<string, number>();

  function map(row: LegacyRow): RowOutcome {
    const legacyId = row.id;
    const legacyType = row.type;
    const type = legacyProvider(legacyType, kind);
    if (legacyType === null || type === undefined) {
      return skipped(legacyId, `unknown legacy channel type ${legacyType === null ? 'NULL' : String(legacyType)}`);
    }
    const keys = kind === 'newapi' ? newApiKeys(row) : splitKeys(row.key);
    if (keys.length === 0) return skipped(legacyId, 'no API key');

    const baseUrl = mapBaseUrl(row.base_url, type.defaultBaseUrl);
    const ids = keys.map((key) => channelId(type.provider, baseUrl, key));
    const earlier = ids.map((id) => seen.get(id));
    if (earlier.every((e) => e !== undefined)) {
      return skipped(legacyId, `duplicate of legacy channel ${earlier[0]}`);
    }

    const warnings: string[] = [];
    if (baseUrl === '') warnings.push('no base URL');
    const models = splitModels(row.models);
    if (models.length === 0) warnings.push('no models');
    const status = row.status === 1 ? 'enabled' : 'disabled';
    const baseName = trimOrEmpty(row.name) || `legacy-${legacyId}`;

    const channels: MappedChannel[] = [];
    let truncated = false;
    for (const [index, key] of keys.entries()) {
      const id = ids[index];
      if (id === undefined || earlier[index] !== undefined) continue;
      const name = channelName(baseName, index);
      truncated ||= name.truncated;
      channels.push({
        id,
        provider: type.provider,
        legacyType,
        name: name.value,
        baseUrl,
        models: [...models],
        key,
        status,
        legacyId,
      });
      seen.set(id, legacyId);
    }
    if (truncated) warnings.push('name truncated');

    const duplicateOf = [...new Set(earlier.filter((e) => e !== undefined))];
    if (duplicateOf.length > 0) {
      const count = keys.length - channels.length;
      warnings.push(
        `${count} ${count === 1 ? 'key' : 'keys'} skipped as duplicate of legacy ${duplicateOf.length === 1 ? 'channel' : 'channels'} ${duplicateOf.join(', ')}`,
      );
    }
    if (hasModelMapping(row.model_mapping)) warnings.push('model mapping not imported');
    const configFields = [
      ...(trimOrEmpty(row.other) ? ['other'] : []),
      ...configFieldsWithValues(row.config),
      ...(kind === 'newapi' ? newApiSettingsWithValues(row) : []),
    ];
    if (configFields.length > 0) warnings.push(`legacy config not imported: ${configFields.join(', ')}`);

    return { legacyId, outcome: 'imported', channels, warnings };
  }

  return { map };
}

function skipped(legacyId: number, reason: string): RowOutcome {
  return { legacyId, outcome: 'skipped', reason, warnings: [] };
}

function trimOrEmpty(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

function splitKeys(raw: string | null): string[] {
  return unique(trimOrEmpty(raw).split(/\r?\n/));
}

/**
 * New API's reading of `key`: a row is multi-key only when `channel_info` says `"is_multi_key": true`; then a JSON
 * array gives one key per element and anything else one key per line. Otherwise the whole key is one key, line
 * breaks included (a Vertex AI service-account JSON, an AWS `ak|sk|region`).
 */
function newApiKeys(row: LegacyRow): string[] {
  const key = trimOrEmpty(row.key);
  if (!isMultiKey(row.channel_info)) return key === '' ? [] : [key];
  if (key.startsWith('[')) {
    const elements = parseJson(key);
    if (Array.isArray(elements)) return unique(elements.map(keyFromElement));
  }
  return splitKeys(key);
}

// A string element is the key itself; anything else (a service-account object) is kept as its JSON text.
function keyFromElement(element: unknown): string {
  if (typeof element === 'string') return element;
  if (element === null || element === undefined) return '';
  return JSON.stringify(element);
}

function isMultiKey(channelInfo: string | null | undefined): boolean {
  const info = parseJson(trimOrEmpty(channelInfo));
  return typeof info === 'object' && info !== null && (info as { is_multi_key?: unknown }).is_multi_key === true;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// `auto_ban` and `channel_info` are in every New API row and are never named.
function newApiSettingsWithValues(row: LegacyRow): string[] {
  return [
    ...NEWAPI_JSON_SETTINGS.filter((field) => !['', '{}', 'null'].includes(compact(row[field]))),
    ...NEWAPI_TEXT_SETTINGS.filter((field) => trimOrEmpty(row[field]) !== ''),
  ];
}

/** Splits a `models` column: on commas, trimmed, empties dropped, first occurrence kept. */
export function splitModels(raw: string | null): string[] {
  return unique(trimOrEmpty(raw).split(','));
}

// Trimmed, empties dropped, first occurrence kept (case-sensitive).
function unique(parts: string[]): string[] {
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ''))];
}

// The slash is removed before the default is considered, so a bare "/" falls back to the default too.
function mapBaseUrl(raw: string | null, defaultBaseUrl: string | null): string {
  const trimmed = trimOrEmpty(raw);
  const url = trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
  return url || defaultBaseUrl || '';
}

// Counted in code points so a name is never cut inside a surrogate pair.
function channelName(baseName: string, index: number): { value: string; truncated: boolean } {
  const suffix = index === 0 ? '' : ` #${index + 1}`;
  const codePoints = [...baseName];
  const room = MAX_NAME_LENGTH - suffix.length;
  if (codePoints.length <= room) return { value: baseName + suffix, truncated: false };
  return { value: codePoints.slice(0, room).join('').trimEnd() + suffix, truncated: true };
}

function hasModelMapping(raw: string | null | undefined): boolean {
  const text = compact(raw);
  return text !== '' && text !== '{}';
}

// Whitespace removed, so `{ }` reads as `{}`.
function compact(raw: string | null | undefined): string {
  return typeof raw === 'string' ? raw.replace(/\s/g, '') : '';
}

// The legacy gateway writes every config field, so most rows hold an object of empty values only; this recognises
// one without parsing it. It matches only valid JSON (JSON's whitespace, no trailing comma, keys without escapes or
// control characters) whose every value is "", null, false, 0, [] or {}: what isEmptyValue calls empty, so the
// answer is the one parsing gives. Each repetition starts with a literal, so matching stays linear.
const JSON_WS = '[ \\t\\n\\r]*';
const EMPTY_MEMBER = `"[^"\\\\\\u0000-\\u001f]*"${JSON_WS}:${JSON_WS}(?:""|null|false|0|\\[${JSON_WS}\\]|\\{${JSON_WS}\\})`;
const EMPTY_VALUES_OBJECT = new RegExp(
  `^\\{${JSON_WS}(?:${EMPTY_MEMBER}${JSON_WS}(?:,${JSON_WS}${EMPTY_MEMBER}${JSON_WS})*)?\\}$`,
);

// Names the known `config` fields that hold a value; unknown fields with a value, and a config that is not a
// JSON object, are reported as plain `config`.
function configFieldsWithValues(raw: string | null | undefined): string[] {
  const text = trimOrEmpty(raw);
  if (text === '' || EMPTY_VALUES_OBJECT.test(text)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return ['config'];
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return isEmptyValue(parsed) ? [] : ['config'];
  }
  const fields: string[] = [];
  let unknownWithValue = false;
  for (const [field, value] of Object.entries(parsed)) {
    if (isEmptyValue(value)) continue;
    if (KNOWN_CONFIG_FIELDS.has(field)) fields.push(`config.${field}`);
    else unknownWithValue = true;
  }
  if (unknownWithValue) fields.push('config');
  return fields;
}

// Go's zero values: the legacy gateway writes every config field, empty ones included.
function isEmptyValue(value: unknown): boolean {
  if (value === null || value === false || value === 0) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}
