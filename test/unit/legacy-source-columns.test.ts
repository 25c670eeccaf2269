import { describe, expect, it } from 'vitest';
import { checkColumns, toLegacyRow } from '#functions/import-legacygw/legacy-columns';
import { ProxyApiError } from '#shared/errors';

const REQUIRED = ['id', 'type', 'key', 'status', 'base_url', 'models'];
// What GORM's AutoMigrate gives New API's Channel model on MySQL (test/fixtures/newapi-channels.sql).
const NEWAPI = [
  ...REQUIRED,
  'openai_organization',
  'test_model',
  'name',
  'weight',
  'created_time',
  'test_time',
  'response_time',
  'other',
  'balance',
  'balance_updated_time',
  'group',
  'used_quota',
  'model_mapping',
  'status_code_mapping',
  'priority',
  'auto_ban',
  'other_info',
  'tag',
  'setting',
  'param_override',
  'header_override',
  'remark',
  'channel_info',
  'settings',
];

function refusal(columns: readonly string[]): ProxyApiError {
  try {
    checkColumns(new Set(columns), 'gw');
  } catch (e) {
    if (e instanceof ProxyApiError) return e;
    throw e;
  }
  throw new Error('expected the columns to be refused');
}

describe('checkColumns: whose channels table it is', () => {
  it("detects New API's GORM schema and selects the columns the New API mapping reads, and no others", () => {
    expect(checkColumns(new Set(NEWAPI), 'gw')).toEqual({
      kind: 'newapi',
      columns: [
        ...REQUIRED,
        'name',
        'model_mapping',
        'other',
        'group',
        'channel_info',
        'setting',
        'settings',
        'param_override',
        'header_override',
        'status_code_mapping',
        'tag',
        'openai_organization',
        'remark',
      ],
    });
  });

  it("reads the legacy gateway's schema as before, without New API's columns", () => {
    const legacy = [
      ...REQUIRED,
      'name',
      'model_mapping',
      'config',
      'other',
      'group',
      'system_prompt',
      'remark',
      'settings',
    ];

    expect(checkColumns(new Set(legacy), 'gw')).toEqual({
      kind: 'legacygw',
      columns: [...REQUIRED, 'name', 'model_mapping', 'config', 'other', 'group'],
    });
  });

  it.each(['tag', 'setting', 'auto_ban', 'status_code_mapping'])(
    'takes the fork column %s alone as New API',
    (fork) => {
      expect(checkColumns(new Set([...REQUIRED, fork]), 'gw').kind).toBe('newapi');
    },
  );

  it.each([
    [['config'], 'config'],
    [['system_prompt'], 'system_prompt'],
    [['config', 'system_prompt'], 'config, system_prompt'],
  ])('refuses fork columns together with legacy-only %j with a 400 naming both', (legacyOnly, named) => {
    const error = refusal([...NEWAPI, ...legacyOnly]);

    expect(error.httpStatus).toBe(400);
    expect(error.message).toContain(`columns New API never had (${named})`);
    expect(error.message).toMatch(/fork of the legacy gateway \(tag, setting, auto_ban, status_code_mapping\)/);
  });

  it('still refuses a New API table that lacks a required column, naming it', () => {
    expect(refusal(NEWAPI.filter((c) => c !== 'models')).message).toBe(
      'The channels table lacks required column(s): models',
    );
  });

  it('still says when there is no channels table at all', () => {
    expect(refusal([]).message).toMatch(/has no channels table/);
  });
});

describe('toLegacyRow: New API columns as the driver returns them', () => {
  const { columns } = checkColumns(new Set(NEWAPI), 'gw');
  const base = { id: 1, type: 1, key: 'k', status: 1, base_url: '', models: 'm' };

  it("turns channel_info that MySQL's JSON type returns parsed back into JSON text", () => {
    const row = toLegacyRow({ ...base, channel_info: { is_multi_key: true, multi_key_size: 2 } }, columns);

    expect(row.channel_info).toBe('{"is_multi_key":true,"multi_key_size":2}');
  });

  it('keeps channel_info that MariaDB returns as text, and a binary setting as UTF-8 text', () => {
    const row = toLegacyRow(
      { ...base, channel_info: '{"is_multi_key":false}', setting: Buffer.from('{"a":"é"}') },
      columns,
    );

    expect(row).toMatchObject({ channel_info: '{"is_multi_key":false}', setting: '{"a":"é"}' });
  });

  it('reads every New API column it selects, NULL as null, and no column it did not select', () => {
    const raw = Object.fromEntries(NEWAPI.map((c) => [c, null]));

    const row = toLegacyRow({ ...raw, ...base }, columns);

    expect(Object.keys(row).sort()).toEqual([...columns].sort());
    expect(row.tag).toBeNull();
    expect(row.channel_info).toBeNull();
  });
});
