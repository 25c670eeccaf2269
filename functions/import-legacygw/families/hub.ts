import type { ChannelSettings } from '#shared/schemas/channel-settings';
import { integerColumn, settingsColumn } from '../limits.ts';
import type { ProviderSlug } from '../providers.ts';
import type { ColumnSpec, Family, KeysResult, RowSettings, RowType, RowValues, TypeEntry } from './family.ts';
import { DONEHUB_COLUMNS, HUB_COLUMNS, NEWAPI_OWN_COLUMNS, present } from './fingerprints.ts';

/*
 * One Hub (MartialBE/one-hub) and its fork Done Hub (deanxv/done-hub) write the same `channels` table, number their
 * types alike (Done Hub adds its own above One Hub's) and read a row the same way (docs/channel-import.md, "One Hub
 * and Done Hub"). This module is that shared reading; onehub.ts and donehub.ts hold each family's data.
 *
 * Every rule below was read in One Hub at 387f8bf16ed0d601fdede7ade378adb10aa1a35a and Done Hub at
 * 42841b35bf3f687ef8b92dae7633b95384ca0c0b: model/channel.go (columns), model/balancer.go (routing), providers/*
 * (keys, `other`, `plugin`, base URLs), web/src/views/Channel/type/Config.js (what the editor saves by default).
 */

/** A type-table row: number, the product's provider slug, the family's default base URL (null: none). */
export type HubTableRow = readonly [type: number, provider: ProviderSlug, defaultBaseUrl: string | null];

export function hubTypeTable(rows: readonly HubTableRow[]): ReadonlyMap<number, TypeEntry> {
  return new Map(rows.map(([type, provider, defaultBaseUrl]) => [type, Object.freeze({ provider, defaultBaseUrl })]));
}

// The type numbers whose rows need more than "the key column is the key" (One Hub's common/config/constants.go).
const AZURE = 3;
const BAIDU = 15;
const ALI = 17;
const XUNFEI = 18;
const TENCENT = 23;
const AZURE_SPEECH = 24;
const GEMINI = 25;
const BEDROCK = 32;
const CLOUDFLARE = 35;
const OLLAMA = 39;
const HUNYUAN = 40;
const VERTEX_AI = 42;
const AZURE_V1 = 55;
// Done Hub's own.
const GEMINI_CLI = 57;
const CODEX = 59;
const ANTIGRAVITY = 60;
const VERTEX_AI_EXPRESS = 61;
const BEDROCK_MESSAGES = 62;

// New API's own columns: a hub table never has them, so a table with one is not a hub table. One API's `config` and
// `system_prompt` are not among them: One Hub runs on a One API database upgraded in place and keeps them (it reads
// neither), and such a table is One Hub's because One Hub's numbers are what that gateway uses now.
const NEWAPI_ONLY_COLUMNS = NEWAPI_OWN_COLUMNS;

export { DONEHUB_COLUMNS, HUB_COLUMNS };

/** One Hub: a hub column, none of Done Hub's and none of New API's. Evidence: the hub columns present. */
export function matchOneHub(columns: ReadonlySet<string>): readonly string[] | undefined {
  const hub = present(columns, HUB_COLUMNS);
  if (hub.length === 0 || present(columns, NEWAPI_ONLY_COLUMNS).length > 0) return undefined;
  return present(columns, DONEHUB_COLUMNS).length > 0 ? undefined : hub;
}

/** Done Hub: a hub column and one of Done Hub's, none of New API's. Evidence: Done Hub's columns present. */
export function matchDoneHub(columns: ReadonlySet<string>): readonly string[] | undefined {
  if (present(columns, HUB_COLUMNS).length === 0 || present(columns, NEWAPI_ONLY_COLUMNS).length > 0) return undefined;
  const own = present(columns, DONEHUB_COLUMNS);
  return own.length > 0 ? own : undefined;
}

/**
 * One Hub's columns the import reads besides the core's. Booleans and numbers are read as their text (MySQL gives
 * `1`/`0`, PostgreSQL `true`/`false`), hence integer columns for them.
 */
export const ONEHUB_COLUMNS: readonly ColumnSpec[] = [
  settingsColumn('other'),
  settingsColumn('model_mapping'),
  settingsColumn('model_headers'),
  settingsColumn('custom_parameter'),
  settingsColumn('proxy'),
  settingsColumn('test_model'),
  settingsColumn('tag'),
  settingsColumn('plugin', 'json'),
  settingsColumn('disabled_stream', 'json'),
  integerColumn('priority'),
  integerColumn('weight'),
  integerColumn('only_chat'),
  integerColumn('pre_cost'),
  integerColumn('compatible_response'),
  integerColumn('allow_extra_body'),
];

/** Done Hub reads One Hub's columns and these. */
export const DONEHUB_EXTRA_COLUMNS: readonly ColumnSpec[] = [
  settingsColumn('header_override'),
  integerColumn('pass_through_body'),
  integerColumn('cost_ratio'),
];

export interface HubFamilyData {
  readonly kind: 'onehub' | 'donehub';
  readonly name: string;
  readonly upstream: { readonly repository: string; readonly commit: string };
  readonly match: (columns: ReadonlySet<string>) => readonly string[] | undefined;
  readonly schemaColumns: ReadonlySet<string>;
  readonly lookalike?: Family['lookalike'];
  readonly types: ReadonlyMap<number, TypeEntry>;
  readonly columns: readonly ColumnSpec[];
}

/** A family of One Hub's lineage: its data plus the shared reading of keys and settings. */
export function hubFamily(data: HubFamilyData): Family {
  return {
    ...data,
    keys: hubKeys,
    settings: hubSettings,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Keys

/**
 * The row's key in the product's format for its provider. A hub row holds ONE key: the editor splits what the
 * operator pastes on line breaks into one row per key (controller/channel.go AddChannel), and the relay sends the
 * column as it is, so a line break inside (a Vertex AI service account's JSON) belongs to the key.
 */
export function hubKeys(row: RowValues, { type }: RowType): KeysResult {
  const key = text(row.key);
  if (key === '') return { keys: [] };
  if ((type === BAIDU || type === ALI || type === GEMINI) && pluginEnabled(row, 'use_openai_api')) {
    // One Hub then speaks the provider's OpenAI-compatible API at another base URL (providers/baidu|ali|gemini
    // base.go); the type table has one provider per type, so such a row is not imported rather than misread.
    return { skip: "OpenAI-compatible mode (plugin use_openai_api) is another API than the type's provider" };
  }
  switch (type) {
    case BEDROCK:
    case BEDROCK_MESSAGES:
      return awsKey(key);
    case CLOUDFLARE: {
      const parts = key.split('|');
      return parts.length === 2 && parts.every((p) => p !== '')
        ? { keys: [parts[1]!] }
        : { skip: 'Cloudflare key is not ACCOUNT_ID|API_TOKEN' };
    }
    case VERTEX_AI:
      return vertexKey(key, row.other);
    case HUNYUAN:
      return { skip: 'Hunyuan key SecretId|SecretKey has no AppId for the tencent key AppId|SecretId|SecretKey' };
    case BAIDU:
      return parts(key, 2) ? { keys: [key] } : { skip: 'Baidu key is not APIKey|SecretKey' };
    case XUNFEI:
      return parts(key, 3) ? { keys: [key] } : { skip: 'Xunfei key is not APPID|APISecret|APIKey' };
    case TENCENT:
      return parts(key, 3) && /^\d+$/.test(key.split('|')[0]!)
        ? { keys: [key] }
        : { skip: 'Tencent key is not AppId|SecretId|SecretKey' };
    default:
      return { keys: [key] };
  }
}

/** Exactly n non-empty `|`-separated parts. */
function parts(key: string, n: number): boolean {
  const split = key.split('|');
  return split.length === n && split.every((p) => p.trim() !== '');
}

// One Hub: Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIToken (providers/bedrock/base.go
// getKeyConfig). The product's AWS key is ak|sk|region, which has room for neither a session token nor an API token.
function awsKey(key: string): KeysResult {
  const split = key.split('|');
  if (split.length === 2 && split.every((p) => p !== '')) {
    return { skip: 'AWS key Region|APIToken (a Bedrock API key) has no place in the AWS key ak|sk|region' };
  }
  const [region, ak, sk, sessionToken] = split;
  if ((split.length !== 3 && split.length !== 4) || !region || !ak || !sk) {
    return { skip: 'AWS key is not Region|AccessKeyID|SecretAccessKey' };
  }
  if (split.length === 4 && sessionToken !== '') {
    return { skip: 'AWS key with a SessionToken has no place in the AWS key ak|sk|region' };
  }
  return { keys: [`${ak}|${sk}|${region}`] };
}

// One Hub keeps the service account's JSON in `key` and Region|ProjectID in `other` (providers/vertexai/base.go);
// the product's Vertex AI key is region|project_id|ADC JSON.
function vertexKey(key: string, other: string | null | undefined): KeysResult {
  const location = vertexLocation(other);
  if (location === undefined) return { skip: 'Vertex AI other is not Region|ProjectID' };
  if (!isRecord(parseJson(key))) return { skip: 'Vertex AI key is not a service-account JSON object' };
  return { keys: [`${location.region}|${location.projectId}|${key}`] };
}

function vertexLocation(other: string | null | undefined): { region: string; projectId: string } | undefined {
  const split = text(other).split('|');
  if (split.length !== 2) return undefined;
  const [region, projectId] = split.map((p) => p.trim());
  return region && projectId ? { region, projectId } : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Settings

/**
 * The row's settings: every column that changes where or how One Hub sends a request, carried when it differs from
 * what One Hub's editor saves when the operator sets nothing (docs/channel-import.md, "One Hub's settings"). A value
 * One Hub itself cannot read (invalid JSON) is named in a warning instead.
 */
export function hubSettings(row: RowValues, { type }: RowType): RowSettings {
  const settings: ChannelSettings = {};
  const extra: Record<string, unknown> = {};
  const notCarried: string[] = [];
  const warnings: string[] = [];

  // Model mapping (providers/base/common.go ModelMappingHandler): an empty target maps nothing; a leading `+` bills
  // the requested model and is cut before the name is sent (relay/common.go).
  const mapping = jsonColumn(row.model_mapping);
  if (mapping.state === 'value') {
    if (isStringRecord(mapping.value)) {
      const modelMapping: Record<string, string> = {};
      const billed: string[] = [];
      for (const [from, to] of Object.entries(mapping.value)) {
        if (to === '') continue;
        if (to.startsWith('+')) billed.push(from);
        modelMapping[from] = to.startsWith('+') ? to.slice(1) : to;
      }
      if (Object.keys(modelMapping).length > 0) settings.modelMapping = modelMapping;
      if (billed.length > 0) extra.billing_original_model = billed;
    } else {
      warnings.push('model mapping not imported');
    }
  }

  const priority = integer(row.priority);
  if (priority !== undefined && priority !== 0) settings.priority = priority;
  // The balancer counts a weight of 0 as the default weight 1 (model/balancer.go Load).
  const weight = integer(row.weight);
  if (weight !== undefined && weight !== 0 && weight !== 1) settings.weight = weight;
  if (text(row.group) !== '') {
    settings.groups = text(row.group)
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== '');
  }
  setText(settings, 'tag', row.tag);
  setText(settings, 'testModel', row.test_model);
  // `%s` in it is replaced by a hash of the key when channels load (model/channel.go SetProxy); carried as written.
  setText(settings, 'proxyUrl', row.proxy);

  const headers = headerSettings(row, type, extra, notCarried);
  const other = text(row.other);
  if (other !== '') otherSettings(type, other, settings, headers, extra);
  keySettings(row, type, settings);
  if (Object.keys(headers).length > 0) settings.headerOverride = headers;

  ownColumns(row, type, extra, notCarried);

  if (Object.keys(extra).length > 0) settings.extra = extra;
  if (notCarried.length > 0) warnings.push(`legacy config not imported: ${notCarried.join(', ')}`);
  return { settings, warnings };
}

// Headers in the order One Hub applies them, later ones winning: model_headers (every provider's
// CommonRequestHeaders), Done Hub's header_override, then the provider's own (Ali's plugin header, Ollama's headers).
function headerSettings(row: RowValues, type: number, extra: Record<string, unknown>, notCarried: string[]) {
  const headers: Record<string, string> = {};
  const modelHeaders = jsonColumn(row.model_headers);
  if (modelHeaders.state === 'value') {
    if (isStringRecord(modelHeaders.value)) Object.assign(headers, modelHeaders.value);
    else notCarried.push('model_headers');
  }
  // Done Hub's header_override: fixed values are headers; pass-through rules (`*`, `re:`, `regex:`) and templates
  // (`{api_key}`, `{client_header:X}`) are Done Hub's own and stay in `extra` (providers/base/common.go).
  const override = jsonColumn(row.header_override);
  if (override.state === 'value') {
    if (isStringRecord(override.value)) {
      const rules: Record<string, string> = {};
      for (const [name, value] of Object.entries(override.value)) {
        const rule =
          /^\s*(\*|re:|regex:)/i.test(name) || value.includes('{api_key}') || value.includes('{client_header:');
        if (rule) rules[name] = value;
        else headers[name] = value;
      }
      if (Object.keys(rules).length > 0) extra.header_override = rules;
    } else {
      notCarried.push('header_override');
    }
  }
  if (type === OLLAMA) {
    const plugin = jsonColumn(row.plugin);
    const pluginHeaders = plugin.state === 'value' && isRecord(plugin.value) ? plugin.value.headers : undefined;
    if (isRecord(pluginHeaders)) {
      for (const [name, value] of Object.entries(pluginHeaders)) {
        if (typeof value === 'string' && value !== '') headers[name] = value;
      }
    }
  }
  return headers;
}

// `other` means something for a few types only; One Hub ignores it for every other type, so it is not carried there.
function otherSettings(
  type: number,
  other: string,
  settings: ChannelSettings,
  headers: Record<string, string>,
  extra: Record<string, unknown>,
): void {
  switch (type) {
    case AZURE:
    case AZURE_V1:
    case GEMINI:
    case XUNFEI:
      settings.apiVersion = other;
      return;
    case ALI:
      headers['X-DashScope-Plugin'] = other;
      return;
    case AZURE_SPEECH:
      settings.region = other;
      return;
    case VERTEX_AI: {
      const location = vertexLocation(other);
      if (location) Object.assign(settings, location);
      return;
    }
    case VERTEX_AI_EXPRESS: {
      // Region|ProjectID, or a project id alone (Done Hub providers/vertexai_express/base.go parseOtherConfig).
      const [first, second] = other.split('|').map((p) => p.trim());
      if (second !== undefined) {
        if (first) settings.region = first;
        if (second) settings.projectId = second;
      } else if (first) {
        settings.projectId = first;
      }
      return;
    }
    case GEMINI_CLI:
    case ANTIGRAVITY:
      settings.projectId = other;
      return;
    case CODEX: {
      // A JSON object whose `user_agent` Done Hub sends when the caller sets none (providers/codex/chat.go).
      const parsed = parseJson(other);
      if (isRecord(parsed)) extra.other = parsed;
      return;
    }
  }
}

// Parts of a composite key that are settings in the product (the key keeps them too where its format does).
function keySettings(row: RowValues, type: number, settings: ChannelSettings): void {
  const split = text(row.key).split('|');
  if ((type === BEDROCK || type === BEDROCK_MESSAGES) && split.length >= 3 && split[0]) settings.region = split[0];
  if (type === CLOUDFLARE && split.length === 2 && split[0]) settings.accountId = split[0];
}

// The family's own columns, under their own names, when they differ from the editor's defaults
// (web/src/views/Channel/type/Config.js: only_chat false, pre_cost 1, compatible_response false,
// allow_extra_body false, disabled_stream [], plugin {}, custom_parameter ''; Done Hub: pass_through_body false,
// cost_ratio 0, header_override empty).
function ownColumns(row: RowValues, type: number, extra: Record<string, unknown>, notCarried: string[]): void {
  for (const column of ['only_chat', 'compatible_response', 'allow_extra_body', 'pass_through_body']) {
    if (bool(row[column])) extra[column] = true;
  }
  const preCost = integer(row.pre_cost);
  if (preCost !== undefined && preCost !== 1) extra.pre_cost = preCost;
  const costRatio = decimal(row.cost_ratio);
  if (costRatio !== undefined && costRatio !== 0) extra.cost_ratio = costRatio;

  const disabledStream = jsonColumn(row.disabled_stream);
  if (disabledStream.state === 'value') {
    const list = disabledStream.value;
    if (Array.isArray(list) && list.every((m) => typeof m === 'string')) {
      if (list.length > 0) extra.disabled_stream = list;
    } else {
      notCarried.push('disabled_stream');
    }
  }

  const plugin = jsonColumn(row.plugin);
  if (plugin.state === 'value') {
    if (isRecord(plugin.value)) {
      const kept = pluginNonDefault(plugin.value, type);
      if (Object.keys(kept).length > 0) extra.plugin = kept;
    } else {
      notCarried.push('plugin');
    }
  }

  const custom = jsonColumn(row.custom_parameter);
  if (custom.state === 'value') {
    // Request parameters added (or, with `overwrite`, replaced) per request; One Hub fails the request when it is
    // not a JSON object (providers/base/common.go CustomParameterHandler).
    if (isRecord(custom.value)) extra.custom_parameter = custom.value;
    else notCarried.push('custom_parameter');
  }
}

// The editor stores a plugin's parameters even when left empty; only entries with a set value change anything.
// Ollama's headers are carried as headerOverride instead.
function pluginNonDefault(plugin: Record<string, unknown>, type: number): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, params] of Object.entries(plugin)) {
    if (type === OLLAMA && name === 'headers') continue;
    if (!isRecord(params)) continue;
    const set = Object.entries(params).filter(([, v]) => v !== '' && v !== false && v !== null && v !== undefined);
    if (set.length > 0) kept[name] = Object.fromEntries(set);
  }
  return kept;
}

function pluginEnabled(row: RowValues, name: string): boolean {
  const plugin = parseJson(text(row.plugin));
  const entry = isRecord(plugin) ? plugin[name] : undefined;
  return isRecord(entry) && entry.enable === true;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading values

function text(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

function setText(settings: ChannelSettings, field: 'tag' | 'testModel' | 'proxyUrl', value: string | null | undefined) {
  const v = text(value);
  if (v !== '') settings[field] = v;
}

/** A JSON settings column: empty (NULL, '', '{}', '[]', 'null' — what an untouched editor saves) or a value. */
function jsonColumn(value: string | null | undefined): { state: 'empty' } | { state: 'value'; value: unknown } {
  const raw = text(value);
  if (raw === '' || raw === '{}' || raw === '[]' || raw === 'null') return { state: 'empty' };
  const parsed = parseJson(raw);
  return { state: 'value', value: parsed === undefined ? INVALID : parsed };
}

const INVALID = Symbol('invalid JSON');

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

function integer(value: string | null | undefined): number | undefined {
  const v = text(value);
  if (!/^-?\d{1,15}$/.test(v)) return undefined;
  return Number(v);
}

function decimal(value: string | null | undefined): number | undefined {
  const v = text(value);
  return /^-?\d{1,15}(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

/** MySQL returns a boolean as 1/0, PostgreSQL as true/false (t/f in some clients). */
function bool(value: string | null | undefined): boolean {
  const v = text(value).toLowerCase();
  return v === '1' || v === 'true' || v === 't';
}
