import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testChannelId } from '#test/support/channel-ids';
import { type TestOutcome as RowOutcome, type TestRow, testMapper } from '#test/support/legacy-mapper';

/** A row of New API's table as these tests write it. */
type LegacyRow = TestRow & { id: number; key?: string | null; status?: number | null };

const createRowMapper = (kind: 'newapi' | 'legacygw') => testMapper(kind === 'legacygw' ? 'oneapi' : kind);

const SINGLE_KEY_INFO =
  '{"is_multi_key":false,"multi_key_size":0,"multi_key_status_list":null,"multi_key_polling_index":0,"multi_key_mode":""}';
const MULTI_KEY_INFO =
  '{"is_multi_key":true,"multi_key_size":2,"multi_key_status_list":null,"multi_key_polling_index":0,"multi_key_mode":"random"}';

/** A New API row as its UI leaves an unused one: every setting at New API's default. */
function row(fields: Partial<LegacyRow> & { id: number }): LegacyRow {
  return {
    type: 1,
    key: 'sk-newapi-test',
    status: 1,
    base_url: '',
    models: 'gpt-4o',
    name: 'channel',
    model_mapping: '',
    other: '',
    channel_info: SINGLE_KEY_INFO,
    setting: null,
    settings: '',
    param_override: null,
    header_override: null,
    status_code_mapping: '',
    tag: null,
    openai_organization: null,
    remark: null,
    ...fields,
  };
}

function mapNewApi(fields: Partial<LegacyRow> & { id: number }): RowOutcome {
  return createRowMapper('newapi').map(row(fields));
}

const keysOf = (outcome: RowOutcome) => (outcome.outcome === 'imported' ? outcome.channels.map((c) => c.key) : []);
const warningsOf = (outcome: RowOutcome) => outcome.warnings;

describe('New API keys: one key unless channel_info says multi-key', () => {
  it('keeps a key with line breaks whole when the row is not multi-key', () => {
    const key = '{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nX\\n"\n}';

    const outcome = mapNewApi({ id: 1, type: 41, key: `\n${key}\n  ` });

    expect(keysOf(outcome)).toEqual([key]);
  });

  it('keeps an AWS ak|sk|region whole', () => {
    expect(keysOf(mapNewApi({ id: 1, type: 33, key: ' AKIAX|secret|us-east-1 ' }))).toEqual(['AKIAX|secret|us-east-1']);
  });

  it.each([
    ['NULL', null],
    ['empty', ''],
    ['not JSON', '{is_multi_key: true'],
    ['a JSON string', '"is_multi_key"'],
    ['is_multi_key as the string "true"', '{"is_multi_key":"true"}'],
    ['is_multi_key 1', '{"is_multi_key":1}'],
    ['is_multi_key false', SINGLE_KEY_INFO],
  ])('treats channel_info that is %s as a single-key row', (_case, channelInfo) => {
    const outcome = mapNewApi({ id: 1, key: 'sk-a\nsk-b', channel_info: channelInfo });

    expect(keysOf(outcome)).toEqual(['sk-a\nsk-b']);
  });

  it('treats a missing channel_info column (New API before it had one) as a single-key row', () => {
    const { channel_info: _absent, ...withoutInfo } = row({ id: 1, key: 'sk-a\nsk-b' });

    expect(keysOf(createRowMapper('newapi').map(withoutInfo))).toEqual(['sk-a\nsk-b']);
  });

  it('splits a multi-key row on line breaks, trimming, dropping empties and repeats', () => {
    const outcome = mapNewApi({ id: 1, key: 'sk-a\r\n sk-b \n\n\nsk-a\r\nsk-c\n', channel_info: MULTI_KEY_INFO });

    expect(keysOf(outcome)).toEqual(['sk-a', 'sk-b', 'sk-c']);
    expect(outcome.outcome === 'imported' && outcome.channels.map((c) => c.name)).toEqual([
      'channel',
      'channel #2',
      'channel #3',
    ]);
  });

  it('gives one channel per element of a JSON array: strings unquoted, objects as their JSON text', () => {
    const account = { type: 'service_account', private_key: '-----BEGIN-----\nX\n-----END-----\n' };
    const key = ` [ "sk-a", ${JSON.stringify(account, null, 2)}, " sk-b ", "", null, "sk-a" ] `;

    const outcome = mapNewApi({ id: 1, type: 41, key, channel_info: MULTI_KEY_INFO });

    expect(keysOf(outcome)).toEqual(['sk-a', JSON.stringify(account), 'sk-b']);
  });

  it('splits a multi-key value that starts with [ but is not a JSON array on line breaks', () => {
    const outcome = mapNewApi({ id: 1, key: '[sk-a\nsk-b]', channel_info: MULTI_KEY_INFO });

    expect(keysOf(outcome)).toEqual(['[sk-a', 'sk-b]']);
  });

  it.each([
    ['an empty JSON array', '[]', MULTI_KEY_INFO],
    ['a JSON array of blanks', '["", " ", null]', MULTI_KEY_INFO],
    ['blank', ' \n\t ', SINGLE_KEY_INFO],
    ['NULL', null, SINGLE_KEY_INFO],
  ])('skips a row whose key is %s as no API key', (_case, key, channelInfo) => {
    expect(mapNewApi({ id: 4, key, channel_info: channelInfo })).toEqual({
      legacyId: 4,
      outcome: 'skipped',
      reason: 'no API key',
      warnings: [],
    });
  });

  it('still reads a legacy gateway row one key per line, whatever columns it carries', () => {
    const outcome = createRowMapper('legacygw').map(row({ id: 1, key: 'sk-a\nsk-b', tag: 'x', remark: 'y' }));

    expect(keysOf(outcome)).toEqual(['sk-a', 'sk-b']);
    expect(warningsOf(outcome)).toEqual([]);
  });
});

describe("New API's own settings: named in a warning only when they hold more than the default", () => {
  it('warns about nothing for a row at New API defaults (auto_ban and channel_info are never named)', () => {
    expect(warningsOf(mapNewApi({ id: 1 }))).toEqual([]);
  });

  it.each(['setting', 'settings', 'param_override', 'header_override', 'status_code_mapping'] as const)(
    'names %s when it holds a JSON value, and not when it is empty, {} or null',
    (field) => {
      for (const empty of [null, '', '  ', '{}', '{ }', 'null', ' null ']) {
        expect(warningsOf(mapNewApi({ id: 1, [field]: empty }))).toEqual([]);
      }
      expect(warningsOf(mapNewApi({ id: 1, [field]: '{"a":1}' }))).toEqual([`legacy config not imported: ${field}`]);
      expect(warningsOf(mapNewApi({ id: 1, [field]: 'not json' }))).toEqual([`legacy config not imported: ${field}`]);
    },
  );

  it.each(['tag', 'openai_organization', 'remark'] as const)('names %s when it is not blank', (field) => {
    expect(warningsOf(mapNewApi({ id: 1, [field]: ' ' }))).toEqual([]);
    expect(warningsOf(mapNewApi({ id: 1, [field]: '{}' }))).toEqual([`legacy config not imported: ${field}`]);
  });

  it('names every setting in one warning, after `other`, in a fixed order', () => {
    const outcome = mapNewApi({
      id: 1,
      other: '2024-10-21',
      remark: 'r',
      tag: 't',
      openai_organization: 'org',
      status_code_mapping: '{"400":"500"}',
      header_override: '{"h":"v"}',
      param_override: '{"p":1}',
      settings: '{"s":1}',
      setting: '{"proxy":"http://p"}',
      model_mapping: '{"a":"b"}',
    });

    expect(warningsOf(outcome)).toEqual([
      'model mapping not imported',
      'legacy config not imported: other, setting, settings, param_override, header_override, status_code_mapping, tag, openai_organization, remark',
    ]);
  });

  it('never puts a setting value in a warning', () => {
    const secret = 'sk-hidden-in-a-setting-0001';

    const outcome = mapNewApi({
      id: 1,
      remark: secret,
      tag: secret,
      header_override: `{"Authorization":"Bearer ${secret}"}`,
      param_override: `{"${secret}":1}`,
    });

    expect(JSON.stringify(outcome.warnings)).not.toContain(secret);
    expect(outcome.warnings).toHaveLength(1);
  });

  it('ignores New API columns for a legacy gateway row', () => {
    expect(warningsOf(createRowMapper('legacygw').map(row({ id: 1, setting: '{"a":1}', tag: 't' })))).toEqual([]);
  });
});

describe('New API rows through its own type table', () => {
  it.each([
    [43, 'deepseek', 'https://api.deepseek.com'],
    [2, 'midjourney', ''],
    [5, 'midjourney-plus', ''],
    [4, 'ollama', 'http://localhost:11434'],
  ])('maps New API type %d to %s with base URL %j', (type, provider, baseUrl) => {
    const outcome = mapNewApi({ id: 1, type });

    expect(outcome.outcome === 'imported' && outcome.channels[0]).toMatchObject({
      provider,
      baseUrl,
      legacyType: type,
    });
    expect(warningsOf(outcome)).toEqual(baseUrl === '' ? ['no base URL'] : []);
  });

  it('reads the same number through the legacy table as another provider', () => {
    const legacy = createRowMapper('legacygw').map(row({ id: 1, type: 43 }));

    expect(legacy.outcome === 'imported' && legacy.channels[0]?.provider).toBe('proxy');
  });
});

describe('New API mapping properties', () => {
  // Markers that appear in no warning or reason text, so finding one there means a value leaked.
  const text = (marker: string) =>
    fc
      .string({ maxLength: 30, unit: fc.constantFrom(...'aZ09 |{}[]":,-_./@#\n'.split('')) })
      .map((s) => `${marker}${s}`);
  const raw = fc.string({ maxLength: 40, unit: 'binary' });
  const setting = fc.option(fc.oneof(fc.constantFrom('', '{}', 'null', ' { } '), text('V~'), raw));
  const keyLines = fc
    .array(fc.oneof(text('Zk~'), fc.constantFrom('', ' ')), { maxLength: 4 })
    .map((lines) => lines.join('\n'));
  const keyArray = fc
    .array(fc.oneof(text('Zk~'), fc.record({ type: fc.constant('service_account'), secret: text('Zk~') })), {
      maxLength: 4,
    })
    .map((elements) => JSON.stringify(elements));
  const channelInfo = fc.option(
    fc.oneof(
      fc.boolean().map((multi) => JSON.stringify({ is_multi_key: multi, multi_key_size: 2 })),
      fc.constantFrom('{"is_multi_key":"true"}', '{', '[]'),
      raw,
    ),
  );
  const newApiRow: fc.Arbitrary<LegacyRow> = fc.record(
    {
      id: fc.integer({ min: 1, max: 1_000_000 }),
      type: fc.option(
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom(1, 41, 33, 43) }, fc.integer({ min: -1, max: 120 })),
      ),
      key: fc.option(fc.oneof(keyLines, keyArray, raw)),
      status: fc.option(fc.integer({ min: -1, max: 4 })),
      base_url: fc.option(fc.oneof(fc.constantFrom('', 'https://V~proxy/'), raw)),
      models: fc.option(fc.oneof(text('m'), raw)),
      name: fc.option(fc.oneof(text('V~'), raw)),
      model_mapping: setting,
      other: setting,
      channel_info: channelInfo,
      setting,
      settings: setting,
      param_override: setting,
      header_override: setting,
      status_code_mapping: setting,
      tag: setting,
      openai_organization: setting,
      remark: setting,
    },
    { requiredKeys: ['id', 'type', 'key', 'status', 'base_url', 'models'] },
  );

  it('never throws, and no warning or reason carries a key or a value', () => {
    fc.assert(
      fc.property(fc.array(newApiRow, { maxLength: 8 }), (rows) => {
        const mapper = createRowMapper('newapi');
        for (const source of rows) {
          const outcome = mapper.map(source);
          const texts = [...outcome.warnings, ...(outcome.outcome === 'skipped' ? [outcome.reason] : [])];

          for (const t of texts) expect(t).not.toMatch(/Zk~|V~/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives a row that is not multi-key at most one channel, whose key is the whole trimmed key', () => {
    fc.assert(
      fc.property(newApiRow, (source) => {
        const outcome = createRowMapper('newapi').map(source);
        if (outcome.outcome === 'skipped') return;
        const multi = (() => {
          try {
            return JSON.parse(String(source.channel_info ?? ''))?.is_multi_key === true;
          } catch {
            return false;
          }
        })();

        expect(outcome.channels.length).toBeGreaterThan(0);
        if (!multi) expect(outcome.channels.map((c) => c.key)).toEqual([(source.key ?? '').trim()]);
        for (const channel of outcome.channels) {
          expect(channel.key).not.toBe('');
          expect(channel.id).toBe(testChannelId(source.id, channel.key));
        }
      }),
      { numRuns: 300 },
    );
  });
});
