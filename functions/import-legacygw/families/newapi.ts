import type { ChannelSettings } from '#shared/schemas/channel-settings';
import { integerColumn, settingsColumn } from '../limits.ts';
import { NEWAPI_PROVIDERS, NEWAPI_TYPES_COMMIT } from '../providers.ts';
import type { Family, KeysResult, RowSettings, RowType, RowValues } from './family.ts';
import { DONEHUB_COLUMNS, HUB_COLUMNS, NEWAPI_OWN_COLUMNS, NEWAPI_SCHEMA_EXTRA, present } from './fingerprints.ts';
import { AWS_KEY_FORMAT, ONEAPI_SCHEMA_COLUMNS, VERTEX_KEY_FORMAT } from './oneapi.ts';
import {
  commaList,
  integer,
  isObject,
  isZeroValue,
  type JsonColumn,
  jsonColumn,
  mappingAndPriority,
  text,
} from './row-values.ts';

/*
 * New API (QuantumNous/new-api, formerly Calcium-Ion/new-api), every version (docs/channel-import.md, "New API").
 * Read in QuantumNous/new-api: constant/channel.go at NEWAPI_TYPES_COMMIT (types, defaults); model/channel.go at
 * 0102ffab86da3461be812c605d92800649e6eb06 (columns, GetKeys, GetNextEnabledKey, ChannelInfo); dto/channel_settings.go
 * at 009452085d0e4f011332ad71ec71f0f51a42852b (`setting` and `settings`); middleware/distributor.go at
 * 003d7c0089a887d2e52247cfcf75c003bd579d54 (what `other` means per type); relay/channel/aws/relay-aws.go at
 * 0564a1fb490672b6935849af8a6123425cd6b866 and relay/channel/vertex/{adaptor,relay-vertex}.go at
 * 041eeec3fa500c02324c5d3bf1abf07358144b91 / 59cbd9356156dd9373439c473410e081aca90baf (credentials); and the Channel
 * model of every tag of Calcium-Ion/new-api from v0.0.4 (December 2023) to ef8ae4db8052c44b1382d3f3f7cd20a177338728.
 */

const AZURE = 3;
const ALI = 17;
const XUNFEI = 18;
const GEMINI = 24;
const AWS = 33;
const CLOUDFLARE = 39;
const VERTEX_AI = 41;
const MOKAAI = 44;
const COZE = 49;

// Columns only One Hub or Done Hub have: New API never had one, so a table with one of them and one of New API's own
// is neither gateway's as it was written, and is refused rather than read through either table.
const HUB_ONLY_COLUMNS = [...HUB_COLUMNS, ...DONEHUB_COLUMNS.filter((c) => c !== 'header_override')];

/**
 * A New API table has one of New API's own columns and none of One Hub's or Done Hub's. One API's columns may be there
 * too (`config`, `system_prompt`: a database upgraded in place keeps them); New API ignores them and so does the import.
 */
export function matchNewApi(columns: ReadonlySet<string>): readonly string[] | undefined {
  const own = present(columns, NEWAPI_OWN_COLUMNS);
  if (own.length === 0 || present(columns, HUB_ONLY_COLUMNS).length > 0) return undefined;
  return own;
}

interface RowKey {
  readonly key: string;
  readonly enabled: boolean;
}

/**
 * The keys New API uses for a row (model/channel.go GetKeys, GetNextEnabledKey): the whole `key` unless `channel_info`
 * says `is_multi_key: true`; then a JSON array gives one key per element and anything else one key per line, and
 * `multi_key_status_list` (key position -> status) marks the keys New API no longer uses (any status but 1).
 */
function rowKeys(row: RowValues): RowKey[] {
  const raw = row.key ?? '';
  const info = jsonColumn(row.channel_info);
  const multi = info.state === 'value' && isObject(info.value) && info.value.is_multi_key === true;
  if (!multi) {
    const key = raw.trim();
    return key === '' ? [] : [{ key, enabled: true }];
  }
  const statusList =
    isObject(info.value) && isObject(info.value.multi_key_status_list) ? info.value.multi_key_status_list : {};
  const enabledAt = (index: number) => {
    const status = statusList[String(index)];
    return status === undefined || status === null || status === 1;
  };
  const trimmed = raw.trim();
  let elements: string[] | undefined;
  if (trimmed.startsWith('[')) {
    const array = jsonColumn(trimmed);
    if (array.state === 'value' && Array.isArray(array.value)) elements = array.value.map(keyFromElement);
  }
  // New API splits on "\n" after trimming line feeds only, so positions in the status list count every line.
  elements ??= raw.replace(/^\n+|\n+$/g, '').split('\n');
  const byKey = new Map<string, boolean>();
  elements.forEach((element, index) => {
    const key = element.trim();
    if (key !== '') byKey.set(key, (byKey.get(key) ?? false) || enabledAt(index));
  });
  return [...byKey].map(([key, enabled]) => ({ key, enabled }));
}

// A string element is the key itself; an object (a Vertex AI service account) is kept as its JSON text.
function keyFromElement(element: unknown): string {
  if (typeof element === 'string') return element;
  if (element === null || element === undefined) return '';
  return JSON.stringify(element);
}

function otherSettingsOf(row: RowValues): Record<string, unknown> {
  const column = jsonColumn(row.settings);
  return column.state === 'value' && isObject(column.value) ? column.value : {};
}

/**
 * Vertex AI's region as New API reads it from `other` (relay-vertex.go GetModelRegion): the text itself, or for a
 * JSON object its `default` ("global" without one); the object's other entries are per-model regions.
 */
function vertexRegion(row: RowValues): { region: string; byModel?: Record<string, string> } {
  const other = text(row.other);
  const column = other.startsWith('{') ? jsonColumn(other) : undefined;
  if (column?.state !== 'value' || !isObject(column.value)) return { region: other };
  const { default: fallback, ...byModel } = column.value;
  const regions = Object.fromEntries(Object.entries(byModel).filter(([, r]) => typeof r === 'string' && r !== ''));
  return {
    region: typeof fallback === 'string' && fallback !== '' ? fallback : 'global',
    ...(Object.keys(regions).length > 0 ? { byModel: regions as Record<string, string> } : {}),
  };
}

/** A key converted to the product's format for the provider, or the reason it cannot be. */
function productKey(key: string, type: number, row: RowValues): string | { skip: string } {
  if (type === AWS) {
    const parts = key.split('|').map((p) => p.trim());
    if (otherSettingsOf(row).aws_key_type === 'api_key' || parts.length === 2) {
      return {
        skip: `AWS API-key credentials (apiKey|region) have no form in the product's AWS key ${AWS_KEY_FORMAT}`,
      };
    }
    if (parts.length === 3 && parts.every((p) => p !== '')) return parts.join('|');
    return { skip: `AWS credentials not in the form ${AWS_KEY_FORMAT}` };
  }
  if (type === VERTEX_AI) {
    if (otherSettingsOf(row).vertex_key_type === 'api_key') {
      return {
        skip: `Vertex AI API key (express mode) has no form in the product's Vertex AI key ${VERTEX_KEY_FORMAT}`,
      };
    }
    const account = jsonColumn(key);
    const project = account.state === 'value' && isObject(account.value) ? account.value.project_id : undefined;
    if (typeof project !== 'string' || project.trim() === '') {
      return {
        skip: `Vertex AI key is not a service-account JSON with a project_id (product's form ${VERTEX_KEY_FORMAT})`,
      };
    }
    const { region } = vertexRegion(row);
    if (region === '') return { skip: `Vertex AI region missing in other (product's form ${VERTEX_KEY_FORMAT})` };
    return `${region}|${project.trim()}|${key}`;
  }
  return key;
}

/**
 * New API numbered 2, 4 and 5 as One API does until v0.2.0.1 / v0.2.0.2 (API2D, CloseAI, OpenAI-SB) and as
 * Midjourney, Ollama and Midjourney-Plus after. Every version since v0.2.1.0-alpha.24 adds `test_model` when it
 * starts, so a table without that column was last opened by a version that may have read them either way.
 */
const RENUMBERED: ReadonlyMap<number, string> = new Map([
  [2, 'API2D until v0.2.0.1'],
  [4, 'CloseAI until v0.2.0.2'],
  [5, 'OpenAI-SB until v0.2.0.2'],
]);

/** New API's keys in the product's format; keys New API no longer uses in a multi-key row are listed as disabled. */
export function newApiKeys(row: RowValues, { type }: RowType): KeysResult {
  const before = RENUMBERED.get(type);
  if (before !== undefined && !Object.hasOwn(row, 'test_model')) {
    return { skip: `New API type ${type} is ambiguous in a table without test_model, older than v0.2.1 (${before})` };
  }
  const keys: string[] = [];
  const disabled: number[] = [];
  for (const { key, enabled } of rowKeys(row)) {
    const converted = productKey(key, type, row);
    if (typeof converted !== 'string') return converted;
    if (keys.includes(converted)) continue;
    if (!enabled) disabled.push(keys.length);
    keys.push(converted);
  }
  return disabled.length > 0 ? { keys, disabled } : { keys };
}

// `setting` (dto.ChannelSettings) fields carried into named settings; the rest go to `extra` when not default.
const SETTING_NAMED: Readonly<Record<string, 'proxyUrl' | 'systemPrompt'>> = {
  proxy: 'proxyUrl',
  system_prompt: 'systemPrompt',
};

// `settings` (dto.ChannelOtherSettings) fields the import reads elsewhere or that never change a request.
const OTHER_SETTINGS_NOT_CARRIED = new Set([
  // Read by the key rule: a non-default value skips the row.
  'vertex_key_type',
  'aws_key_type',
]);
// New API's upstream-model-list sync: its bookkeeping, not a way of sending a request.
const UPSTREAM_SYNC = /^upstream_model_update_/;

/** A JSON object column: its object, nothing (empty or `{}`), or `invalid`. */
function objectColumn(column: JsonColumn): Record<string, unknown> | undefined | 'invalid' {
  if (column.state === 'empty') return undefined;
  if (column.state === 'invalid' || !isObject(column.value)) return 'invalid';
  return Object.keys(column.value).length === 0 ? undefined : column.value;
}

/** Values a header or status-code map may hold as text; anything else makes the map unreadable as such. */
function textRecord(value: Record<string, unknown>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v === 'string') out[name] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[name] = String(v);
    else return undefined;
  }
  return out;
}

/**
 * New API's settings: every column that changes where or how New API sends a request, carried when it differs from
 * what New API does when the operator sets nothing. The editor saves `setting` and `settings` with default values on
 * every row; those carry nothing and never warn. `auto_ban`, `channel_info` (read by the key rule), `other_info`,
 * balances and One API's columns left by an upgrade in place (New API reads none of them) are never named.
 */
export function newApiSettings(row: RowValues, { type }: RowType): RowSettings {
  const settings: ChannelSettings = {};
  const extra: Record<string, unknown> = {};
  const notCarried: string[] = [];
  const warnings: string[] = [];

  mappingAndPriority(row, settings, warnings);
  const weight = integer(row.weight);
  if (weight !== undefined && weight !== 0) settings.weight = weight;
  const groups = commaList(row.group);
  if (groups.length > 0) settings.groups = groups;
  const tag = text(row.tag);
  if (tag !== '') settings.tag = tag;
  // GORM names the column open_ai_organization; the JSON name is accepted as well.
  const organization = text(row.open_ai_organization) || text(row.openai_organization);
  if (organization !== '') settings.organization = organization;
  const testModel = text(row.test_model);
  if (testModel !== '') settings.testModel = testModel;
  const remark = text(row.remark);
  if (remark !== '') extra.remark = remark;

  otherColumn(row, type, settings, extra);

  const statusCodes = objectColumn(jsonColumn(row.status_code_mapping));
  if (statusCodes !== undefined) {
    const codes = statusCodes === 'invalid' ? undefined : textRecord(statusCodes);
    if (codes === undefined) notCarried.push('status_code_mapping');
    else settings.statusCodeMapping = codes;
  }
  const params = objectColumn(jsonColumn(row.param_override));
  if (params === 'invalid') notCarried.push('param_override');
  else if (params !== undefined) settings.paramOverride = params;
  const headers = objectColumn(jsonColumn(row.header_override));
  if (headers !== undefined) {
    const values = headers === 'invalid' ? undefined : textRecord(headers);
    if (values === undefined) notCarried.push('header_override');
    else settings.headerOverride = values;
  }

  const setting = objectColumn(jsonColumn(row.setting));
  if (setting === 'invalid') notCarried.push('setting');
  else if (setting !== undefined) {
    for (const [field, value] of Object.entries(setting)) {
      if (isZeroValue(value)) continue;
      const named = SETTING_NAMED[field];
      if (named !== undefined && typeof value === 'string') settings[named] = value;
      else extra[field] = value;
    }
  }
  const otherSettings = objectColumn(jsonColumn(row.settings));
  if (otherSettings === 'invalid') notCarried.push('settings');
  else if (otherSettings !== undefined) {
    for (const [field, value] of Object.entries(otherSettings)) {
      if (isZeroValue(value) || OTHER_SETTINGS_NOT_CARRIED.has(field) || UPSTREAM_SYNC.test(field)) continue;
      extra[field] = value;
    }
  }

  if (Object.keys(extra).length > 0) settings.extra = extra;
  if (notCarried.length > 0) warnings.push(`legacy config not imported: ${notCarried.join(', ')}`);
  return { settings, warnings };
}

/** `other`, whose meaning depends on the type (distributor.go SetupContextForSelectedChannel); other types ignore it. */
function otherColumn(row: RowValues, type: number, settings: ChannelSettings, extra: Record<string, unknown>): void {
  const other = text(row.other);
  if (other === '') return;
  switch (type) {
    case AZURE:
    case XUNFEI:
    case GEMINI:
    case MOKAAI:
      settings.apiVersion = other;
      break;
    case CLOUDFLARE:
      // The Cloudflare adaptor puts it in the URL as the account id.
      settings.accountId = other;
      break;
    case VERTEX_AI: {
      const { region, byModel } = vertexRegion(row);
      settings.region = region;
      if (byModel !== undefined) extra.model_regions = byModel;
      break;
    }
    case ALI:
      extra.plugin = other;
      break;
    case COZE:
      extra.bot_id = other;
      break;
  }
}

export const NEWAPI: Family = {
  kind: 'newapi',
  name: 'New API',
  upstream: { repository: 'QuantumNous/new-api', commit: NEWAPI_TYPES_COMMIT },
  match: matchNewApi,
  schemaColumns: new Set([...ONEAPI_SCHEMA_COLUMNS, ...NEWAPI_SCHEMA_EXTRA]),
  types: NEWAPI_PROVIDERS,
  columns: [
    settingsColumn('other'),
    settingsColumn('model_mapping', 'json'),
    settingsColumn('channel_info', 'json'),
    settingsColumn('status_code_mapping', 'json'),
    settingsColumn('param_override', 'json'),
    settingsColumn('header_override', 'json'),
    settingsColumn('setting', 'json'),
    settingsColumn('settings', 'json'),
    settingsColumn('tag'),
    settingsColumn('test_model'),
    settingsColumn('open_ai_organization'),
    settingsColumn('openai_organization'),
    settingsColumn('remark'),
    integerColumn('priority'),
    integerColumn('weight'),
  ],
  keys: newApiKeys,
  settings: newApiSettings,
};
