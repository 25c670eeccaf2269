import { describe, expect, it } from 'vitest';
import type { RowValues } from '#functions/import-legacygw/families/family';
import { ONEAPI } from '#functions/import-legacygw/families/oneapi';
import { editorRow, familyCalls } from '#test/support/family-calls';

/** A One API row as the editor leaves it when the operator sets nothing but key and models (v0.6.9+ schema). */
function row(fields: Record<string, string | null> = {}): RowValues {
  return {
    ...editorRow('sk-fixture-oneapi'),
    priority: '0',
    config: '{"region":"","sk":"","ak":"","user_id":"","vertex_ai_project_id":"","vertex_ai_adc":""}',
    system_prompt: null,
    ...fields,
  };
}

const { keys, settings } = familyCalls(ONEAPI, row);

describe('One API keys', () => {
  it('splits a key column on line breaks, trimmed, empties and repeats dropped, in order', () => {
    expect(keys({ key: ' sk-a\r\nsk-b\n\n sk-a \nsk-c\n' })).toEqual({ keys: ['sk-a', 'sk-b', 'sk-c'] });
  });

  it('gives no key for a blank or NULL key column', () => {
    expect(keys({ key: ' \n ' })).toEqual({ keys: [] });
    expect(keys({ key: null })).toEqual({ keys: [] });
  });

  it('keeps composite keys of Baidu, Xunfei and Tencent as written (One API splits them on | itself)', () => {
    expect(keys({ key: 'api|secret' }, 15)).toEqual({ keys: ['api|secret'] });
    expect(keys({ key: 'app|secret|key' }, 18)).toEqual({ keys: ['app|secret|key'] });
    expect(keys({ key: '1250|sid|skey' }, 23)).toEqual({ keys: ['1250|sid|skey'] });
  });

  it('builds an AWS key from config (what the relay reads) even when the key column says otherwise', () => {
    const config = '{"region":"us-west-2","sk":"fixture-sk","ak":"AKIAFIXTURE","user_id":""}';
    expect(keys({ key: 'AKIAOLD|old-sk|us-east-1', config }, 33)).toEqual({
      keys: ['AKIAFIXTURE|fixture-sk|us-west-2'],
    });
  });

  it('takes an AWS key of the form ak|sk|region from the key column when config lacks a part', () => {
    expect(keys({ key: 'AKIAFIXTURE | sk | eu-west-1', config: '{"region":"eu-west-1"}' }, 33)).toEqual({
      keys: ['AKIAFIXTURE|sk|eu-west-1'],
    });
  });

  it('skips an AWS row whose credentials have no ak|sk|region form, naming the form', () => {
    expect(keys({ key: 'just-a-key', config: '' }, 33)).toEqual({ skip: expect.stringContaining('ak|sk|region') });
    expect(keys({ key: 'a||c' }, 33)).toEqual({ skip: expect.stringContaining('ak|sk|region') });
  });

  it('builds a Vertex AI key region|project_id|ADC from config, newlines in the ADC kept', () => {
    const adc = '{\n  "type": "service_account",\n  "project_id": "p1"\n}';
    const config = JSON.stringify({ region: 'us-central1', vertex_ai_project_id: 'p1', vertex_ai_adc: adc });
    expect(keys({ key: '', config }, 42)).toEqual({ keys: [`us-central1|p1|${adc}`] });
  });

  it('keeps a Vertex AI key column of the form region|project_id|ADC JSON as one key', () => {
    const key = 'europe-west4|p2|{"type":"service_account",\n"project_id":"p2"}';
    expect(keys({ key, config: null }, 42)).toEqual({ keys: [key] });
  });

  it('skips a Vertex AI row with neither config nor a key of the form, naming the form', () => {
    expect(keys({ key: '{"type":"service_account"}', config: null }, 42)).toEqual({
      skip: expect.stringContaining('region|project_id|ADC JSON'),
    });
  });
});

describe('One API settings', () => {
  it('carries nothing for a row at the editor defaults but its group, and warns about nothing', () => {
    expect(settings({})).toEqual({ settings: { groups: ['default'] }, warnings: [] });
    expect(settings({ group: '', config: null, model_mapping: '{}', priority: null })).toEqual({
      settings: {},
      warnings: [],
    });
  });

  it('carries groups, priority, model mapping (entries without a target dropped) and the system prompt', () => {
    const result = settings({
      group: ' default, vip ,,vip',
      priority: '-5',
      model_mapping: '{"gpt-4":"gpt-4o","gpt-3.5-turbo":""}',
      system_prompt: 'You are helpful.',
    });
    expect(result).toEqual({
      settings: {
        groups: ['default', 'vip'],
        priority: -5,
        modelMapping: { 'gpt-4': 'gpt-4o' },
        systemPrompt: 'You are helpful.',
      },
      warnings: [],
    });
  });

  it('warns when the model mapping is not a JSON object of names (One API then maps nothing)', () => {
    expect(settings({ model_mapping: 'gpt-4=>gpt-4o' }).warnings).toEqual(['model mapping not imported']);
  });

  it('reads the Azure API version from config, else from other (the distributor falls back to it)', () => {
    expect(settings({ other: '2024-03-01-preview' }, 3).settings.apiVersion).toBe('2024-03-01-preview');
    expect(settings({ other: '2023-05-15', config: '{"api_version":"2024-10-21"}' }, 3).settings.apiVersion).toBe(
      '2024-10-21',
    );
  });

  it('reads other per type: Xunfei and Gemini versions, the library id, the DashScope plugin; other types ignore it', () => {
    expect(settings({ other: 'v3.5' }, 18).settings.apiVersion).toBe('v3.5');
    expect(settings({ other: 'v1beta' }, 24).settings.apiVersion).toBe('v1beta');
    expect(settings({ other: 'lib-1' }, 21).settings.extra).toEqual({ library_id: 'lib-1' });
    expect(settings({ other: 'web_search' }, 17).settings.extra).toEqual({ plugin: 'web_search' });
    expect(settings({ other: 'leftover' }, 1)).toEqual({ settings: { groups: ['default'] }, warnings: [] });
  });

  it('carries config: the AWS region (ak and sk are in the key), Cloudflare account id, Coze user id', () => {
    const aws = '{"region":"us-east-1","ak":"AKIAFIXTURE","sk":"fixture-sk"}';
    expect(settings({ config: aws }, 33).settings).toEqual({ groups: ['default'], region: 'us-east-1' });
    expect(settings({ config: '{"user_id":"acc-1"}' }, 37).settings.accountId).toBe('acc-1');
    expect(settings({ config: '{"user_id":"user-1"}' }, 34).settings.userId).toBe('user-1');
  });

  it('carries Vertex AI region and project (the ADC is in the key)', () => {
    const config = '{"region":"us-central1","vertex_ai_project_id":"p1","vertex_ai_adc":"{}"}';
    expect(settings({ config }, 42).settings).toEqual({ groups: ['default'], region: 'us-central1', projectId: 'p1' });
  });

  it('keeps secret config parts a type does not build its key from under extra, by their config names', () => {
    expect(settings({ config: '{"sk":"fixture-sk","vertex_ai_adc":"{\\"k\\":1}"}' }, 1).settings.extra).toEqual({
      sk: 'fixture-sk',
      vertex_ai_adc: '{"k":1}',
    });
  });

  it('ignores config fields One API does not have, and warns about a config that is not a JSON object', () => {
    expect(settings({ config: '{"unknown":"x"}' }).warnings).toEqual([]);
    expect(settings({ config: 'not json' }).warnings).toEqual(['legacy config not imported: config']);
    expect(settings({ config: '[1]' }).warnings).toEqual(['legacy config not imported: config']);
  });

  it('never names a value in a warning', () => {
    const result = settings({ config: '{not json sk-secret', model_mapping: 'sk-secret-mapping' });
    expect(result.warnings.join(' ')).not.toMatch(/sk-secret/);
  });
});

describe('One API columns', () => {
  it('reads its settings columns under the settings limit', () => {
    expect(ONEAPI.columns.map((c) => c.name)).toEqual([
      'other',
      'model_mapping',
      'config',
      'system_prompt',
      'priority',
    ]);
    expect(ONEAPI.columns.filter((c) => c.kind !== 'integer').every((c) => c.maxBytes === 64 * 1024)).toBe(true);
  });
});
