import { describe, expect, it } from 'vitest';
import type { FamilyKind } from '#functions/import-legacygw/families/family';
import { FAMILIES } from '#functions/import-legacygw/families/index';

/*
 * The `channels` columns GORM's AutoMigrate leaves for each version of each gateway, read from the Channel struct in
 * model/channel.go at the commit named (GORM's naming: OpenAIOrganization -> open_ai_organization, a field's tag
 * `column:` wins). AutoMigrate adds columns and never drops one, so a database started on an older version and
 * upgraded in place has the union of both. Every table must be recognised as exactly its own gateway's.
 */

const ONEAPI_V050 = [
  'id',
  'type',
  'key',
  'status',
  'name',
  'weight',
  'created_time',
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
];

const NEWAPI_V004 = [...ONEAPI_V050, 'priority', 'open_ai_organization', 'auto_ban'];
const NEWAPI_NEWEST = [
  ...NEWAPI_V004,
  'test_model',
  'status_code_mapping',
  'other_info',
  'tag',
  'setting',
  'param_override',
  'header_override',
  'remark',
  'channel_info',
  'settings',
  'need_reconcile',
];
const ONEHUB_OLDEST = [...ONEAPI_V050, 'priority', 'proxy'];
const ONEHUB_NEWEST = [
  ...ONEHUB_OLDEST,
  'test_model',
  'plugin',
  'only_chat',
  'tag',
  'pre_cost',
  'model_headers',
  'deleted_at',
  'disabled_stream',
  'custom_parameter',
  'compatible_response',
  'allow_extra_body',
];
const DONEHUB_NEWEST = [...ONEHUB_NEWEST, 'header_override', 'pass_through_body', 'cost_ratio'];

interface Version {
  readonly gateway: FamilyKind;
  readonly version: string;
  readonly columns: readonly string[];
}

const VERSIONS: readonly Version[] = [
  // songquanpeng/one-api
  { gateway: 'oneapi', version: 'v0.5.0 (bc2f48b1f290ceadcf3edfa99a48aeaedf3a0a3d)', columns: ONEAPI_V050 },
  {
    gateway: 'oneapi',
    version: 'v0.5.0 started on v0.2 (accessed_time kept)',
    columns: [...ONEAPI_V050, 'accessed_time'],
  },
  {
    gateway: 'oneapi',
    version: 'v0.5.11 (cf4e33cb12d67bdd3427b6fcee33d771b9cf8d06)',
    columns: [...ONEAPI_V050, 'priority'],
  },
  {
    gateway: 'oneapi',
    version: 'v0.6.0 (b747cdbc6fde8eab634183bf2abae86e696a63cc)',
    columns: [...ONEAPI_V050, 'priority', 'config'],
  },
  {
    gateway: 'oneapi',
    version: 'v0.6.9 .. newest (8df4a2670b98266bd287c698243fff327d9748cf)',
    columns: [...ONEAPI_V050, 'priority', 'config', 'system_prompt'],
  },
  // Calcium-Ion/new-api, now QuantumNous/new-api
  { gateway: 'newapi', version: 'v0.0.4 (d6ce413c926ebbb57977ee92a50d6ba7a12d3e97)', columns: NEWAPI_V004 },
  {
    gateway: 'newapi',
    version: 'v0.2.2.0-alpha.3 (bdc65bdba20e2d5123f2678265cb67676c09de9d)',
    columns: [...NEWAPI_V004, 'test_model', 'status_code_mapping'],
  },
  {
    gateway: 'newapi',
    version: 'v0.6.0.4 (f4cc90c8d6fed63032246bf0512987107e26ac91)',
    columns: [...NEWAPI_V004, 'test_model', 'status_code_mapping', 'other_info', 'tag', 'setting', 'param_override'],
  },
  { gateway: 'newapi', version: 'newest (0102ffab86da3461be812c605d92800649e6eb06)', columns: NEWAPI_NEWEST },
  {
    gateway: 'newapi',
    version: 'newest, upgraded in place from One API v0.6.9+',
    columns: [...NEWAPI_NEWEST, 'config', 'system_prompt'],
  },
  {
    gateway: 'newapi',
    version: 'v0.0.4, upgraded in place from One API v0.6.0',
    columns: [...NEWAPI_V004, 'config'],
  },
  // MartialBE/one-hub and deanxv/done-hub (the columns families/hub.ts reads them by)
  { gateway: 'onehub', version: 'oldest (fb24d024a7d339ee2eac8747830cbfe44f8a4d32)', columns: ONEHUB_OLDEST },
  { gateway: 'onehub', version: 'newest (387f8bf16ed0d601fdede7ade378adb10aa1a35a)', columns: ONEHUB_NEWEST },
  {
    gateway: 'onehub',
    version: 'tag added (1425366371038aa57f831bd0bddeecc338f87475)',
    columns: [...ONEHUB_OLDEST, 'test_model', 'plugin', 'only_chat', 'tag'],
  },
  {
    gateway: 'onehub',
    version: 'newest, upgraded in place from One API v0.6.9+',
    columns: [...ONEHUB_NEWEST, 'config', 'system_prompt'],
  },
  { gateway: 'donehub', version: 'newest (42841b35bf3f687ef8b92dae7633b95384ca0c0b)', columns: DONEHUB_NEWEST },
];

const KNOWN: ReadonlySet<FamilyKind> = new Set(FAMILIES.map((f) => f.kind));

function matching(columns: readonly string[]): FamilyKind[] {
  const set = new Set(columns);
  return FAMILIES.filter((family) => family.match(set) !== undefined).map((family) => family.kind);
}

describe('family fingerprints', () => {
  it.each(VERSIONS)('recognises $gateway $version as its own family only', ({ gateway, columns }) => {
    // A family whose module has not joined FAMILIES yet must at least not be claimed by another one.
    expect(matching(columns)).toEqual(KNOWN.has(gateway) ? [gateway] : []);
  });

  it('knows One API and New API', () => {
    expect([...KNOWN]).toEqual(expect.arrayContaining(['oneapi', 'newapi']));
  });

  it.each([
    { table: 'a hub column beside New API columns', columns: [...NEWAPI_NEWEST, 'proxy'] },
    { table: 'a column no gateway has beside One API columns', columns: [...ONEAPI_V050, 'priority', 'tenant_id'] },
    { table: 'tag beside One API columns (neither New API nor a hub)', columns: [...ONEAPI_V050, 'priority', 'tag'] },
  ])('claims no family for $table', ({ columns }) => {
    expect(matching(columns)).toEqual([]);
  });

  it('gives the columns that decided a match as evidence', () => {
    const oneApi = FAMILIES.find((f) => f.kind === 'oneapi')!;
    const newApi = FAMILIES.find((f) => f.kind === 'newapi')!;

    expect(oneApi.match(new Set([...ONEAPI_V050, 'priority', 'config', 'system_prompt']))).toEqual([
      'config',
      'system_prompt',
    ]);
    expect(oneApi.match(new Set(['id', 'type', 'key', 'status', 'base_url', 'models']))).toEqual([
      'base_url',
      'id',
      'key',
      'models',
      'status',
      'type',
    ]);
    expect(newApi.match(new Set(NEWAPI_V004))).toEqual(['auto_ban', 'open_ai_organization']);
  });
});
