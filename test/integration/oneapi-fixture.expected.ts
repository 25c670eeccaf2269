import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What One API routes from test/fixtures/oneapi-channels.sql (and .pg.sql), worked out by hand from One API's source
 * (songquanpeng/one-api at 8df4a2670b98266bd287c698243fff327d9748cf), not from the import's code:
 * - model/ability.go AddAbilities and GetRandomSatisfiedChannel: a row with status 1 serves every model of `models`
 *   in every group of `group`; other statuses serve nothing;
 * - relay/meta and relay/channeltype/url.go: the row's base_url, else ChannelBaseURLs[type] (stored without a
 *   trailing slash, as One API's editor saves it);
 * - middleware/distributor.go: the whole key column is the key (rows with several lines are several keys, as the
 *   editor creates one row per line); AWS (relay/adaptor/aws) and Vertex AI (relay/adaptor/vertexai) send config's
 *   ak/sk/region and region/project/ADC, written here in the product's form ak|sk|region, region|project_id|ADC.
 * Rows the import skips (by design, with a reason) are left out: the oracle holds for every imported row.
 */

export const ONEAPI_ADC =
  '{\n  "type": "service_account",\n  "project_id": "fixture-oneapi-project",\n  "private_key_id": "fixture0000",\n' +
  '  "private_key": "-----BEGIN PRIVATE KEY-----FIXTURE-NOT-A-KEY-----END PRIVATE KEY-----",\n' +
  '  "client_email": "fixture@fixture-oneapi-project.iam.gserviceaccount.com"\n}';

const shared = target('openai', 'https://openai-gw.example.com', 'sk-fixture-oneapi-shared');

export const ONEAPI_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4o-mini': [
    target('api2d', 'https://oa.api2d.net', 'fk-fixture-oneapi-api2d-0001'),
    shared,
    target('openai', 'https://api.openai.com', 'sk-fixture-oneapi-defaults-0022'),
  ],
  'gpt-4o': [
    target('closeai', 'https://api.closeai-proxy.xyz', 'sk-fixture-oneapi-closeai-0002'),
    shared,
    target('azure', 'https://fixture-oneapi.openai.azure.com', 'fixtureazureoneapikey00000000016'),
  ],
  'gpt-3.5-turbo': [target('openai-sb', 'https://sb-proxy.example.com', 'sk-fixture-oneapi-sb-0003')],
  'deepseek-chat': [target('deepseek', 'https://api.deepseek.com', 'sk-fixture-oneapi-deepseek-0004')],
  'deepseek-reasoner': [target('deepseek', 'https://api.deepseek.com', 'sk-fixture-oneapi-deepseek-0004')],
  'mistral-large-latest': [target('mistral', 'https://api.mistral.ai', 'fixture-oneapi-mistral-0005')],
  'llama-3.3-70b-versatile': [target('groq', 'https://api.groq.com/openai', 'gsk_fixture_oneapi_groq_0006')],
  'text-embedding-3-small': [shared],
  'claude-3-5-sonnet-20241022': [target('aws', '', 'AKIAFIXTUREONEAPI10|fixtureOneApiSecret10|us-west-2')],
  'gemini-1.5-pro-002': [target('vertex-ai', '', `us-central1|fixture-oneapi-project|${ONEAPI_ADC}`)],
  'ERNIE-4.0-8K': [target('baidu', 'https://aip.baidubce.com', 'fixtureBaiduApiKey0013|fixtureBaiduSecret0013')],
  'hunyuan-lite': [
    target('tencent', 'https://hunyuan.tencentcloudapi.com', '1250000014|fixtureSecretId0014|fixtureSecretKey0014'),
  ],
  'SparkDesk-v3.5': [target('xunfei', '', 'fixtureAppId0015|fixtureApiSecret0015|fixtureApiKey0015')],
  'gpt-4.1': [
    target('openai', 'https://api.openai.com', 'sk-fixture-oneapi-multi-a'),
    target('openai', 'https://api.openai.com', 'sk-fixture-oneapi-multi-b'),
  ],
  '@cf/meta/llama-3.1-8b-instruct': [
    target('cloudflare', 'https://api.cloudflare.com', 'fixture-oneapi-cf-token-0020'),
  ],
  'coze-fixture-bot': [target('coze', 'https://api.coze.com', 'pat_fixture_oneapi_coze_0021')],
});

/** Rows the import skips, and why (docs/channel-import.md). */
export const ONEAPI_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  12: 'AWS credentials not in the form ak|sk|region (in config.ak, config.sk, config.region or key)',
  18: 'unknown legacy channel type 52',
  19: 'identical to legacy channel 7',
};

/** Models One API serves only from skipped rows: the routes an import of this fixture loses. */
export const ONEAPI_LOST_MODELS: readonly string[] = ['claude-3-haiku-20240307'];

const DEFAULT = { groups: ['default'] };

/** The settings of every imported row, by legacy id. */
export const ONEAPI_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: DEFAULT,
  2: DEFAULT,
  3: DEFAULT,
  4: { groups: ['default'], priority: 5 },
  5: DEFAULT,
  6: DEFAULT,
  7: DEFAULT,
  8: { groups: ['default', 'vip'] },
  9: DEFAULT,
  10: { groups: ['default'], region: 'us-west-2' },
  11: { groups: ['default'], region: 'us-central1', projectId: 'fixture-oneapi-project' },
  13: DEFAULT,
  14: DEFAULT,
  15: { groups: ['default'], apiVersion: 'v3.5' },
  16: { groups: ['default'], apiVersion: '2024-10-21', modelMapping: { 'gpt-4o': 'gpt-4o-deploy' } },
  17: { groups: ['vip'], systemPrompt: 'Answer in English.' },
  20: DEFAULT,
  21: { groups: ['default'], userId: 'fixture-coze-user-21' },
  22: DEFAULT,
};

/** The settings warnings of imported rows, by legacy id (rows not listed have none). */
export const ONEAPI_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {
  20: ['legacy config not imported: config'],
};
