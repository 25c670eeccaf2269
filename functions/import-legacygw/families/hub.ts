import type { ChannelSettings } from '#shared/schemas/channel-settings';
import { integerColumn, settingsColumn } from '../limits.ts';
import type { ProviderSlug } from '../providers.ts';
import type { ColumnSpec, Family, RowSettings, RowType, RowValues, TypeEntry } from './family.ts';
import { DONEHUB_COLUMNS, HUB_COLUMNS, NEWAPI_OWN_COLUMNS, present } from './fingerprints.ts';
import { hubKeys, vertexLocation } from './hub-keys.ts';
import {
  ALI,
  ANTIGRAVITY,
  AZURE,
  AZURE_SPEECH,
  AZURE_V1,
  BEDROCK,
  BEDROCK_MESSAGES,
  CLOUDFLARE,
  CODEX,
  GEMINI,
  GEMINI_CLI,
  OLLAMA,
  VERTEX_AI,
  VERTEX_AI_EXPRESS,
  XUNFEI,
} from './hub-types.ts';
import {
  bool,
  decimal,
  integer,
  isRecord,
  isStringRecord,
  jsonColumn,
  parseJson,
  setText,
  text,
} from './hub-values.ts';

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
