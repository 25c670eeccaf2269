import { readFileSync } from 'node:fs';
import type { StoredChannel } from '#shared/repositories/channels';

/** New API's `channels` table (test/fixtures/newapi-channels.sql); its expected import is in docs/channel-import.md. */
export const NEWAPI_FIXTURE_SQL = readFileSync(new URL('../fixtures/newapi-channels.sql', import.meta.url), 'utf8');

/** One expected channel of the New API fixture: every stored field but the id, source and timestamps. */
export type ExpectedChannel = Pick<
  StoredChannel,
  'provider' | 'legacyType' | 'name' | 'baseUrl' | 'models' | 'key' | 'status'
> & { legacyId: number };

// The fixture's service-account keys, built here the way its SQL builds them (\n inside JSON strings is JSON's
// escape, the lines between fields are real line breaks).
const VERTEX_SINGLE_KEY = [
  '{',
  '  "type": "service_account",',
  '  "project_id": "fixture-vertex-0004",',
  '  "private_key_id": "fixturekeyid0004",',
  '  "private_key": "-----BEGIN PRIVATE KEY-----\\nFIXTUREFAKEKEYMATERIAL0004\\n-----END PRIVATE KEY-----\\n",',
  '  "client_email": "importer@fixture-vertex-0004.iam.gserviceaccount.com",',
  '  "client_id": "100000000000000000004",',
  '  "token_uri": "https://oauth2.googleapis.com/token"',
  '}',
].join('\n');

const vertexPoolKey = (id: 'a' | 'b') =>
  JSON.stringify({
    type: 'service_account',
    project_id: `fixture-vertex-${id}`,
    private_key_id: `fixturekeyid${id}`,
    private_key: `-----BEGIN PRIVATE KEY-----\nFIXTUREFAKEKEYMATERIAL0005${id.toUpperCase()}\n-----END PRIVATE KEY-----\n`,
    client_email: `${id}@fixture-vertex-${id}.iam.gserviceaccount.com`,
  });

const enabled = 'enabled' as const;
const disabled = 'disabled' as const;

/** The fixture's import, channel by channel (18 rows imported as 22 channels). */
export const NEWAPI_EXPECTED_CHANNELS: readonly ExpectedChannel[] = [
  {
    legacyId: 1,
    legacyType: 1,
    provider: 'openai',
    name: 'openai-main',
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o', 'gpt-4o-mini'],
    key: 'sk-newapi-openai-0001',
    status: enabled,
  },
  ...(['a', 'b', 'c'] as const).map((k, i) => ({
    legacyId: 2,
    legacyType: 1,
    provider: 'openai',
    name: i === 0 ? 'openai-pool' : `openai-pool #${i + 1}`,
    baseUrl: 'https://openai-gw.example.com',
    models: ['gpt-4o-mini'],
    key: `sk-newapi-pool-${k}`,
    status: enabled,
  })),
  {
    legacyId: 3,
    legacyType: 3,
    provider: 'azure',
    name: 'azure-westeurope',
    baseUrl: 'https://fixture-westeurope.openai.azure.com',
    models: ['gpt-4o', 'text-embedding-3-small'],
    key: 'fixtureazurenewapikey000000000003',
    status: enabled,
  },
  {
    legacyId: 4,
    legacyType: 41,
    provider: 'vertex-ai',
    name: 'vertex-sa',
    baseUrl: '',
    models: ['gemini-2.5-pro', 'claude-sonnet-4@20250514'],
    key: VERTEX_SINGLE_KEY,
    status: enabled,
  },
  ...(['a', 'b'] as const).map((k, i) => ({
    legacyId: 5,
    legacyType: 41,
    provider: 'vertex-ai',
    name: i === 0 ? 'vertex-pool' : 'vertex-pool #2',
    baseUrl: '',
    models: ['gemini-2.5-flash'],
    key: vertexPoolKey(k),
    status: enabled,
  })),
  {
    legacyId: 6,
    legacyType: 33,
    provider: 'aws',
    name: 'bedrock',
    baseUrl: '',
    models: ['anthropic.claude-3-5-sonnet-20241022-v2:0'],
    key: 'AKIAFIXTURENEWAPI0006|fixtureAwsSecretKeyNewApi0006|us-east-1',
    status: enabled,
  },
  {
    legacyId: 7,
    legacyType: 43,
    provider: 'deepseek',
    name: 'deepseek',
    baseUrl: 'https://api.deepseek.com',
    models: ['deepseek-chat', 'deepseek-reasoner'],
    key: 'sk-newapi-deepseek-0007',
    status: enabled,
  },
  {
    legacyId: 8,
    legacyType: 48,
    provider: 'xai',
    name: 'grok',
    baseUrl: 'https://api.x.ai',
    models: ['grok-3', 'grok-3-mini'],
    key: 'xai-newapi-fixture-0008',
    status: disabled,
  },
  {
    legacyId: 9,
    legacyType: 14,
    provider: 'anthropic',
    name: 'claude',
    baseUrl: 'https://api.anthropic.com',
    models: ['claude-sonnet-4-20250514'],
    key: 'sk-ant-newapi-0009',
    status: disabled,
  },
  {
    legacyId: 10,
    legacyType: 24,
    provider: 'gemini',
    name: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    models: ['gemini-2.5-pro', 'gemini-2.5-flash'],
    key: 'AIzaNewApiFixtureGemini0010',
    status: enabled,
  },
  {
    legacyId: 11,
    legacyType: 4,
    provider: 'ollama',
    name: 'ollama-local',
    baseUrl: 'http://ollama.internal:11434',
    models: [],
    key: 'ollama-newapi-0011',
    status: enabled,
  },
  {
    legacyId: 12,
    legacyType: 2,
    provider: 'midjourney',
    name: 'midjourney',
    baseUrl: '',
    models: ['mj_imagine', 'mj_variation'],
    key: 'mj-newapi-0012',
    status: enabled,
  },
  {
    legacyId: 13,
    legacyType: 45,
    provider: 'doubao',
    name: 'doubao',
    baseUrl: 'https://ark.cn-beijing.volces.com',
    models: ['doubao-1-5-pro-32k-250115'],
    key: 'ark-newapi-0013',
    status: enabled,
  },
  {
    legacyId: 14,
    legacyType: 26,
    provider: 'zhipu-v4',
    name: 'glm',
    baseUrl: 'https://open.bigmodel.cn',
    models: ['glm-4-plus', 'glm-4-flash'],
    key: 'fixtureglm.newapi0014',
    status: enabled,
  },
  {
    legacyId: 16,
    legacyType: 1,
    provider: 'openai',
    name: 'openai-org',
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o'],
    key: 'sk-newapi-two-lines-a\nsk-newapi-two-lines-b',
    status: enabled,
  },
  {
    legacyId: 17,
    legacyType: 40,
    provider: 'siliconflow',
    name: 'siliconflow',
    baseUrl: 'https://api.siliconflow.cn',
    models: ['Qwen/Qwen2.5-72B-Instruct', 'deepseek-ai/DeepSeek-V3'],
    key: 'sk-newapi-siliconflow-0017',
    status: enabled,
  },
  {
    legacyId: 18,
    legacyType: 39,
    provider: 'cloudflare',
    name: 'workers-ai',
    baseUrl: 'https://api.cloudflare.com',
    models: ['@cf/meta/llama-3.1-8b-instruct'],
    key: 'cf-newapi-0018',
    status: enabled,
  },
  ...(['a', 'b'] as const).map((k, i) => ({
    legacyId: 20,
    legacyType: 1,
    provider: 'openai',
    name: i === 0 ? 'legacy-20' : 'legacy-20 #2',
    baseUrl: 'https://api.openai.com',
    models: ['gpt-4o-mini'],
    key: `sk-newapi-json-${k}`,
    status: enabled,
  })),
];

/** The report's `items` for the fixture: every skipped row and every row with warnings, in id order. */
export const NEWAPI_EXPECTED_ITEMS = [
  { legacyId: 2, outcome: 'imported', channels: 3, warnings: ['legacy config not imported: tag'] },
  {
    legacyId: 3,
    outcome: 'imported',
    channels: 1,
    warnings: ['model mapping not imported', 'legacy config not imported: other, settings'],
  },
  { legacyId: 4, outcome: 'imported', channels: 1, warnings: ['no base URL', 'legacy config not imported: other'] },
  { legacyId: 5, outcome: 'imported', channels: 2, warnings: ['no base URL', 'legacy config not imported: other'] },
  { legacyId: 6, outcome: 'imported', channels: 1, warnings: ['no base URL'] },
  { legacyId: 7, outcome: 'imported', channels: 1, warnings: ['legacy config not imported: param_override'] },
  { legacyId: 8, outcome: 'imported', channels: 1, warnings: ['legacy config not imported: header_override'] },
  { legacyId: 9, outcome: 'imported', channels: 1, warnings: ['legacy config not imported: remark'] },
  {
    legacyId: 10,
    outcome: 'imported',
    channels: 1,
    warnings: ['model mapping not imported', 'legacy config not imported: setting'],
  },
  {
    legacyId: 11,
    outcome: 'imported',
    channels: 1,
    warnings: ['no models', 'legacy config not imported: status_code_mapping'],
  },
  { legacyId: 12, outcome: 'imported', channels: 1, warnings: ['no base URL'] },
  { legacyId: 15, outcome: 'skipped', reason: 'unknown legacy channel type 58' },
  { legacyId: 16, outcome: 'imported', channels: 1, warnings: ['legacy config not imported: openai_organization'] },
  { legacyId: 18, outcome: 'imported', channels: 1, warnings: ['legacy config not imported: other'] },
  { legacyId: 19, outcome: 'skipped', reason: 'duplicate of legacy channel 7' },
];

/**
 * The report's `routes` for the fixture: row 15's type is unknown, so some-model loses its only row; row 19 is
 * skipped as a duplicate of row 7, so deepseek-chat keeps one of its two rows.
 */
export const NEWAPI_EXPECTED_ROUTES = {
  total: 18,
  kept: 16,
  changed: 1,
  lost: 1,
  items: [
    { group: 'default', model: 'some-model', legacy: 1, imported: 0 },
    { group: 'default', model: 'deepseek-chat', legacy: 2, imported: 1 },
  ],
  itemsTruncated: false,
  complete: true,
};

/** Every API key of the New API fixture, for "never leaks" checks (row 15's skipped key included). */
export const NEWAPI_FIXTURE_KEYS: readonly string[] = [
  ...NEWAPI_EXPECTED_CHANNELS.map((c) => c.key),
  'fixture-type58-0015',
  // Fragments that must not appear on their own either: a service-account private key's material.
  'FIXTUREFAKEKEYMATERIAL0004',
  'FIXTUREFAKEKEYMATERIAL0005A',
  'FIXTUREFAKEKEYMATERIAL0005B',
  'fixtureAwsSecretKeyNewApi0006',
];
