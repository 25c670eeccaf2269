import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What One Hub routes from test/fixtures/onehub-channels.sql (and .pg.sql), worked out by hand from One Hub's source
 * (MartialBE/one-hub at 387f8bf16ed0d601fdede7ade378adb10aa1a35a), not from the import's code:
 * - model/balancer.go Load: only rows with status 1 are loaded (GORM adds `deleted_at IS NULL`), each serving every
 *   model of `models` in every group of `group`;
 * - providers/base/common.go GetBaseURL: the row's base_url, else the provider's own BaseURL (providers/<name>/base.go);
 *   the import stores it without a trailing slash, as One Hub trims it before use;
 * - the key as One Hub sends it, written in the product's format (Bedrock's Region|AK|SK as ak|sk|region, Vertex AI's
 *   JSON with other's Region|ProjectID in front, Cloudflare's token without the account id).
 * Rows the import skips (by design, with a reason) are left out: the oracle holds for every imported row.
 */

const ADC =
  '{\n  "type": "service_account",\n  "project_id": "fixture-onehub-project",\n  "private_key_id": "fixture0000",\n' +
  '  "private_key": "-----BEGIN PRIVATE KEY-----FIXTURE-NOT-A-KEY-----END PRIVATE KEY-----",\n' +
  '  "client_email": "fixture@fixture-onehub-project.iam.gserviceaccount.com"\n}';

const openaiMain = target('openai', 'https://api.openai.com', 'sk-fixture-onehub-openai-0001');
const shared = target('openai', 'https://openai-gw.example.com', 'sk-fixture-onehub-shared');
const gemini = target('gemini', 'https://generativelanguage.googleapis.com', 'AIzaSyFixtureOneHubGemini00000000002');
const groq = target('groq', 'https://api.groq.com/openai', 'gsk_fixture_onehub_groq_0003');
const xai = target('xai', 'https://api.x.ai', 'xai-fixture-onehub-0004');
const deepseek = target('deepseek', 'https://api.deepseek.com', 'sk-fixture-onehub-deepseek-0005');
const moonshot = target('moonshot', 'https://api.moonshot.cn', 'sk-fixture-onehub-moonshot-0006');
const zhipu = target('zhipu-v4', 'https://open.bigmodel.cn/api/paas/v4', 'fixtureid.fixturesecret0021');

export const ONEHUB_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4o': [
    openaiMain,
    shared,
    target('azure', 'https://fixture-eastus.openai.azure.com', 'fixtureazureonehubkey0000000014'),
  ],
  'gpt-4o-mini': [openaiMain],
  'text-embedding-3-small': [shared],
  'gemini-1.5-pro': [gemini],
  'gemini-2.0-flash': [gemini],
  'llama-3.3-70b-versatile': [groq],
  'mixtral-8x7b-32768': [groq],
  'grok-3': [xai],
  'grok-3-mini': [xai],
  'deepseek-chat': [deepseek],
  'deepseek-reasoner': [deepseek],
  'moonshot-v1-8k': [moonshot],
  'moonshot-v1-32k': [moonshot],
  'anthropic.claude-3-5-sonnet-20241022-v2:0': [
    target('aws', '', 'AKIAFIXTUREONEHUB0007|fixtureOneHubSecret0007|us-east-1'),
  ],
  'gemini-1.5-pro-002': [target('vertex-ai', '', `us-central1|fixture-onehub-project|${ADC}`)],
  '@cf/meta/llama-3.1-8b-instruct': [target('cloudflare', 'https://api.cloudflare.com', 'fixture-cf-token-0013')],
  'llama3.1': [target('ollama', 'https://ollama.com', 'ollama-fixture-0019')],
  'glm-4': [zhipu],
  'glm-4-flash': [zhipu],
});

/** Rows the import skips, and why (docs/channel-import.md). */
export const ONEHUB_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  11: 'deleted in the legacy gateway',
  15: 'AWS key with a SessionToken has no place in the AWS key ak|sk|region',
  16: 'Hunyuan key SecretId|SecretKey has no AppId for the tencent key AppId|SecretId|SecretKey',
  17: "OpenAI-compatible mode (plugin use_openai_api) is another API than the type's provider",
  18: 'unknown legacy channel type 2',
  20: 'identical to legacy channel 1',
};

/** Models One Hub serves only from skipped rows 15, 16 and 17: the routes an import of this fixture loses. */
export const ONEHUB_LOST_MODELS: readonly string[] = [
  'anthropic.claude-3-haiku-20240307-v1:0',
  'hunyuan-lite',
  'ernie-4.0-8k',
];

const DEFAULT = { groups: ['default'] };

/** Settings of every imported row, by legacy id (row 20 is identical to row 1). */
export const ONEHUB_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: DEFAULT,
  2: DEFAULT,
  3: DEFAULT,
  4: DEFAULT,
  5: { groups: ['default'], priority: 10 },
  6: DEFAULT,
  7: { groups: ['default'], region: 'us-east-1' },
  8: { groups: ['default', 'vip'] },
  9: DEFAULT,
  10: DEFAULT,
  12: { groups: ['default'], region: 'us-central1', projectId: 'fixture-onehub-project' },
  13: { groups: ['default'], accountId: 'fixture-cf-account-0013' },
  14: { groups: ['default'], apiVersion: '2024-05-01-preview', modelMapping: { 'gpt-4o': 'gpt-4o-deploy' } },
  19: {
    groups: ['default'],
    weight: 5,
    headerOverride: {
      'CF-Access-Client-Id': 'fixture-cf-access-id',
      'CF-Access-Client-Secret': 'fixture-cf-access-secret',
    },
  },
  21: {
    groups: ['default'],
    tag: 'zhipu-pool',
    testModel: 'glm-4-flash',
    proxyUrl: 'http://proxy.fixture.internal:3128',
    headerOverride: { 'X-Fixture-Trace': 'onehub' },
    extra: { only_chat: true, pre_cost: 2, disabled_stream: ['glm-4'], custom_parameter: { temperature: 0.3 } },
  },
  22: DEFAULT,
};

/** Warnings of imported rows: every setting of this fixture is carried, so none. */
export const ONEHUB_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};
