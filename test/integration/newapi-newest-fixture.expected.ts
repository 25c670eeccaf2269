import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What New API routes from test/fixtures/newapi-newest-channels.sql (and .pg.sql), worked out by hand from New API's
 * source (QuantumNous/new-api: model/channel.go and model/ability.go at 0102ffab86da3461be812c605d92800649e6eb06,
 * constant/channel.go, relay/channel/aws and vertex), not from the import's code:
 * - model/ability.go AddAbilities / GetChannel: a row with status 1 serves every model of `models` in every group;
 * - Channel.GetBaseURL: the row's base_url, else ChannelBaseURLs[type];
 * - Channel.GetNextEnabledKey: the whole key, or in a multi-key row every key whose multi_key_status_list entry is
 *   absent or 1 (row 4's second key is auto-disabled);
 * - AWS sends the key's ak|sk|region; Vertex AI the service account with other's region and the JSON's project_id,
 *   written here in the product's form region|project_id|ADC JSON.
 * Rows the import skips (by design, with a reason) are left out: the oracle holds for every imported row.
 */

export const NEWAPI_ADC =
  '{\n  "type": "service_account",\n  "project_id": "fixture-newapi-project",\n  "private_key_id": "fixture0000",\n' +
  '  "private_key": "-----BEGIN PRIVATE KEY-----FIXTURE-NOT-A-KEY-----END PRIVATE KEY-----",\n' +
  '  "client_email": "fixture@fixture-newapi-project.iam.gserviceaccount.com"\n}';

const shared = target('openai', 'https://openai-gw.example.com', 'sk-fixture-newapi-shared');

export const NEWAPI_NEWEST_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4o': [shared, target('azure', 'https://fixture-newapi.openai.azure.com', 'fixtureazurenewapinewkey00000018')],
  'gpt-4o-mini': [shared],
  'o3-mini': [shared],
  'o4-mini': [shared],
  'deepseek-chat': [
    target('deepseek', 'https://api.deepseek.com', 'sk-fixture-newapi-mk-a'),
    target('deepseek', 'https://api.deepseek.com', 'sk-fixture-newapi-mk-c'),
  ],
  'gpt-4.1': [target('openai', 'https://api.openai.com', 'sk-fixture-newapi-0005')],
  'gpt-4.1-mini': [target('openai', 'https://api.openai.com', 'sk-fixture-newapi-0006')],
  mj_imagine: [target('midjourney', 'https://mj-proxy.example.com', 'mj-fixture-newapi-0007')],
  mj_variation: [target('midjourney', 'https://mj-proxy.example.com', 'mj-fixture-newapi-0007')],
  'llama3.1': [target('ollama', 'http://ollama.internal:11434', 'ollama-fixture-0008')],
  mj_blend: [target('midjourney-plus', 'https://mj-plus.example.com', 'mj-plus-fixture-0009')],
  suno_music: [target('suno', 'https://suno-proxy.example.com', 'suno-fixture-0010')],
  'mistral-large-latest': [target('mistral', 'https://api.mistral.ai', 'fixture-newapi-mistral-0011')],
  'doubao-1-5-pro-32k-250115': [target('doubao', 'https://ark.cn-beijing.volces.com', 'ark-fixture-newapi-0012')],
  'grok-3': [target('xai', 'https://api.x.ai', 'xai-fixture-newapi-0013')],
  'black-forest-labs/flux-schnell': [target('replicate', 'https://api.replicate.com', 'r8_fixture_newapi_0014')],
  'gemini-2.5-pro': [target('vertex-ai', '', `us-central1|fixture-newapi-project|${NEWAPI_ADC}`)],
  '@cf/meta/llama-3.1-8b-instruct': [
    target('cloudflare', 'https://api.cloudflare.com', 'fixture-newapi-cf-token-0019'),
  ],
  'claude-sonnet-4-20250514': [
    target('aws', '', 'AKIAFIXTURENEWAPI20|fixtureNewApiSecret20|us-west-2'),
    target('anthropic', 'https://api.anthropic.com', 'sk-ant-fixture-newapi-0022'),
  ],
});

export const NEWAPI_NEWEST_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  15: "AWS API-key credentials (apiKey|region) have no form in the product's AWS key ak|sk|region",
  17: "Vertex AI API key (express mode) has no form in the product's Vertex AI key region|project_id|ADC JSON",
  21: 'identical to legacy channel 6',
};

/** Models New API serves only from skipped rows: the routes an import of this fixture loses. */
export const NEWAPI_NEWEST_LOST_MODELS: readonly string[] = ['claude-3-haiku-20240307', 'gemini-2.5-flash'];

/** Keys of a row that New API no longer uses, imported as disabled channels (row -> keys). */
export const NEWAPI_NEWEST_DISABLED_KEYS: Readonly<Record<number, readonly string[]>> = {
  4: ['sk-fixture-newapi-mk-b'],
};

const DEFAULT = { groups: ['default'] };

export const NEWAPI_NEWEST_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: { groups: ['default'], tag: 'pool' },
  2: { groups: ['vip'], tag: 'pool' },
  3: { groups: ['default'], tag: 'pool' },
  4: DEFAULT,
  5: {
    groups: ['default'],
    headerOverride: { Authorization: 'Bearer fixture-upstream-token-0005', 'X-Team': 'search' },
  },
  6: DEFAULT,
  7: DEFAULT,
  8: DEFAULT,
  9: DEFAULT,
  10: DEFAULT,
  11: DEFAULT,
  12: DEFAULT,
  13: DEFAULT,
  14: DEFAULT,
  16: { groups: ['default'], region: 'us-central1' },
  18: { groups: ['default'], apiVersion: '2025-01-01-preview' },
  19: { groups: ['default'], accountId: '0123456789abcdef0123456789abcdef' },
  20: DEFAULT,
  22: {
    groups: ['default'],
    priority: 10,
    weight: 5,
    proxyUrl: 'http://proxy.internal:3128',
    systemPrompt: 'Be brief.',
    extra: { thinking_to_content: true },
  },
};

/** No row warns: setting and settings hold the editor's defaults, and the one header_override is carried. */
export const NEWAPI_NEWEST_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};
