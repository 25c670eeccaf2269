import { integerColumn, settingsColumn } from '../limits.ts';
import { splitLines, trimOrEmpty, unique } from '../mapping.ts';
import { LEGACY_PROVIDERS, NEWAPI_PROVIDERS, NEWAPI_TYPES_COMMIT } from '../providers.ts';
import type { Family, RowValues } from './family.ts';

/*
 * INTERIM: the two families the import read before families were data (the legacy gateway = One API, and New API),
 * expressed as Family values so the core can move first. The family modules written from each gateway's own source
 * replace this file.
 */

const FORK_COLUMNS = ['tag', 'setting', 'auto_ban', 'status_code_mapping'];

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

export const ONEAPI_INTERIM: Family = {
  kind: 'oneapi',
  name: 'One API',
  upstream: { repository: 'songquanpeng/one-api', commit: 'unrecorded' },
  match: (columns) => (FORK_COLUMNS.some((c) => columns.has(c)) ? undefined : ['no New API column']),
  types: LEGACY_PROVIDERS,
  columns: ['model_mapping', 'config', 'other', 'system_prompt'].map((c) => settingsColumn(c)),
  keys: (row) => ({ keys: splitLines(row.key) }),
  settings: (row) => {
    const warnings: string[] = [];
    if (hasModelMapping(row.model_mapping)) warnings.push('model mapping not imported');
    const fields = [...(trimOrEmpty(row.other) ? ['other'] : []), ...configFieldsWithValues(row.config)];
    if (fields.length > 0) warnings.push(`legacy config not imported: ${fields.join(', ')}`);
    return { settings: {}, warnings };
  },
};

const NEWAPI_JSON_SETTINGS = ['setting', 'settings', 'param_override', 'header_override', 'status_code_mapping'];
const NEWAPI_TEXT_SETTINGS = ['tag', 'openai_organization', 'remark'];

export const NEWAPI_INTERIM: Family = {
  kind: 'newapi',
  name: 'New API',
  upstream: { repository: 'QuantumNous/new-api', commit: NEWAPI_TYPES_COMMIT },
  match: (columns) => {
    const evidence = FORK_COLUMNS.filter((c) => columns.has(c));
    return evidence.length > 0 ? evidence : undefined;
  },
  types: NEWAPI_PROVIDERS,
  columns: [
    ...['model_mapping', 'other', 'channel_info', ...NEWAPI_JSON_SETTINGS, ...NEWAPI_TEXT_SETTINGS].map((c) =>
      settingsColumn(c, c === 'channel_info' ? 'json' : 'text'),
    ),
    integerColumn('priority'),
  ],
  keys: (row) => ({ keys: newApiKeys(row) }),
  settings: (row) => {
    const warnings: string[] = [];
    if (hasModelMapping(row.model_mapping)) warnings.push('model mapping not imported');
    const fields = [
      ...(trimOrEmpty(row.other) ? ['other'] : []),
      ...NEWAPI_JSON_SETTINGS.filter((f) => !['', '{}', 'null'].includes(compact(row[f]))),
      ...NEWAPI_TEXT_SETTINGS.filter((f) => trimOrEmpty(row[f]) !== ''),
    ];
    if (fields.length > 0) warnings.push(`legacy config not imported: ${fields.join(', ')}`);
    return { settings: {}, warnings };
  },
};

export const INTERIM_FAMILIES: readonly Family[] = [ONEAPI_INTERIM, NEWAPI_INTERIM];

function newApiKeys(row: RowValues): string[] {
  const key = trimOrEmpty(row.key);
  if (!isMultiKey(row.channel_info)) return key === '' ? [] : [key];
  if (key.startsWith('[')) {
    const elements = parseJson(key);
    if (Array.isArray(elements)) return unique(elements.map(keyFromElement));
  }
  return splitLines(key);
}

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

function hasModelMapping(raw: string | null | undefined): boolean {
  const text = compact(raw);
  return text !== '' && text !== '{}';
}

function compact(raw: string | null | undefined): string {
  return typeof raw === 'string' ? raw.replace(/\s/g, '') : '';
}

function configFieldsWithValues(raw: string | null | undefined): string[] {
  const text = trimOrEmpty(raw);
  if (text === '') return [];
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

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === false || value === 0) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}
