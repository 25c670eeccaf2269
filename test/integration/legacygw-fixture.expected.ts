import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What One API routes from test/fixtures/legacygw-channels.sql (and .pg.sql), the One API v0.6.9+ table of the
 * original fixture, worked out by hand from One API's source (songquanpeng/one-api at
 * 8df4a2670b98266bd287c698243fff327d9748cf; the rules are listed in oneapi-fixture.expected.ts): rows 4 and 5 are
 * disabled, row 16 lists no model, row 17's type does not exist, row 19 repeats row 1. AWS (row 9) and Vertex AI
 * (row 13) send config's credentials: row 13's config holds a shorter service account than its key column, and that
 * is what One API sends.
 */

const openaiMain = target('openai', 'https://api.openai.com', 'sk-fixture-openai-main-0001');
const proxy = target('openai', 'https://openai-proxy.example.com', 'sk-fixture-openai-proxy-0002');
const azure = target('azure', 'https://fixture-eastus.openai.azure.com', 'fixtureazurekey00000000000000003');
const qwen = target('ali', 'https://dashscope.aliyuncs.com', 'sk-fixture-dashscope-0007');
const gemini = target('gemini', 'https://generativelanguage.googleapis.com', 'AIzaFixtureGeminiKey000000000000008');
const aws = target('aws', '', 'AKIAFIXTURE0009|fixtureAwsSecret0009|us-east-1');
const deepseek = ['a', 'b', 'c'].map((k) => target('deepseek', 'https://api.deepseek.com', `sk-fixture-deepseek-${k}`));
const compat = target('openai-compatible', 'https://llm.example.internal/v1', 'sk-fixture-compat-0011');
const vertex = target(
  'vertex-ai',
  '',
  'us-central1|fixture-project-13|{"type":"service_account","project_id":"fixture-project-13"}',
);
const crlf = ['a', 'b'].map((k) => target('openai', 'https://api.openai.com', `sk-fixture-crlf-${k}`));
const cloudflare = target('cloudflare', 'https://api.cloudflare.com', 'fixture-cloudflare-token-0020');

export const LEGACYGW_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4o': [openaiMain, proxy, azure],
  'gpt-4o-mini': [
    openaiMain,
    proxy,
    target('api2d', 'https://oa.api2d.net', 'fk-fixture-api2d-0006'),
    target('custom', 'https://custom-proxy.example.com', 'sk-fixture-custom-0012'),
    ...crlf,
  ],
  'GPT-4o-mini': crlf,
  'gpt-3.5-turbo': [openaiMain],
  'text-embedding-3-small': [proxy],
  'gpt-35-turbo': [azure],
  'text-embedding-ada-002': [azure],
  'qwen-turbo': [qwen],
  'qwen-plus': [qwen],
  'qwen-max': [qwen],
  'text-embedding-v1': [qwen],
  'gemini-1.5-pro': [gemini],
  'gemini-1.5-flash': [gemini],
  'claude-3-5-sonnet-20240620': [aws],
  'claude-3-haiku-20240307': [aws],
  'deepseek-chat': deepseek,
  'deepseek-reasoner': deepseek,
  'Qwen2.5-72B-Instruct': [compat],
  'bge-m3': [compat],
  'gemini-1.5-pro-002': [vertex],
  'claude-3-5-sonnet@20240620': [vertex],
  'SparkDesk-v3.5': [target('xunfei', '', 'fixtureAppId14|fixtureApiSecret14|fixtureApiKey14')],
  'coze-fixture-bot': [target('coze', 'https://api.coze.com', 'pat_fixture_coze_0015')],
  '@cf/meta/llama-3.1-8b-instruct': [cloudflare],
  '@cf/baai/bge-base-en-v1.5': [cloudflare],
});

export const LEGACYGW_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  17: 'unknown legacy channel type 999',
  19: 'identical to legacy channel 1',
};

export const LEGACYGW_LOST_MODELS: readonly string[] = [];

const DEFAULT = { groups: ['default'] };

export const LEGACYGW_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: DEFAULT,
  2: { groups: ['default', 'vip'], priority: 10, modelMapping: { 'gpt-4': 'gpt-4o', 'gpt-4-turbo': 'gpt-4o' } },
  3: {
    groups: ['default'],
    priority: 5,
    apiVersion: '2024-03-01-preview',
    modelMapping: { 'gpt-3.5-turbo': 'gpt-35-turbo' },
  },
  4: DEFAULT,
  5: DEFAULT,
  6: { groups: ['default'], priority: -5 },
  7: { groups: ['default'], systemPrompt: 'You are a helpful assistant.' },
  8: { groups: ['default'], apiVersion: 'v1beta' },
  9: { groups: ['default'], region: 'us-east-1' },
  10: DEFAULT,
  11: DEFAULT,
  12: DEFAULT,
  13: { groups: ['default'], region: 'us-central1', projectId: 'fixture-project-13' },
  14: { groups: ['default'], apiVersion: 'v3.5' },
  15: { groups: ['default'], userId: 'fixture-coze-user-15' },
  16: DEFAULT,
  18: DEFAULT,
  20: { groups: ['default'], accountId: '0123456789abcdef0123456789abcdef' },
};

/** Row 12's mapping is not JSON (`gpt-4=>gpt-4o`): One API maps nothing, and the import says so. */
export const LEGACYGW_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {
  12: ['model mapping not imported'],
};
