import { describe, expect, it } from 'vitest';
import { DONEHUB, DONEHUB_NEWEST_TYPE } from '#functions/import-legacygw/families/donehub';
import type { Family, RowValues } from '#functions/import-legacygw/families/family';
import { ONEHUB, ONEHUB_NEWEST_TYPE, ONEHUB_UNMAPPED } from '#functions/import-legacygw/families/onehub';
import { PROVIDERS } from '#functions/import-legacygw/providers';
import { channelSettingsSchema } from '#shared/schemas/channel-settings';

// A row as One Hub's editor saves it when the operator sets nothing but type, key and models
// (web/src/views/Channel/type/Config.js defaults; GORM defaults for the rest).
const DEFAULT_ROW: RowValues = {
  id: '1',
  type: '1',
  key: 'sk-fixture-onehub',
  status: '1',
  base_url: '',
  models: 'gpt-4o',
  name: 'n',
  group: 'default',
  other: '',
  model_mapping: '',
  model_headers: '',
  custom_parameter: '',
  proxy: '',
  test_model: '',
  tag: '',
  plugin: '{}',
  disabled_stream: '[]',
  priority: '0',
  weight: '1',
  only_chat: '0',
  pre_cost: '1',
  compatible_response: '0',
  allow_extra_body: '0',
  deleted_at: null,
};

function rowType(family: Family, type: number) {
  const entry = family.types.get(type);
  if (entry === undefined) throw new Error(`type ${type} not mapped`);
  return { type, entry };
}

function keysOf(type: number, row: Partial<Record<string, string | null>>, family: Family = ONEHUB) {
  return family.keys({ ...DEFAULT_ROW, type: String(type), ...row }, rowType(family, type));
}

function settingsOf(type: number, row: Partial<Record<string, string | null>>, family: Family = ONEHUB) {
  return family.settings({ ...DEFAULT_ROW, type: String(type), ...row }, rowType(family, type));
}

describe('One Hub type table', () => {
  it('reads the numbers where One Hub and New API disagree as One Hub does', () => {
    const provider = (type: number) => ONEHUB.types.get(type)?.provider;

    expect([25, 28, 29, 31, 32, 33, 40, 42, 56].map(provider)).toEqual([
      'gemini',
      'deepseek',
      'moonshot',
      'groq',
      'aws',
      'lingyiwanwu',
      'tencent',
      'vertex-ai',
      'xai',
    ]);
    expect(ONEHUB.types.get(25)?.defaultBaseUrl).toBe('https://generativelanguage.googleapis.com');
    expect(ONEHUB.types.get(31)?.defaultBaseUrl).toBe('https://api.groq.com/openai');
    expect(ONEHUB.types.get(56)?.defaultBaseUrl).toBe('https://api.x.ai');
  });

  it('maps or lists with a reason every number up to the newest, never both', () => {
    for (let type = 0; type <= ONEHUB_NEWEST_TYPE; type += 1) {
      expect([type, ONEHUB.types.has(type) !== ONEHUB_UNMAPPED.has(type)]).toEqual([type, true]);
    }
    expect(Math.max(...ONEHUB.types.keys())).toBe(ONEHUB_NEWEST_TYPE);
  });

  it('takes every slug from the provider list and gives only http(s) defaults without a trailing slash', () => {
    for (const family of [ONEHUB, DONEHUB]) {
      for (const { provider, defaultBaseUrl } of family.types.values()) {
        expect(provider in PROVIDERS).toBe(true);
        if (defaultBaseUrl !== null) expect(defaultBaseUrl).toMatch(/^https:\/\/[^/]+(\/.*[^/])?$/);
      }
    }
  });
});

describe('Done Hub type table', () => {
  it("numbers One Hub's types as One Hub does and adds its own above them", () => {
    for (const [type, entry] of ONEHUB.types) expect(DONEHUB.types.get(type)).toEqual(entry);
    const own = [...DONEHUB.types.keys()].filter((t) => !ONEHUB.types.has(t));

    expect(own).toEqual([57, 58, 59, 60, 61, 62]);
    expect(own.map((t) => DONEHUB.types.get(t)?.provider)).toEqual([
      'gemini-cli',
      'claude-code',
      'codex',
      'antigravity',
      'vertex-ai-express',
      'bedrock-messages',
    ]);
    expect(Math.max(...DONEHUB.types.keys())).toBe(DONEHUB_NEWEST_TYPE);
  });

  it("reads One Hub's columns and Done Hub's own", () => {
    const names = DONEHUB.columns.map((c) => c.name);

    expect(names).toEqual(
      expect.arrayContaining([...ONEHUB.columns.map((c) => c.name), 'header_override', 'cost_ratio']),
    );
    expect(ONEHUB.columns.map((c) => c.name)).not.toContain('cost_ratio');
  });
});

describe('One Hub keys', () => {
  it('takes the whole trimmed key column as one key, line breaks inside included', () => {
    expect(keysOf(1, { key: '  sk-fixture-a \n' })).toEqual({ keys: ['sk-fixture-a'] });
    expect(keysOf(1, { key: 'sk-fixture-a\nsk-fixture-b' })).toEqual({ keys: ['sk-fixture-a\nsk-fixture-b'] });
  });

  it('gives no key for an empty or NULL key column (the core skips the row as having none)', () => {
    expect(keysOf(1, { key: ' \n ' })).toEqual({ keys: [] });
    expect(keysOf(1, { key: null })).toEqual({ keys: [] });
  });

  it("turns Bedrock's Region|AccessKeyID|SecretAccessKey into the product's ak|sk|region", () => {
    expect(keysOf(32, { key: 'us-east-1|AKIAFIXTURE|fixtureSecret' })).toEqual({
      keys: ['AKIAFIXTURE|fixtureSecret|us-east-1'],
    });
    expect(keysOf(32, { key: 'us-east-1|AKIAFIXTURE|fixtureSecret|' })).toEqual({
      keys: ['AKIAFIXTURE|fixtureSecret|us-east-1'],
    });
    expect(keysOf(62, { key: 'us-west-2|AKIAFIXTURE|fixtureSecret' }, DONEHUB)).toEqual({
      keys: ['AKIAFIXTURE|fixtureSecret|us-west-2'],
    });
  });

  it('skips a Bedrock key the product cannot hold, naming the format', () => {
    expect(keysOf(32, { key: 'us-east-1|AKIAFIXTURE|fixtureSecret|fixtureSession' })).toEqual({
      skip: 'AWS key with a SessionToken has no place in the AWS key ak|sk|region',
    });
    expect(keysOf(32, { key: 'us-east-1|fixture-bedrock-api-key' })).toEqual({
      skip: 'AWS key Region|APIToken (a Bedrock API key) has no place in the AWS key ak|sk|region',
    });
    for (const key of ['AKIAFIXTURE', 'us-east-1||fixtureSecret', 'a|b|c|d|e']) {
      expect(keysOf(32, { key })).toEqual({ skip: 'AWS key is not Region|AccessKeyID|SecretAccessKey' });
    }
  });

  it("keeps Cloudflare's token as the key and its account id as a setting", () => {
    const row = { key: 'fixture-account|fixture-cf-token' };

    expect(keysOf(35, row)).toEqual({ keys: ['fixture-cf-token'] });
    expect(settingsOf(35, row).settings.accountId).toBe('fixture-account');
    expect(keysOf(35, { key: 'fixture-cf-token' })).toEqual({ skip: 'Cloudflare key is not ACCOUNT_ID|API_TOKEN' });
  });

  it("builds Vertex AI's region|project_id|ADC JSON from One Hub's key (the JSON) and other (Region|ProjectID)", () => {
    const adc = '{\n  "type": "service_account",\n  "client_email": "fixture@example.iam.gserviceaccount.com"\n}';

    expect(keysOf(42, { key: adc, other: 'us-central1|fixture-project' })).toEqual({
      keys: [`us-central1|fixture-project|${adc}`],
    });
    expect(settingsOf(42, { key: adc, other: 'us-central1|fixture-project' }).settings).toMatchObject({
      region: 'us-central1',
      projectId: 'fixture-project',
    });
    expect(keysOf(42, { key: adc, other: '' })).toEqual({ skip: 'Vertex AI other is not Region|ProjectID' });
    expect(keysOf(42, { key: 'not json', other: 'us-central1|p' })).toEqual({
      skip: 'Vertex AI key is not a service-account JSON object',
    });
  });

  it('keeps the keys whose order One Hub shares with the product, and skips malformed ones', () => {
    expect(keysOf(15, { key: 'fixtureApiKey|fixtureSecret' })).toEqual({ keys: ['fixtureApiKey|fixtureSecret'] });
    expect(keysOf(15, { key: 'fixtureApiKey' })).toEqual({ skip: 'Baidu key is not APIKey|SecretKey' });
    expect(keysOf(18, { key: 'appid|secret|key' })).toEqual({ keys: ['appid|secret|key'] });
    expect(keysOf(18, { key: 'appid|key' })).toEqual({ skip: 'Xunfei key is not APPID|APISecret|APIKey' });
    expect(keysOf(23, { key: '1300000000|sid|skey' })).toEqual({ keys: ['1300000000|sid|skey'] });
    expect(keysOf(23, { key: 'app|sid|skey' })).toEqual({ skip: 'Tencent key is not AppId|SecretId|SecretKey' });
  });

  it("skips Hunyuan's SecretId|SecretKey, which lacks the AppId of the product's Tencent key", () => {
    expect(keysOf(40, { key: 'sid|skey' })).toEqual({
      skip: 'Hunyuan key SecretId|SecretKey has no AppId for the tencent key AppId|SecretId|SecretKey',
    });
  });

  it("skips a Baidu, Ali or Gemini row in One Hub's OpenAI-compatible mode, another API than its type's", () => {
    const plugin = '{"use_openai_api":{"enable":true}}';
    for (const type of [15, 17, 25]) {
      expect(keysOf(type, { key: 'fixture-key', plugin })).toEqual({
        skip: "OpenAI-compatible mode (plugin use_openai_api) is another API than the type's provider",
      });
    }
    expect(keysOf(25, { key: 'AIzaFixture', plugin: '{"use_openai_api":{"enable":false}}' })).toEqual({
      keys: ['AIzaFixture'],
    });
  });
});

describe('One Hub settings', () => {
  it('carries nothing but the groups from a row saved with the editor defaults, and warns about nothing', () => {
    expect(settingsOf(1, {})).toEqual({ settings: { groups: ['default'] }, warnings: [] });
  });

  it('carries no groups for an empty group column, and the trimmed non-empty groups otherwise', () => {
    expect(settingsOf(1, { group: '' }).settings.groups).toBeUndefined();
    expect(settingsOf(1, { group: null }).settings.groups).toBeUndefined();
    expect(settingsOf(1, { group: ' vip, ,default ,' }).settings.groups).toEqual(['vip', 'default']);
  });

  it('carries every routing field that differs from its default', () => {
    const { settings, warnings } = settingsOf(1, {
      model_mapping: '{"gpt-4":"gpt-4o","gpt-3.5":"+gpt-4o-mini","unused":""}',
      priority: '5',
      weight: '3',
      tag: ' pool ',
      test_model: 'gpt-4o-mini',
      proxy: 'socks5://127.0.0.1:1080',
      model_headers: '{"X-Fixture":"1"}',
    });

    expect(warnings).toEqual([]);
    expect(settings).toEqual({
      modelMapping: { 'gpt-4': 'gpt-4o', 'gpt-3.5': 'gpt-4o-mini' },
      priority: 5,
      weight: 3,
      groups: ['default'],
      tag: 'pool',
      testModel: 'gpt-4o-mini',
      proxyUrl: 'socks5://127.0.0.1:1080',
      headerOverride: { 'X-Fixture': '1' },
      extra: { billing_original_model: ['gpt-3.5'] },
    });
    expect(channelSettingsSchema.parse(settings)).toEqual(settings);
  });

  it('treats weight 0 as the balancer does: the default weight 1', () => {
    expect(settingsOf(1, { weight: '0' }).settings.weight).toBeUndefined();
    expect(settingsOf(1, { weight: null, priority: null }).settings).toEqual({ groups: ['default'] });
  });

  it("carries One Hub's own columns under extra when they differ from the editor's defaults", () => {
    const { settings } = settingsOf(1, {
      only_chat: '1',
      pre_cost: '2',
      compatible_response: 'true',
      allow_extra_body: 't',
      disabled_stream: '["o1-mini"]',
      custom_parameter: '{"overwrite":true,"temperature":0.2}',
      plugin: '{"web_search":{"enable":true},"retrieval":{"knowledge_id":""}}',
    });

    expect(settings.extra).toEqual({
      only_chat: true,
      pre_cost: 2,
      compatible_response: true,
      allow_extra_body: true,
      disabled_stream: ['o1-mini'],
      custom_parameter: { overwrite: true, temperature: 0.2 },
      plugin: { web_search: { enable: true } },
    });
  });

  it('reads `other` as the type reads it: API version, region, a header, or nothing', () => {
    expect(settingsOf(3, { other: '2024-05-01-preview' }).settings.apiVersion).toBe('2024-05-01-preview');
    expect(settingsOf(25, { other: 'v1' }).settings.apiVersion).toBe('v1');
    expect(settingsOf(18, { other: 'v3.5', key: 'a|b|c' }).settings.apiVersion).toBe('v3.5');
    expect(settingsOf(24, { other: 'eastasia' }).settings.region).toBe('eastasia');
    expect(settingsOf(17, { other: 'fixture-plugin' }).settings.headerOverride).toEqual({
      'X-DashScope-Plugin': 'fixture-plugin',
    });
    expect(settingsOf(1, { other: 'ignored by One Hub for OpenAI' })).toEqual({
      settings: { groups: ['default'] },
      warnings: [],
    });
  });

  it("carries Ollama's plugin headers as header overrides, after model_headers", () => {
    const { settings } = settingsOf(39, {
      model_headers: '{"CF-Access-Client-Id":"from-model-headers","X-A":"a"}',
      plugin: '{"headers":{"CF-Access-Client-Id":"fixture-id","CF-Access-Client-Secret":"fixture-secret"}}',
    });

    expect(settings.headerOverride).toEqual({
      'CF-Access-Client-Id': 'fixture-id',
      'CF-Access-Client-Secret': 'fixture-secret',
      'X-A': 'a',
    });
    expect(settings.extra).toBeUndefined();
  });

  it('takes the region from a Bedrock key', () => {
    expect(settingsOf(32, { key: 'eu-west-1|AKIAFIXTURE|fixtureSecret' }).settings.region).toBe('eu-west-1');
  });

  it('names, without values, the columns One Hub itself cannot read', () => {
    const { settings, warnings } = settingsOf(1, {
      model_mapping: '{"a":1}',
      model_headers: 'not json',
      custom_parameter: '[1]',
      plugin: '"x"',
      disabled_stream: '{"a":1}',
    });

    expect(warnings).toEqual([
      'model mapping not imported',
      'legacy config not imported: model_headers, disabled_stream, plugin, custom_parameter',
    ]);
    expect(settings).toEqual({ groups: ['default'] });
  });
});

describe('Done Hub settings', () => {
  it('carries fixed header_override values as headers and its pass-through rules under extra', () => {
    const { settings } = settingsOf(
      1,
      {
        model_headers: '{"X-A":"model"}',
        header_override: '{"X-A":"override","*":"","Authorization":"Bearer {api_key}"}',
      },
      DONEHUB,
    );

    expect(settings.headerOverride).toEqual({ 'X-A': 'override' });
    expect(settings.extra).toEqual({ header_override: { '*': '', Authorization: 'Bearer {api_key}' } });
  });

  it('carries pass_through_body and cost_ratio when they differ from their defaults', () => {
    expect(settingsOf(1, { pass_through_body: '0', cost_ratio: '0.0000' }, DONEHUB).settings.extra).toBeUndefined();
    expect(settingsOf(1, { pass_through_body: '1', cost_ratio: '1.2500' }, DONEHUB).settings.extra).toEqual({
      pass_through_body: true,
      cost_ratio: 1.25,
    });
  });

  it("reads its own types' `other` as project, region or options", () => {
    expect(settingsOf(57, { other: 'fixture-project' }, DONEHUB).settings.projectId).toBe('fixture-project');
    expect(settingsOf(61, { other: 'us-central1|fixture-project' }, DONEHUB).settings).toMatchObject({
      region: 'us-central1',
      projectId: 'fixture-project',
    });
    expect(settingsOf(61, { other: 'fixture-project' }, DONEHUB).settings.projectId).toBe('fixture-project');
    expect(settingsOf(59, { other: '{"user_agent":"fixture-ua"}' }, DONEHUB).settings.extra).toEqual({
      other: { user_agent: 'fixture-ua' },
    });
  });
});
