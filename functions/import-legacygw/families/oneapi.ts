import type { ChannelSettings } from '#shared/schemas/channel-settings';
import { integerColumn, settingsColumn } from '../limits.ts';
import { LEGACY_PROVIDERS, ONEAPI_TYPES_COMMIT } from '../providers.ts';
import type { Family, KeysResult, RowSettings, RowType, RowValues } from './family.ts';
import { commaList, isObject, jsonColumn, mappingAndPriority, text, unique } from './row-values.ts';

/*
 * One API (songquanpeng/one-api), v0.5 to the newest (docs/channel-import.md, "One API"). Every rule below was read in
 * One API at ONEAPI_TYPES_COMMIT: model/channel.go (the Channel model and ChannelConfig), model/ability.go (routing:
 * one ability per group and model of an enabled channel; `weight` is never read), middleware/distributor.go (which
 * column feeds what: the whole `key` is the key, `other` is a per-type fallback for `config`), relay/adaptor/* (how
 * each provider reads its credentials), web/default/src/pages/Channel/EditChannel.js (what the editor writes).
 */

const AZURE = 3;
const ALI = 17;
const XUNFEI = 18;
const AIPROXY_LIBRARY = 21;
const GEMINI = 24;
const AWS = 33;
const CLOUDFLARE = 37;
const VERTEX_AI = 42;

/**
 * Every column One API's Channel model has had since its first releases (GORM never drops a column, so a database
 * started on an old version keeps `accessed_time`). v0.5.0 has the first 17 but `priority` (added in v0.5.x),
 * v0.6.0 adds `config`, v0.6.9 `system_prompt`. A One API table has no other column.
 */
export const ONEAPI_SCHEMA_COLUMNS = [
  'id',
  'type',
  'key',
  'status',
  'name',
  'weight',
  'created_time',
  'accessed_time',
  'test_time',
  'response_time',
  'base_url',
  'other',
  'balance',
  'balance_updated_time',
  'models',
  'group',
  'used_quota',
  'model_mapping',
  'priority',
  'config',
  'system_prompt',
] as const;

/** Columns only One API's own versions added (v0.6.0, v0.6.9); a v0.5 table has neither. */
export const ONEAPI_OWN_COLUMNS = ['config', 'system_prompt'] as const;

const SCHEMA: ReadonlySet<string> = new Set(ONEAPI_SCHEMA_COLUMNS);

/**
 * A One API table has only One API's columns. Any other column is another gateway's (New API's `auto_ban`, One Hub's
 * `proxy`, ...) or unknown, and a table with one is not read through One API's numbers. Evidence: One API's own
 * columns when present, else every column (a v0.5 table is recognised by having nothing else).
 */
export function matchOneApi(columns: ReadonlySet<string>): readonly string[] | undefined {
  for (const column of columns) if (!SCHEMA.has(column)) return undefined;
  const own = ONEAPI_OWN_COLUMNS.filter((c) => columns.has(c));
  return own.length > 0 ? own : [...columns].sort();
}

// One API's ChannelConfig fields (model/channel.go). Anything else in `config` is dropped by Go's decoder.
type ConfigField =
  | 'region'
  | 'sk'
  | 'ak'
  | 'user_id'
  | 'api_version'
  | 'library_id'
  | 'plugin'
  | 'vertex_ai_project_id'
  | 'vertex_ai_adc';
type Config = Partial<Record<ConfigField, string>>;
const CONFIG_FIELDS: readonly ConfigField[] = [
  'region',
  'sk',
  'ak',
  'user_id',
  'api_version',
  'library_id',
  'plugin',
  'vertex_ai_project_id',
  'vertex_ai_adc',
];

// What One API's editor saves when no field is set: every field an empty string. Recognised without parsing (anchored,
// and linear: each part is followed by a character the next part cannot start with); anything else is parsed.
const ALL_EMPTY_CONFIG =
  /^\{[ \t\n\r]*(?:"[a-z_]{1,32}"[ \t\n\r]*:[ \t\n\r]*""[ \t\n\r]*(?:,[ \t\n\r]*"[a-z_]{1,32}"[ \t\n\r]*:[ \t\n\r]*""[ \t\n\r]*){0,31})?\}$/;

// A row's `config` is read by its keys and its settings: parsed once per row.
const configs = new WeakMap<RowValues, Config | 'invalid'>();

/** `config` as One API reads it, or `invalid` when it is not a JSON object (One API then reads no field of it). */
function readConfig(row: RowValues): Config | 'invalid' {
  const value = row.config;
  if (value === null || value === undefined || ALL_EMPTY_CONFIG.test(value)) return NO_CONFIG;
  let config = configs.get(row);
  if (config === undefined) {
    config = parseConfig(value);
    configs.set(row, config);
  }
  return config;
}

function parseConfig(value: string): Config | 'invalid' {
  const column = jsonColumn(value);
  if (column.state === 'empty') return NO_CONFIG;
  if (column.state === 'invalid' || !isObject(column.value)) return 'invalid';
  const config: Config = {};
  for (const field of CONFIG_FIELDS) {
    const fieldValue = column.value[field];
    // Go's decoder fails on a non-string value for a string field and leaves the field empty; so does this.
    if (typeof fieldValue === 'string' && fieldValue.trim() !== '') config[field] = fieldValue.trim();
  }
  return config;
}

const NO_CONFIG: Config = Object.freeze({});

/** The row's config (a copy: a caller may fill a field from `other`). */
function configOf(row: RowValues): Config {
  const config = readConfig(row);
  return config === 'invalid' ? {} : { ...config };
}

// The distributor's backward compatibility: for these types an empty config field falls back to `other`.
const OTHER_FALLBACK: ReadonlyMap<number, ConfigField> = new Map([
  [AZURE, 'api_version'],
  [XUNFEI, 'api_version'],
  [GEMINI, 'api_version'],
  [AIPROXY_LIBRARY, 'library_id'],
  [ALI, 'plugin'],
]);

/** The effective config: `config`'s fields, with `other` filling the one field the type reads from it. */
function effectiveConfig(row: RowValues, type: number): Config {
  const config = configOf(row);
  const field = OTHER_FALLBACK.get(type);
  const other = text(row.other);
  if (field !== undefined && config[field] === undefined && other !== '') config[field] = other;
  return config;
}

export const AWS_KEY_FORMAT = 'ak|sk|region';
export const VERTEX_KEY_FORMAT = 'region|project_id|ADC JSON';

/**
 * One API's keys. The relay sends the whole `key` column, and the editor turns several pasted keys into one row each;
 * a row holding several lines is therefore read as several keys (split on line breaks, trimmed, empties and repeats
 * dropped). AWS and Vertex AI read their credentials from `config` (relay/adaptor/aws, vertexai), which the editor
 * also writes into `key` as `ak|sk|region` and `region|project_id|ADC JSON`: the key is built from `config` when it
 * holds every part, else taken from `key` when that has the form, else the row is skipped naming the form.
 */
export function oneApiKeys(row: RowValues, { type }: RowType): KeysResult {
  const raw = text(row.key);
  if (type === AWS) {
    const { ak, sk, region } = configOf(row);
    if (ak !== undefined && sk !== undefined && region !== undefined) return { keys: [`${ak}|${sk}|${region}`] };
    if (raw === '') return { keys: [] };
    const parts = raw.split('|').map((p) => p.trim());
    if (parts.length === 3 && parts.every((p) => p !== '')) return { keys: [parts.join('|')] };
    return {
      skip: `AWS credentials not in the form ${AWS_KEY_FORMAT} (in config.ak, config.sk, config.region or key)`,
    };
  }
  if (type === VERTEX_AI) {
    const { region, vertex_ai_project_id: project, vertex_ai_adc: adc } = configOf(row);
    if (region !== undefined && project !== undefined && adc !== undefined)
      return { keys: [`${region}|${project}|${adc}`] };
    if (raw === '') return { keys: [] };
    if (isVertexKey(raw)) return { keys: [raw] };
    return {
      skip: `Vertex AI credentials not in the form ${VERTEX_KEY_FORMAT} (in config.region, config.vertex_ai_project_id, config.vertex_ai_adc or key)`,
    };
  }
  return { keys: unique(raw.split(/\r?\n/)) };
}

// region|project_id|{...}: the ADC JSON may itself hold `|`, so only the first two separate parts.
function isVertexKey(key: string): boolean {
  const first = key.indexOf('|');
  const second = key.indexOf('|', first + 1);
  if (first <= 0 || second <= first + 1) return false;
  const adc = jsonColumn(key.slice(second + 1));
  return adc.state === 'value' && isObject(adc.value);
}

/**
 * One API's settings: what changes where or how One API sends a request, carried when it differs from what One API
 * does when the operator sets nothing. Warnings name what is not carried and not default (docs/channel-import.md).
 */
export function oneApiSettings(row: RowValues, { type }: RowType): RowSettings {
  const settings: ChannelSettings = {};
  const extra: Record<string, unknown> = {};
  const warnings: string[] = [];

  mappingAndPriority(row, settings, warnings);
  const groups = commaList(row.group);
  if (groups.length > 0) settings.groups = groups;
  // Applied to every request since v0.6.9 (distributor.go: set when not empty).
  const systemPrompt = row.system_prompt ?? '';
  if (systemPrompt.trim() !== '') settings.systemPrompt = systemPrompt;

  const notCarried: string[] = [];
  if (readConfig(row) === 'invalid') notCarried.push('config');
  const config = effectiveConfig(row, type);
  const consumedByKey: ReadonlySet<ConfigField> =
    type === AWS ? new Set(['ak', 'sk']) : type === VERTEX_AI ? new Set(['vertex_ai_adc']) : new Set();
  for (const field of CONFIG_FIELDS) {
    const value = config[field];
    if (value === undefined || consumedByKey.has(field)) continue;
    switch (field) {
      case 'region':
        settings.region = value;
        break;
      case 'api_version':
        settings.apiVersion = value;
        break;
      case 'vertex_ai_project_id':
        settings.projectId = value;
        break;
      case 'user_id':
        // Cloudflare puts it in the URL as the account id; Coze sends it as the user (relay/adaptor/cloudflare, coze).
        if (type === CLOUDFLARE) settings.accountId = value;
        else settings.userId = value;
        break;
      default:
        // library_id, plugin; ak, sk and vertex_ai_adc on a row whose type does not build its key from them.
        extra[field] = value;
    }
  }
  if (Object.keys(extra).length > 0) settings.extra = extra;
  if (notCarried.length > 0) warnings.push(`legacy config not imported: ${notCarried.join(', ')}`);
  return { settings, warnings };
}

export const ONEAPI: Family = {
  kind: 'oneapi',
  name: 'One API',
  upstream: { repository: 'songquanpeng/one-api', commit: ONEAPI_TYPES_COMMIT },
  match: matchOneApi,
  schemaColumns: SCHEMA,
  // One Hub v0.5.8 to v0.5.10 kept One API's columns and added none: such a table has neither of One API's own.
  lookalike: { kind: 'onehub', applies: (columns) => !ONEAPI_OWN_COLUMNS.some((c) => columns.has(c)) },
  types: LEGACY_PROVIDERS,
  columns: [
    settingsColumn('other'),
    settingsColumn('model_mapping', 'json'),
    settingsColumn('config', 'json'),
    settingsColumn('system_prompt'),
    integerColumn('priority'),
  ],
  keys: oneApiKeys,
  settings: oneApiSettings,
};
