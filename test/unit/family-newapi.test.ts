import { describe, expect, it } from 'vitest';
import type { RowValues } from '#functions/import-legacygw/families/family';
import { NEWAPI } from '#functions/import-legacygw/families/newapi';
import { editorRow, familyCalls } from '#test/support/family-calls';

const SINGLE = '{"is_multi_key":false,"multi_key_size":0,"multi_key_status_list":null,"multi_key_polling_index":0}';
const multi = (statusList: Record<string, number> | null = null) =>
  JSON.stringify({
    is_multi_key: true,
    multi_key_size: 3,
    multi_key_status_list: statusList,
    multi_key_mode: 'random',
  });

// What New API's editor saves in `setting` and `settings` when the operator changes nothing.
const DEFAULT_SETTING =
  '{"force_format":false,"thinking_to_content":false,"proxy":"","pass_through_body_enabled":false,"system_prompt":""}';
const DEFAULT_SETTINGS = '{"azure_responses_version":"","vertex_key_type":"json","aws_key_type":"ak_sk"}';

/** A New API row as its editor leaves it when the operator sets only key and models. */
function row(fields: Record<string, string | null> = {}): RowValues {
  return {
    ...editorRow('sk-fixture-newapi'),
    status_code_mapping: '',
    priority: '0',
    weight: '0',
    auto_ban: '1',
    tag: null,
    test_model: null,
    open_ai_organization: null,
    setting: DEFAULT_SETTING,
    settings: DEFAULT_SETTINGS,
    param_override: null,
    header_override: null,
    remark: null,
    channel_info: SINGLE,
    ...fields,
  };
}

const { typeOf, keys, settings } = familyCalls(NEWAPI, row);

const SERVICE_ACCOUNT =
  '{\n  "type": "service_account",\n  "project_id": "fixture-project",\n  "private_key": "-----BEGIN"\n}';

describe('New API keys', () => {
  it('reads the whole key as one key, line breaks included, when the row is not multi-key', () => {
    expect(keys({ key: ' sk-a\nsk-b \n' })).toEqual({ keys: ['sk-a\nsk-b'] });
    expect(keys({ key: 'sk-a\nsk-b', channel_info: null })).toEqual({ keys: ['sk-a\nsk-b'] });
    expect(keys({ key: 'sk-a\nsk-b', channel_info: '{"is_multi_key":"true"}' })).toEqual({ keys: ['sk-a\nsk-b'] });
  });

  it('splits a multi-key row on lines, trimmed, empties and repeats dropped', () => {
    expect(keys({ key: 'sk-a\r\nsk-b\n\nsk-a\nsk-c', channel_info: multi() })).toEqual({
      keys: ['sk-a', 'sk-b', 'sk-c'],
    });
  });

  it('gives one key per element of a JSON array in a multi-key row (strings unquoted, objects as JSON)', () => {
    expect(keys({ key: '["sk-a", "sk-b", null, ""]', channel_info: multi() })).toEqual({ keys: ['sk-a', 'sk-b'] });
  });

  it('marks the keys New API no longer uses (status list entries other than 1) as disabled, by position', () => {
    // Positions count every line as New API splits them, blank ones included.
    const result = keys({ key: 'sk-a\n\nsk-b\nsk-c', channel_info: multi({ '0': 1, '2': 3, '3': 2 }) });
    expect(result).toEqual({ keys: ['sk-a', 'sk-b', 'sk-c'], disabled: [1, 2] });
  });

  it('keeps a repeated key enabled when any of its positions is enabled', () => {
    expect(keys({ key: 'sk-a\nsk-a', channel_info: multi({ '0': 3 }) })).toEqual({ keys: ['sk-a'] });
  });

  it('gives no key for a blank key', () => {
    expect(keys({ key: '  ' })).toEqual({ keys: [] });
    expect(keys({ key: null, channel_info: multi() })).toEqual({ keys: [] });
  });

  it('keeps an AWS key ak|sk|region and skips the API-key form apiKey|region, naming the expected form', () => {
    expect(keys({ key: 'AKIAFIXTURE|sk|us-east-1' }, 33)).toEqual({ keys: ['AKIAFIXTURE|sk|us-east-1'] });
    expect(keys({ key: 'bedrock-api-key|us-east-1' }, 33)).toEqual({ skip: expect.stringContaining('ak|sk|region') });
    expect(keys({ key: 'a|b|c', settings: '{"aws_key_type":"api_key"}' }, 33)).toEqual({
      skip: expect.stringContaining('ak|sk|region'),
    });
    expect(keys({ key: 'no-separator' }, 33)).toEqual({ skip: expect.stringContaining('ak|sk|region') });
  });

  it('converts a Vertex AI service account with the region in other to region|project_id|ADC JSON', () => {
    expect(keys({ key: SERVICE_ACCOUNT, other: 'us-central1' }, 41)).toEqual({
      keys: [`us-central1|fixture-project|${SERVICE_ACCOUNT}`],
    });
  });

  it("takes a Vertex AI region map's default, or global without one, as New API does", () => {
    expect(keys({ key: SERVICE_ACCOUNT, other: '{"default":"europe-west4","gemini-2.5-pro":"us-east5"}' }, 41)).toEqual(
      {
        keys: [`europe-west4|fixture-project|${SERVICE_ACCOUNT}`],
      },
    );
    expect(keys({ key: SERVICE_ACCOUNT, other: '{"gemini-2.5-pro":"us-east5"}' }, 41)).toEqual({
      keys: [`global|fixture-project|${SERVICE_ACCOUNT}`],
    });
  });

  it('converts every service account of a multi-key Vertex AI row', () => {
    const a = { type: 'service_account', project_id: 'pa' };
    const b = { type: 'service_account', project_id: 'pb' };
    expect(keys({ key: JSON.stringify([a, b]), other: 'us-east5', channel_info: multi() }, 41)).toEqual({
      keys: [`us-east5|pa|${JSON.stringify(a)}`, `us-east5|pb|${JSON.stringify(b)}`],
    });
  });

  it('skips Vertex AI rows the product cannot hold: an API key, no project_id, no region', () => {
    const apiKey = { key: 'AQ.fixture', other: 'global', settings: '{"vertex_key_type":"api_key"}' };
    expect(keys(apiKey, 41)).toEqual({ skip: expect.stringContaining('region|project_id|ADC JSON') });
    expect(keys({ key: '{"type":"service_account"}', other: 'us-central1' }, 41)).toEqual({
      skip: expect.stringContaining('region|project_id|ADC JSON'),
    });
    expect(keys({ key: SERVICE_ACCOUNT, other: '' }, 41)).toEqual({
      skip: expect.stringContaining('region|project_id|ADC JSON'),
    });
  });
});

describe('New API types renumbered in its first versions', () => {
  it('skips 2, 4 and 5 in a table without test_model (last opened by a version older than v0.2.1)', () => {
    const { test_model: _, ...old } = row({ key: 'fk-fixture-old' });
    for (const type of [2, 4, 5]) {
      expect(NEWAPI.keys(old, typeOf(type))).toEqual({
        skip: expect.stringContaining(`New API type ${type} is ambiguous`),
      });
    }
    expect(NEWAPI.keys(old, typeOf(1))).toEqual({ keys: ['fk-fixture-old'] });
  });

  it('reads 2, 4 and 5 by the current numbers once the table has test_model, even when it is NULL', () => {
    expect(keys({ key: 'mj-fixture', test_model: null }, 2)).toEqual({ keys: ['mj-fixture'] });
  });
});

describe('New API settings', () => {
  it('carries nothing but the group for a row at the editor defaults, and never warns about setting or settings', () => {
    expect(settings({})).toEqual({ settings: { groups: ['default'] }, warnings: [] });
    expect(settings({ setting: '{}', settings: '', status_code_mapping: '{}', header_override: 'null' })).toEqual({
      settings: { groups: ['default'] },
      warnings: [],
    });
  });

  it('carries priority, weight, tag, test model, remark and the model mapping', () => {
    const result = settings({
      priority: '10',
      weight: '5',
      tag: 'prod',
      test_model: 'gpt-4o-mini',
      remark: 'team A',
      model_mapping: '{"gpt-4":"gpt-4o"}',
      group: 'vip,default',
    });
    expect(result).toEqual({
      settings: {
        priority: 10,
        weight: 5,
        tag: 'prod',
        testModel: 'gpt-4o-mini',
        groups: ['vip', 'default'],
        modelMapping: { 'gpt-4': 'gpt-4o' },
        extra: { remark: 'team A' },
      },
      warnings: [],
    });
  });

  it('reads the organization from open_ai_organization (GORM) or openai_organization', () => {
    expect(settings({ open_ai_organization: 'org-a' }).settings.organization).toBe('org-a');
    expect(settings({ openai_organization: 'org-b' }).settings.organization).toBe('org-b');
  });

  it('carries header override, parameter override and status-code mapping', () => {
    const result = settings({
      header_override: '{"Authorization":"Bearer fixture-token","X-Retry":3}',
      param_override: '{"temperature":0.2,"stream_options":{"include_usage":true}}',
      status_code_mapping: '{"429":"503"}',
    });
    expect(result.settings).toMatchObject({
      headerOverride: { Authorization: 'Bearer fixture-token', 'X-Retry': '3' },
      paramOverride: { temperature: 0.2, stream_options: { include_usage: true } },
      statusCodeMapping: { '429': '503' },
    });
    expect(result.warnings).toEqual([]);
  });

  it('warns, naming the field only, when a JSON setting cannot be read', () => {
    const result = settings({
      header_override: '{"X-Key": {"nested": "sk-secret"}}',
      param_override: 'sk-secret',
      setting: '[',
    });
    expect(result.warnings).toEqual(['legacy config not imported: param_override, header_override, setting']);
    expect(result.warnings.join(' ')).not.toMatch(/sk-secret/);
  });

  it('carries the proxy and system prompt of setting by name and its other non-default fields under extra', () => {
    const setting = JSON.stringify({
      force_format: true,
      thinking_to_content: false,
      proxy: 'socks5://proxy.internal:1080',
      pass_through_body_enabled: true,
      system_prompt: 'Be brief.',
      system_prompt_override: true,
    });
    expect(settings({ setting }).settings).toEqual({
      groups: ['default'],
      proxyUrl: 'socks5://proxy.internal:1080',
      systemPrompt: 'Be brief.',
      extra: { force_format: true, pass_through_body_enabled: true, system_prompt_override: true },
    });
  });

  it("carries settings' non-default fields but the key types and the model-list sync state", () => {
    const other = JSON.stringify({
      azure_responses_version: 'preview',
      vertex_key_type: 'json',
      allow_service_tier: true,
      upstream_model_update_last_check_time: 1750000000,
    });
    expect(settings({ settings: other }).settings.extra).toEqual({
      azure_responses_version: 'preview',
      allow_service_tier: true,
    });
  });

  it('reads other per type: API versions, the Cloudflare account, the Vertex AI region, plugin and bot id', () => {
    expect(settings({ other: '2025-01-01-preview' }, 3).settings.apiVersion).toBe('2025-01-01-preview');
    expect(settings({ other: 'v3.5' }, 18).settings.apiVersion).toBe('v3.5');
    expect(settings({ other: 'v1beta' }, 24).settings.apiVersion).toBe('v1beta');
    expect(settings({ other: 'acc-1' }, 39).settings.accountId).toBe('acc-1');
    expect(settings({ other: 'us-east5' }, 41).settings.region).toBe('us-east5');
    expect(settings({ other: '{"default":"us-east5","claude-opus-4":"europe-west1"}' }, 41).settings).toMatchObject({
      region: 'us-east5',
      extra: { model_regions: { 'claude-opus-4': 'europe-west1' } },
    });
    expect(settings({ other: 'web_search' }, 17).settings.extra).toEqual({ plugin: 'web_search' });
    expect(settings({ other: '7350000000001' }, 49).settings.extra).toEqual({ bot_id: '7350000000001' });
    expect(settings({ other: 'leftover' }, 43)).toEqual({ settings: { groups: ['default'] }, warnings: [] });
  });

  it("ignores One API's config and system_prompt left by an upgrade in place (New API reads neither)", () => {
    const result = settings({ config: '{"region":"us-east-1"}', system_prompt: 'old prompt' });
    expect(result).toEqual({ settings: { groups: ['default'] }, warnings: [] });
  });
});
