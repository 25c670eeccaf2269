import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unkeyedChannelId } from '#functions/import-legacygw/identity';
import { LEGACY_PROVIDERS } from '#functions/import-legacygw/providers';
import { testChannelId } from '#test/support/channel-ids';
import {
  testMapper as createRowMapper,
  familyOf,
  type TestChannel as MappedChannel,
  type TestOutcome as RowOutcome,
} from '#test/support/legacy-mapper';

const legacyProvider = (type: number) => familyOf('oneapi').types.get(type);

/** A row of One API's table as these tests write it (absent optional columns left out). */
type LegacyRow = {
  id: number;
  type: number | null;
  key: string | null;
  status: number | null;
  base_url: string | null;
  models: string | null;
  name?: string | null;
  model_mapping?: string | null;
  config?: string | null;
  other?: string | null;
};

const EMPTY_CONFIG = '{"region":"","sk":"","ak":"","user_id":"","vertex_ai_project_id":"","vertex_ai_adc":""}';

/** A row with every column filled as the legacy gateway's UI leaves an unused one. */
function row(fields: Partial<LegacyRow> & { id: number }): LegacyRow {
  return {
    type: 1,
    key: 'sk-test-key',
    status: 1,
    base_url: '',
    models: 'gpt-4o',
    name: 'channel',
    model_mapping: '',
    config: '',
    other: '',
    ...fields,
  };
}

function mapOne(fields: Partial<LegacyRow> & { id: number }): RowOutcome {
  return createRowMapper().map(row(fields));
}

function imported(outcome: RowOutcome): { channels: MappedChannel[]; warnings: string[] } {
  if (outcome.outcome !== 'imported')
    throw new Error(`expected row ${outcome.legacyId} imported, got: ${outcome.reason}`);
  return outcome;
}

// test/fixtures/legacygw-channels.sql, row by row (system_prompt and the counters are not read by the import).
const FIXTURE_ROWS: LegacyRow[] = [
  {
    id: 1,
    type: 1,
    key: 'sk-fixture-openai-main-0001',
    status: 1,
    name: 'openai-main',
    base_url: '',
    other: '',
    models: 'gpt-4o,gpt-4o-mini,gpt-3.5-turbo',
    model_mapping: '',
    config: '',
  },
  {
    id: 2,
    type: 1,
    key: 'sk-fixture-openai-proxy-0002',
    status: 1,
    name: 'OpenAI 备用代理',
    base_url: 'https://openai-proxy.example.com',
    other: '',
    models: ' gpt-4o, gpt-4o-mini ,,text-embedding-3-small,',
    model_mapping: '{"gpt-4":"gpt-4o","gpt-4-turbo":"gpt-4o"}',
    config: EMPTY_CONFIG,
  },
  {
    id: 3,
    type: 3,
    key: 'fixtureazurekey00000000000000003',
    status: 1,
    name: 'azure-eastus',
    base_url: 'https://fixture-eastus.openai.azure.com',
    other: '2024-03-01-preview',
    models: 'gpt-4o,gpt-35-turbo,text-embedding-ada-002',
    model_mapping: '{"gpt-3.5-turbo":"gpt-35-turbo"}',
    config: EMPTY_CONFIG,
  },
  {
    id: 4,
    type: 14,
    key: 'sk-ant-fixture-0004',
    status: 2,
    name: 'claude-disabled-by-admin',
    base_url: null,
    other: null,
    models: 'claude-3-5-sonnet-20241022,claude-3-haiku-20240307',
    model_mapping: null,
    config: null,
  },
  {
    id: 5,
    type: 15,
    key: 'fixtureBaiduApiKey0005|fixtureBaiduSecretKey0005',
    status: 3,
    name: 'ernie-auto-disabled',
    base_url: '',
    other: '',
    models: 'ERNIE-4.0-8K,ERNIE-Speed-128K',
    model_mapping: '',
    config: '',
  },
  {
    id: 6,
    type: 2,
    key: 'fk-fixture-api2d-0006',
    status: 1,
    name: 'api2d-reseller',
    base_url: '',
    other: '',
    models: 'gpt-4o-mini',
    model_mapping: '',
    config: '',
  },
  {
    id: 7,
    type: 17,
    key: 'sk-fixture-dashscope-0007',
    status: 1,
    name: 'qwen',
    base_url: '',
    other: '',
    models: 'qwen-turbo,qwen-plus,qwen-max,text-embedding-v1',
    model_mapping: '',
    config: EMPTY_CONFIG,
  },
  {
    id: 8,
    type: 24,
    key: 'AIzaFixtureGeminiKey000000000000008',
    status: 1,
    name: 'gemini',
    base_url: '',
    other: 'v1beta',
    models: 'gemini-1.5-pro,gemini-1.5-flash',
    model_mapping: '',
    config: '',
  },
  {
    id: 9,
    type: 33,
    key: 'AKIAFIXTURE0009|fixtureAwsSecret0009|us-east-1',
    status: 1,
    name: 'bedrock-claude',
    base_url: '',
    other: '',
    models: 'claude-3-5-sonnet-20240620,claude-3-haiku-20240307',
    model_mapping: '',
    config:
      '{"region":"us-east-1","sk":"fixtureAwsSecret0009","ak":"AKIAFIXTURE0009","user_id":"","vertex_ai_project_id":"","vertex_ai_adc":""}',
  },
  {
    id: 10,
    type: 36,
    key: 'sk-fixture-deepseek-a\nsk-fixture-deepseek-b\n\nsk-fixture-deepseek-c\n',
    status: 1,
    name: 'deepseek-pool',
    base_url: '',
    other: '',
    models: 'deepseek-chat,deepseek-reasoner',
    model_mapping: '',
    config: '',
  },
  {
    id: 11,
    type: 50,
    key: 'sk-fixture-compat-0011',
    status: 1,
    name: 'vllm-internal',
    base_url: 'https://llm.example.internal/v1',
    other: '',
    models: 'Qwen2.5-72B-Instruct,bge-m3',
    model_mapping: '',
    config: '',
  },
  {
    id: 12,
    type: 8,
    key: 'sk-fixture-custom-0012',
    status: 1,
    name: 'custom-domain-proxy',
    base_url: 'https://custom-proxy.example.com/',
    other: '',
    models: 'gpt-4o-mini',
    model_mapping: 'gpt-4=>gpt-4o',
    config: '',
  },
  {
    id: 13,
    type: 42,
    key: 'us-central1|fixture-project-13|{"type":"service_account","project_id":"fixture-project-13","private_key_id":"fixture","client_email":"svc@fixture-project-13.iam.gserviceaccount.com"}',
    status: 1,
    name: 'vertex',
    base_url: '',
    other: '',
    models: 'gemini-1.5-pro-002,claude-3-5-sonnet@20240620',
    model_mapping: '',
    // What MySQL's JSON_OBJECT writes: a space after each colon and comma.
    config:
      '{"region": "us-central1", "sk": "", "ak": "", "user_id": "", "vertex_ai_project_id": "fixture-project-13", "vertex_ai_adc": "{\\"type\\":\\"service_account\\",\\"project_id\\":\\"fixture-project-13\\"}"}',
  },
  {
    id: 14,
    type: 18,
    key: 'fixtureAppId14|fixtureApiSecret14|fixtureApiKey14',
    status: 1,
    name: 'spark-ws',
    base_url: '',
    other: 'v3.5',
    models: 'SparkDesk-v3.5',
    model_mapping: '',
    config: '',
  },
  {
    id: 15,
    type: 34,
    key: 'pat_fixture_coze_0015',
    status: 1,
    name: 'coze-bot',
    base_url: '',
    other: '',
    models: 'coze-fixture-bot',
    model_mapping: '',
    config:
      '{"region":"","sk":"","ak":"","user_id":"fixture-coze-user-15","vertex_ai_project_id":"","vertex_ai_adc":""}',
  },
  {
    id: 16,
    type: 44,
    key: 'sk-fixture-siliconflow-0016',
    status: 1,
    name: 'siliconflow-no-models',
    base_url: '',
    other: '',
    models: '',
    model_mapping: '',
    config: '',
  },
  {
    id: 17,
    type: 999,
    key: 'sk-fixture-fork-0017',
    status: 1,
    name: 'unknown-type-from-a-fork-gateway-with-a-deliberately-long-channel-name-over-64-chars',
    base_url: 'https://fork-gateway.example.com',
    other: '',
    models: 'gpt-4o',
    model_mapping: '',
    config: '',
  },
  {
    id: 18,
    type: 1,
    key: 'sk-fixture-crlf-a\r\nsk-fixture-crlf-b\r\n',
    status: 1,
    name: 'openai-crlf-keys',
    base_url: '',
    other: '',
    models: 'gpt-4o-mini,gpt-4o-mini,GPT-4o-mini',
    model_mapping: '{}',
    config: '',
  },
  {
    id: 19,
    type: 1,
    key: 'sk-fixture-openai-main-0001',
    status: 1,
    name: 'openai-main (copy)',
    base_url: '',
    other: '',
    models: 'gpt-4o,gpt-4o-mini,gpt-3.5-turbo',
    model_mapping: '',
    config: '',
  },
  {
    id: 20,
    type: 37,
    key: 'fixture-cloudflare-token-0020',
    status: 1,
    name: 'workers-ai',
    base_url: '',
    other: '',
    models: '@cf/meta/llama-3.1-8b-instruct,@cf/baai/bge-base-en-v1.5',
    model_mapping: '',
    config:
      '{"region":"","sk":"","ak":"","user_id":"0123456789abcdef0123456789abcdef","vertex_ai_project_id":"","vertex_ai_adc":""}',
  },
];

// test/fixtures/legacygw-channels-v05.sql: no `config` column.
const V05_ROWS: LegacyRow[] = [
  {
    id: 1,
    type: 1,
    key: 'sk-fixture-legacy-openai-0001',
    status: 1,
    name: 'legacy-openai',
    base_url: 'https://legacy-proxy.example.com',
    other: '',
    models: 'gpt-3.5-turbo,gpt-4',
    model_mapping: '',
  },
  {
    id: 2,
    type: 3,
    key: 'fixturelegacyazure0002',
    status: 1,
    name: 'legacy-azure',
    base_url: 'https://legacy-res.openai.azure.com',
    other: '2023-05-15',
    models: 'gpt-35-turbo',
    model_mapping: '{"gpt-3.5-turbo":"gpt-35-turbo"}',
  },
  {
    id: 3,
    type: 17,
    key: 'sk-fixture-legacy-ali-0003',
    status: 2,
    name: 'legacy-qwen',
    base_url: '',
    other: '',
    models: 'qwen-turbo',
    model_mapping: '',
  },
];

function mapAll(rows: LegacyRow[]): Map<number | string, RowOutcome> {
  const mapper = createRowMapper();
  return new Map(rows.map((r) => [r.id, mapper.map(r)]));
}

function channelsOf(outcomes: Map<number | string, RowOutcome>, legacyId: number): MappedChannel[] {
  const outcome = outcomes.get(legacyId);
  if (outcome === undefined) throw new Error(`no outcome for row ${legacyId}`);
  return imported(outcome).channels;
}

describe('mapping the fixture legacygw-channels.sql (its expected import in docs/channel-import.md)', () => {
  const outcomes = mapAll(FIXTURE_ROWS);
  const all = [...outcomes.values()];

  it('imports 18 rows as 21 channels and skips 2', () => {
    const importedRows = all.filter((o) => o.outcome === 'imported');
    const channels = importedRows.flatMap((o) => (o.outcome === 'imported' ? o.channels : []));

    expect(importedRows).toHaveLength(18);
    expect(channels).toHaveLength(21);
    expect(new Set(channels.map((c) => c.id)).size).toBe(21);
  });

  it('skips row 17 as an unknown type and row 19 as identical to row 1', () => {
    const skipped = all.filter((o) => o.outcome === 'skipped');

    expect(skipped).toEqual([
      { legacyId: 17, outcome: 'skipped', reason: 'unknown legacy channel type 999', warnings: [] },
      { legacyId: 19, outcome: 'skipped', reason: 'identical to legacy channel 1', warnings: [] },
    ]);
  });

  it('imports rows 4 and 5 as disabled and every other row as enabled', () => {
    const channels = all.flatMap((o) => (o.outcome === 'imported' ? o.channels : []));

    expect(channels.filter((c) => c.status === 'disabled').map((c) => c.legacyId)).toEqual([4, 5]);
  });

  it('gives row 10 three channels, one per key, with numbered names', () => {
    const channels = channelsOf(outcomes, 10);

    expect(channels.map((c) => [c.key, c.name])).toEqual([
      ['sk-fixture-deepseek-a', 'deepseek-pool'],
      ['sk-fixture-deepseek-b', 'deepseek-pool #2'],
      ['sk-fixture-deepseek-c', 'deepseek-pool #3'],
    ]);
  });

  it('gives row 18 two channels without \\r in the keys and both model spellings', () => {
    const channels = channelsOf(outcomes, 18);

    expect(channels.map((c) => c.key)).toEqual(['sk-fixture-crlf-a', 'sk-fixture-crlf-b']);
    expect(channels.every((c) => !c.key.includes('\r'))).toBe(true);
    expect(channels.map((c) => c.models)).toEqual([
      ['gpt-4o-mini', 'GPT-4o-mini'],
      ['gpt-4o-mini', 'GPT-4o-mini'],
    ]);
    expect(imported(outcomes.get(18) as RowOutcome).warnings).toEqual([]);
  });

  it.each([
    [12, 'https://custom-proxy.example.com'],
    [11, 'https://llm.example.internal/v1'],
    [6, 'https://oa.api2d.net'],
    [1, 'https://api.openai.com'],
    [4, 'https://api.anthropic.com'],
  ])('gives row %d the base URL %s', (legacyId, baseUrl) => {
    expect(channelsOf(outcomes, legacyId).map((c) => c.baseUrl)).toEqual([baseUrl]);
  });

  it('imports row 16 with no models and says so', () => {
    const outcome = imported(outcomes.get(16) as RowOutcome);

    expect(outcome.channels.map((c) => c.models)).toEqual([[]]);
    expect(outcome.warnings).toEqual(['no models']);
  });

  it('cleans row 2 models and warns that its model mapping was not imported', () => {
    const outcome = imported(outcomes.get(2) as RowOutcome);

    expect(outcome.channels.map((c) => c.models)).toEqual([['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small']]);
    expect(outcome.warnings).toEqual(['model mapping not imported']);
  });

  it('maps every row field by field', () => {
    const expected: Record<number, [provider: string, baseUrl: string, status: string, warnings: string[]]> = {
      1: ['openai', 'https://api.openai.com', 'enabled', []],
      2: ['openai', 'https://openai-proxy.example.com', 'enabled', ['model mapping not imported']],
      3: [
        'azure',
        'https://fixture-eastus.openai.azure.com',
        'enabled',
        ['model mapping not imported', 'legacy config not imported: other'],
      ],
      4: ['anthropic', 'https://api.anthropic.com', 'disabled', []],
      5: ['baidu', 'https://aip.baidubce.com', 'disabled', []],
      6: ['api2d', 'https://oa.api2d.net', 'enabled', []],
      7: ['ali', 'https://dashscope.aliyuncs.com', 'enabled', []],
      8: ['gemini', 'https://generativelanguage.googleapis.com', 'enabled', ['legacy config not imported: other']],
      9: ['aws', '', 'enabled', ['no base URL', 'legacy config not imported: config.region, config.sk, config.ak']],
      10: ['deepseek', 'https://api.deepseek.com', 'enabled', []],
      11: ['openai-compatible', 'https://llm.example.internal/v1', 'enabled', []],
      12: ['custom', 'https://custom-proxy.example.com', 'enabled', ['model mapping not imported']],
      13: [
        'vertex-ai',
        '',
        'enabled',
        ['no base URL', 'legacy config not imported: config.region, config.vertex_ai_project_id, config.vertex_ai_adc'],
      ],
      14: ['xunfei', '', 'enabled', ['no base URL', 'legacy config not imported: other']],
      15: ['coze', 'https://api.coze.com', 'enabled', ['legacy config not imported: config.user_id']],
      16: ['siliconflow', 'https://api.siliconflow.cn', 'enabled', ['no models']],
      18: ['openai', 'https://api.openai.com', 'enabled', []],
      20: ['cloudflare', 'https://api.cloudflare.com', 'enabled', ['legacy config not imported: config.user_id']],
    };

    for (const source of FIXTURE_ROWS) {
      const want = expected[source.id];
      if (want === undefined) continue;
      const [provider, baseUrl, status, warnings] = want;
      const outcome = imported(outcomes.get(source.id) as RowOutcome);
      const keys = (source.key ?? '').split(/\r?\n/).filter((k) => k !== '');
      const models = [...new Set((source.models ?? '').split(',').map((m) => m.trim()))].filter(Boolean);

      expect(outcome.warnings, `row ${source.id} warnings`).toEqual(warnings);
      expect(outcome.channels, `row ${source.id}`).toEqual(
        keys.map((key, i) => ({
          id: testChannelId(source.id, key),
          provider,
          legacyType: source.type,
          name: i === 0 ? source.name : `${source.name} #${i + 1}`,
          baseUrl,
          models,
          key,
          status,
          settings: {},
          legacyId: source.id,
        })),
      );
    }
  });

  it('keeps composite keys verbatim', () => {
    expect(channelsOf(outcomes, 5).map((c) => c.key)).toEqual(['fixtureBaiduApiKey0005|fixtureBaiduSecretKey0005']);
    expect(channelsOf(outcomes, 13)[0]?.key).toBe(FIXTURE_ROWS.find((r) => r.id === 13)?.key);
  });

  it('never puts a key or a config value into a warning or a reason', () => {
    const secrets = FIXTURE_ROWS.flatMap((r) => [...(r.key ?? '').split(/\r?\n/), r.other ?? ''])
      .concat(['fixtureAwsSecret0009', 'AKIAFIXTURE0009', 'fixture-coze-user-15', '0123456789abcdef0123456789abcdef'])
      .filter((s) => s.length > 0);
    const texts = all.flatMap((o) => [...o.warnings, ...(o.outcome === 'skipped' ? [o.reason] : [])]);

    for (const text of texts) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe('mapping the fixture legacygw-channels-v05.sql', () => {
  it('imports 3 rows as 3 channels, row 3 disabled', () => {
    const outcomes = mapAll(V05_ROWS);

    const channels = [...outcomes.values()].flatMap((o) => imported(o).channels);

    expect(channels.map((c) => [c.legacyId, c.provider, c.baseUrl, c.status])).toEqual([
      [1, 'openai', 'https://legacy-proxy.example.com', 'enabled'],
      [2, 'azure', 'https://legacy-res.openai.azure.com', 'enabled'],
      [3, 'ali', 'https://dashscope.aliyuncs.com', 'disabled'],
    ]);
    expect(imported(outcomes.get(2) as RowOutcome).warnings).toEqual([
      'model mapping not imported',
      'legacy config not imported: other',
    ]);
  });
});

describe('provider table (docs/channel-import.md)', () => {
  it('lists types 1 to 51 and nothing else', () => {
    expect([...LEGACY_PROVIDERS.keys()]).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(new Set([...LEGACY_PROVIDERS.values()].map((p) => p.provider)).size).toBe(51);
  });

  it('has no default base URL with a trailing slash', () => {
    for (const { defaultBaseUrl } of LEGACY_PROVIDERS.values()) expect(defaultBaseUrl ?? '').not.toMatch(/\/$/);
  });

  it.each([
    [3, 'azure', null],
    [20, 'openrouter', 'https://openrouter.ai/api'],
    [29, 'groq', 'https://api.groq.com/openai'],
    [41, 'novita', 'https://api.novita.ai/v3/openai'],
    [51, 'gemini-openai', 'https://generativelanguage.googleapis.com/v1beta/openai'],
  ])('maps type %d to %s with default %s', (type, provider, defaultBaseUrl) => {
    expect(legacyProvider(type)).toEqual({ provider, defaultBaseUrl });
  });
});

describe('createRowMapper: provider', () => {
  it.each([
    [null, 'unknown legacy channel type NULL'],
    [0, 'unknown legacy channel type 0'],
    [52, 'unknown legacy channel type 52'],
    [999, 'unknown legacy channel type 999'],
    [-1, 'unknown legacy channel type -1'],
    [1.5, 'unknown legacy channel type 1.5'],
  ])('skips type %s without falling back to another provider', (type, reason) => {
    expect(mapOne({ id: 7, type })).toEqual({ legacyId: 7, outcome: 'skipped', reason, warnings: [] });
  });
});

describe('createRowMapper: keys', () => {
  it.each([null, '', '   ', '\n', '\r\n \r\n\t'])('skips a row whose key column is %j', (key) => {
    expect(mapOne({ id: 3, key })).toEqual({ legacyId: 3, outcome: 'skipped', reason: 'no API key', warnings: [] });
  });

  it('trims keys, drops empty lines and de-duplicates in order', () => {
    const outcome = imported(mapOne({ id: 1, key: ' b \r\na\n\nb\n a\r\nc' }));

    expect(outcome.channels.map((c) => c.key)).toEqual(['b', 'a', 'c']);
  });

  it('does not split on a lone \\r', () => {
    expect(imported(mapOne({ id: 1, key: 'a\rb' })).channels.map((c) => c.key)).toEqual(['a\rb']);
  });
});

describe('createRowMapper: base URL', () => {
  it.each([
    [1, '  https://proxy.example.com/  ', 'https://proxy.example.com'],
    [1, 'https://proxy.example.com//', 'https://proxy.example.com/'],
    [1, 'https://proxy.example.com/v1/', 'https://proxy.example.com/v1'],
    [1, '', 'https://api.openai.com'],
    [1, null, 'https://api.openai.com'],
    [1, ' \t', 'https://api.openai.com'],
    [1, '/', 'https://api.openai.com'],
    [29, '', 'https://api.groq.com/openai'],
  ])('maps type %d base_url %j to %j with no warning', (type, base_url, baseUrl) => {
    const outcome = imported(mapOne({ id: 1, type, base_url }));

    expect(outcome.channels[0]?.baseUrl).toBe(baseUrl);
    expect(outcome.warnings).toEqual([]);
  });

  it('stores an empty base URL when the type has no default, and warns', () => {
    const outcome = imported(mapOne({ id: 1, type: 8, base_url: ' ' }));

    expect(outcome.channels[0]?.baseUrl).toBe('');
    expect(outcome.warnings).toEqual(['no base URL']);
  });
});

describe('createRowMapper: models', () => {
  it('trims, drops empties and de-duplicates case-sensitively in first-seen order', () => {
    const outcome = imported(mapOne({ id: 1, models: ' b,a , ,B,b,,a,c ' }));

    expect(outcome.channels[0]?.models).toEqual(['b', 'a', 'B', 'c']);
    expect(outcome.warnings).toEqual([]);
  });

  it.each([null, '', ' , ,'])('imports models %j as an empty list with a warning', (models) => {
    const outcome = imported(mapOne({ id: 1, models }));

    expect(outcome.channels[0]?.models).toEqual([]);
    expect(outcome.warnings).toEqual(['no models']);
  });

  it('gives each channel of a row its own models array', () => {
    const [first, second] = imported(mapOne({ id: 1, key: 'a\nb', models: 'm' })).channels;

    first?.models.push('changed');

    expect(second?.models).toEqual(['m']);
  });
});

describe('createRowMapper: status', () => {
  it.each([
    [1, 'enabled'],
    [2, 'disabled'],
    [3, 'disabled'],
    [0, 'disabled'],
    [null, 'disabled'],
    [-1, 'disabled'],
  ])('maps legacy status %s to %s', (status, expected) => {
    expect(imported(mapOne({ id: 1, status })).channels[0]?.status).toBe(expected);
  });
});

describe('createRowMapper: name', () => {
  it.each([null, undefined, '', '   '])('names a channel legacy-<id> when the name is %j', (name) => {
    expect(imported(mapOne({ id: 42, name })).channels[0]?.name).toBe('legacy-42');
  });

  it('trims the name', () => {
    expect(imported(mapOne({ id: 1, name: '  main  ' })).channels[0]?.name).toBe('main');
  });

  it('keeps a name of exactly 64 characters', () => {
    const name = 'n'.repeat(64);

    const outcome = imported(mapOne({ id: 1, name }));

    expect(outcome.channels[0]?.name).toBe(name);
    expect(outcome.warnings).toEqual([]);
  });

  it('truncates a longer name to 64 characters and warns', () => {
    const outcome = imported(mapOne({ id: 1, name: `${'n'.repeat(64)}overflow` }));

    expect(outcome.channels[0]?.name).toBe('n'.repeat(64));
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('counts code points, so an emoji is never cut in half', () => {
    const outcome = imported(mapOne({ id: 1, name: '😀'.repeat(70) }));

    expect(outcome.channels[0]?.name).toBe('😀'.repeat(64));
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('keeps 64 code points that are longer than 64 UTF-16 units', () => {
    const outcome = imported(mapOne({ id: 1, name: '😀'.repeat(64) }));

    expect(outcome.channels[0]?.name).toBe('😀'.repeat(64));
    expect(outcome.warnings).toEqual([]);
  });

  it('shortens the name before the " #n" suffix so every name fits 64 characters', () => {
    const name = 'n'.repeat(63);

    const outcome = imported(mapOne({ id: 1, name, key: 'a\nb' }));

    expect(outcome.channels.map((c) => c.name)).toEqual([name, `${'n'.repeat(61)} #2`]);
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('does not leave a space before the suffix when the cut falls on one', () => {
    const name = `${'n'.repeat(60)} ${'m'.repeat(10)}`;

    const outcome = imported(mapOne({ id: 1, name, key: 'a\nb' }));

    expect(outcome.channels[1]?.name).toBe(`${'n'.repeat(60)} #2`);
  });

  it('numbers ten and more keys with names that still fit', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`).join('\n');

    const names = imported(mapOne({ id: 1, name: 'x'.repeat(64), key: keys })).channels.map((c) => c.name);

    expect(names[11]).toBe(`${'x'.repeat(60)} #12`);
    expect(names.every((n) => [...n].length <= 64)).toBe(true);
  });
});

describe('createRowMapper: warnings about what is not imported', () => {
  it.each([null, undefined, '', '  ', '{}', ' { \n } '])('does not warn about model_mapping %j', (model_mapping) => {
    expect(imported(mapOne({ id: 1, model_mapping })).warnings).toEqual([]);
  });

  it.each(['{"gpt-4":"gpt-4o"}', 'gpt-4=>gpt-4o', '[]', 'null', '{'])(
    'warns about model_mapping %j without quoting it',
    (model_mapping) => {
      expect(imported(mapOne({ id: 1, model_mapping })).warnings).toEqual(['model mapping not imported']);
    },
  );

  it.each([
    null,
    undefined,
    '',
    '  ',
    '{}',
    'null',
    '[]',
    '""',
    EMPTY_CONFIG,
    '{"region":" ","plugin":false,"library_id":0,"vertex_ai_adc":null,"ak":[],"sk":{}}',
  ])('does not warn about the empty config %j', (config) => {
    expect(imported(mapOne({ id: 1, config })).warnings).toEqual([]);
  });

  it('names the config fields that hold values, in their order, never the values', () => {
    const config = '{"user_id":"u-123","region":"","api_version":"2024-02-01","plugin":{"a":1},"library_id":7}';

    const warnings = imported(mapOne({ id: 1, config })).warnings;

    expect(warnings).toEqual([
      'legacy config not imported: config.user_id, config.api_version, config.plugin, config.library_id',
    ]);
  });

  it('reports unknown config fields as "config" so a key name cannot carry a secret', () => {
    const config = '{"sk-live-secret-in-a-key-name":"x","region":"eu-west-1"}';

    const warnings = imported(mapOne({ id: 1, config })).warnings;

    expect(warnings).toEqual(['legacy config not imported: config.region, config']);
  });

  it.each([
    '{ "region" : "" ,\n\t"sk" : null , "ak":false,"plugin":0, "user_id": [ ], "library_id": { } }',
    '{"region":"","region":""}',
    '{"":""}',
    '{"reg\\u0069on":""}',
  ])('does not warn about the config %j, every value empty (read without parsing)', (config) => {
    expect(imported(mapOne({ id: 1, config })).warnings).toEqual([]);
  });

  it.each([
    '{"region":"" "sk":""}',
    '{"region":"",}',
    '{,"region":""}',
    '{"reg\tion":""}',
    '{"region":01}',
    '{"region":""}}',
    '{"region":""\u00a0}',
  ])('reports the config %j as "config": not JSON, or a value that is not empty', (config) => {
    expect(imported(mapOne({ id: 1, config })).warnings).toEqual(['legacy config not imported: config']);
  });

  it.each(['not json', '{"region":', '"a string"', '42', 'true', '["x"]'])(
    'reports the non-empty config %j that is not a JSON object as "config"',
    (config) => {
      expect(imported(mapOne({ id: 1, config })).warnings).toEqual(['legacy config not imported: config']);
    },
  );

  it('names other and config fields in one warning', () => {
    const outcome = imported(mapOne({ id: 1, other: 'v1beta', config: '{"region":"us-east-1"}' }));

    expect(outcome.warnings).toEqual(['legacy config not imported: other, config.region']);
  });

  it.each([null, undefined, '', ' \n '])('does not warn about the empty other %j', (other) => {
    expect(imported(mapOne({ id: 1, other })).warnings).toEqual([]);
  });

  it('lists every warning of a row in a fixed order', () => {
    const outcome = imported(
      mapOne({
        id: 1,
        type: 8,
        base_url: '',
        models: '',
        name: 'x'.repeat(65),
        model_mapping: '{"a":"b"}',
        other: 'o',
      }),
    );

    expect(outcome.warnings).toEqual([
      'no base URL',
      'no models',
      'name truncated',
      'model mapping not imported',
      'legacy config not imported: other',
    ]);
  });
});

describe('createRowMapper: identical rows within one run', () => {
  it('skips a later row that differs only in its name, naming the first row', () => {
    const mapper = createRowMapper();

    mapper.map(row({ id: 1, key: 'k', base_url: '' }));
    const second = mapper.map(row({ id: 2, key: 'k', base_url: 'https://api.openai.com/', name: 'other name' }));
    const third = mapper.map(row({ id: 3, key: ' k \n' }));

    expect(second).toEqual({ legacyId: 2, outcome: 'skipped', reason: 'identical to legacy channel 1', warnings: [] });
    expect(third).toMatchObject({ outcome: 'skipped', reason: 'identical to legacy channel 1' });
  });

  it.each([
    ['other models', { models: 'gpt-4o-mini' }],
    ['another status', { status: 2 }],
  ])('keeps a row with the same key and base URL and %s as a channel of its own', (_what, fields) => {
    const mapper = createRowMapper();
    const first = imported(mapper.map(row({ id: 1, key: 'k' })));

    const second = imported(mapper.map(row({ id: 2, key: 'k', ...fields })));

    expect(second.channels).toHaveLength(1);
    expect(second.channels[0]?.id).not.toBe(first.channels[0]?.id);
    expect(second.warnings).toEqual([]);
  });

  it('imports the same key under another provider or base URL', () => {
    const mapper = createRowMapper();

    mapper.map(row({ id: 1, key: 'k' }));
    const otherProvider = mapper.map(row({ id: 2, key: 'k', type: 36 }));
    const otherBaseUrl = mapper.map(row({ id: 3, key: 'k', base_url: 'https://proxy.example.com' }));

    expect(otherProvider.outcome).toBe('imported');
    expect(otherBaseUrl.outcome).toBe('imported');
  });

  it('imports only the new keys of a partly duplicated row, keeping their position numbers, and warns', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k1' }));
    mapper.map(row({ id: 2, key: 'k3' }));

    const outcome = imported(mapper.map(row({ id: 5, key: 'k1\nk2\nk3\nk4', name: 'pool' })));

    expect(outcome.channels.map((c) => [c.key, c.name])).toEqual([
      ['k2', 'pool #2'],
      ['k4', 'pool #4'],
    ]);
    expect(outcome.warnings).toEqual(['2 keys skipped as identical to legacy channels 1, 2']);
  });

  it('words the warning for a single duplicated key', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k1' }));

    expect(imported(mapper.map(row({ id: 2, key: 'k1\nk2' }))).warnings).toEqual([
      '1 key skipped as identical to legacy channel 1',
    ]);
  });

  it('skips a row whose keys all repeat earlier rows, naming the first match', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k2' }));
    mapper.map(row({ id: 2, key: 'k1' }));

    expect(mapper.map(row({ id: 3, key: 'k1\nk2' }))).toMatchObject({
      outcome: 'skipped',
      reason: 'identical to legacy channel 2',
    });
  });

  it('does not remember skipped rows, and each mapper starts empty', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k', type: 999 }));

    expect(mapper.map(row({ id: 2, key: 'k' })).outcome).toBe('imported');
    expect(createRowMapper().map(row({ id: 3, key: 'k' })).outcome).toBe('imported');
  });
});

describe('channel ids (docs/channel-import.md, "Identity")', () => {
  it('are the same for the same legacy row and key whatever else the row says', () => {
    const mapper = createRowMapper();
    const a = imported(mapper.map(row({ id: 4, key: 'sk-same', models: 'a', name: 'x' })));
    const b = imported(
      createRowMapper().map(row({ id: 4, key: 'sk-same', models: 'b', base_url: 'https://o', status: 2 })),
    );

    expect(a.channels[0]?.id).toBe(b.channels[0]?.id);
    expect(a.channels[0]?.id).toBe(testChannelId(4, 'sk-same'));
  });

  it('differ for another legacy row with the same key', () => {
    const mapper = createRowMapper();
    const a = imported(mapper.map(row({ id: 4, key: 'sk-same', models: 'a' })));
    const b = imported(mapper.map(row({ id: 5, key: 'sk-same', models: 'b' })));

    expect(a.channels[0]?.id).not.toBe(b.channels[0]?.id);
  });

  it('cannot be computed from the key without the deployment key: an unkeyed hash of the same inputs differs', () => {
    const id = testChannelId(1, 'sk-1');

    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(id).not.toBe(createHash('sha256').update('1:14:sk-1').digest('hex'));
    expect(id).not.toBe(unkeyedChannelId('openai', 'https://api.openai.com', 'sk-1'));
  });

  it('keeps the unkeyed id of before: sha256 of the length-prefixed provider, base URL and key', () => {
    expect(unkeyedChannelId('openai', 'https://api.openai.com', 'sk-1')).toBe(
      '13506cf4cdbd4d8c505570fcc4976175f10d33c19df3e2f344e9d01fcef8ee59',
    );
    expect(unkeyedChannelId('p', 'é', 'k')).toBe(createHash('sha256').update('1:p2:é1:k').digest('hex'));
  });
});

describe('createRowMapper properties', () => {
  // Markers that appear in no warning or reason text, so finding one there means a value leaked.
  const text = (marker: string) =>
    fc.string({ maxLength: 30, unit: fc.constantFrom(...'aZ09 |{}":,-_./@#'.split('')) }).map((s) => `${marker}${s}`);
  const keyColumn = fc
    .tuple(
      // A small shared pool makes rows repeat each other's keys, so the duplicate paths run too.
      fc.array(fc.oneof(text('Zk~'), fc.constantFrom('Zk~pool-1', ' Zk~pool-2', '', ' ', '\t')), { maxLength: 5 }),
      fc.constantFrom('\n', '\r\n'),
    )
    .map(([lines, eol]) => lines.join(eol));
  const configColumn = fc.oneof(
    fc
      .dictionary(
        fc.oneof(fc.constantFrom('region', 'sk', 'ak', 'user_id', 'api_version', 'plugin'), text('C~')),
        fc.oneof(text('V~'), fc.constantFrom('', null, 0, false), fc.integer()),
        { maxKeys: 5 },
      )
      .map((o) => JSON.stringify(o)),
    text('V~'),
  );
  const raw = fc.string({ maxLength: 40, unit: 'binary' });
  const legacyRow: fc.Arbitrary<LegacyRow> = fc.record(
    {
      id: fc.integer({ min: 1, max: 1_000_000 }),
      type: fc.option(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(1, 8, 36) },
          fc.integer({ min: -2, max: 60 }),
          fc.integer(),
          fc.double(),
        ),
      ),
      key: fc.option(fc.oneof(keyColumn, raw)),
      status: fc.option(fc.integer({ min: -1, max: 4 })),
      base_url: fc.option(fc.oneof(fc.constantFrom('', 'https://V~proxy/'), text('https://V~'), raw)),
      models: fc.option(fc.oneof(text('m'), raw)),
      name: fc.option(fc.oneof(text('V~'), raw)),
      model_mapping: fc.option(fc.oneof(text('V~'), fc.constant('{}'), raw)),
      config: fc.option(fc.oneof(configColumn, raw)),
      other: fc.option(fc.oneof(text('V~'), raw)),
    },
    { requiredKeys: ['id', 'type', 'key', 'status', 'base_url', 'models'] },
  );

  it('never throws, and no warning or reason contains a key or a value', () => {
    fc.assert(
      fc.property(fc.array(legacyRow, { maxLength: 8 }), (rows) => {
        const mapper = createRowMapper();
        for (const source of rows) {
          const outcome = mapper.map(source);
          const texts = [...outcome.warnings, ...(outcome.outcome === 'skipped' ? [outcome.reason] : [])];
          const keys = (source.key ?? '')
            .split(/\r?\n/)
            .map((k) => k.trim())
            .filter((k) => k.includes('Zk~'));
          for (const t of texts) {
            expect(t).not.toMatch(/Zk~|V~|C~/);
            for (const key of keys) expect(t).not.toContain(key);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('only ever produces well-formed channels', () => {
    fc.assert(
      fc.property(legacyRow, (source) => {
        const outcome = createRowMapper().map(source);
        if (outcome.outcome === 'skipped') return;

        expect(outcome.channels.length).toBeGreaterThan(0);
        for (const channel of outcome.channels) {
          expect(channel.key).not.toBe('');
          expect(channel.key).toBe(channel.key.trim());
          expect(channel.key).not.toMatch(/\n/);
          expect([...channel.name].length).toBeLessThanOrEqual(64);
          expect(channel.name).not.toBe('');
          expect(channel.status).toBe(source.status === 1 ? 'enabled' : 'disabled');
          expect(channel.id).toBe(testChannelId(source.id, channel.key));
          expect(channel.legacyId).toBe(source.id);
        }
      }),
      { numRuns: 300 },
    );
  });
});
