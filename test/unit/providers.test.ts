import { describe, expect, it } from 'vitest';
import { DONEHUB } from '#functions/import-legacygw/families/donehub';
import { ONEHUB } from '#functions/import-legacygw/families/onehub';
import { createRowMapper } from '#functions/import-legacygw/mapping';
import {
  LEGACY_PROVIDERS,
  NEWAPI_NEWEST_TYPE,
  NEWAPI_PROVIDERS,
  NEWAPI_UNMAPPED,
  PROVIDERS,
  type ProviderSlug,
} from '#functions/import-legacygw/providers';

// New API's channel types as its constant/channel.go names them at the commit read (NEWAPI_TYPES_COMMIT), and the
// slug each one must have. Where the provider is one the legacy gateway knows, the slug is the legacy table's.
const NEWAPI_MAPPED: ReadonlyArray<readonly [type: number, newApiName: string, slug: ProviderSlug]> = [
  [1, 'OpenAI', 'openai'],
  [2, 'Midjourney', 'midjourney'],
  [3, 'Azure', 'azure'],
  [4, 'Ollama', 'ollama'],
  [5, 'MidjourneyPlus', 'midjourney-plus'],
  [6, 'OpenAIMax', 'openai-max'],
  [7, 'OhMyGPT', 'ohmygpt'],
  [8, 'Custom', 'custom'],
  [9, 'AILS', 'ails'],
  [10, 'AIProxy', 'aiproxy'],
  [11, 'PaLM', 'palm'],
  [12, 'API2GPT', 'api2gpt'],
  [13, 'AIGC2D', 'aigc2d'],
  [14, 'Anthropic', 'anthropic'],
  [15, 'Baidu', 'baidu'],
  [16, 'Zhipu', 'zhipu'],
  [17, 'Ali', 'ali'],
  [18, 'Xunfei', 'xunfei'],
  [19, '360', 'ai360'],
  [20, 'OpenRouter', 'openrouter'],
  [21, 'AIProxyLibrary', 'aiproxy-library'],
  [22, 'FastGPT', 'fastgpt'],
  [23, 'Tencent', 'tencent'],
  [24, 'Gemini', 'gemini'],
  [25, 'Moonshot', 'moonshot'],
  [26, 'ZhipuV4', 'zhipu-v4'],
  [27, 'Perplexity', 'perplexity'],
  [31, 'LingYiWanWu', 'lingyiwanwu'],
  [33, 'AWS', 'aws'],
  [34, 'Cohere', 'cohere'],
  [35, 'MiniMax', 'minimax'],
  [36, 'SunoAPI', 'suno'],
  [37, 'Dify', 'dify'],
  [38, 'Jina', 'jina'],
  [39, 'Cloudflare', 'cloudflare'],
  [40, 'SiliconFlow', 'siliconflow'],
  [41, 'VertexAI', 'vertex-ai'],
  [42, 'Mistral', 'mistral'],
  [43, 'DeepSeek', 'deepseek'],
  [44, 'MokaAI', 'mokaai'],
  [45, 'VolcEngine', 'doubao'],
  [46, 'BaiduV2', 'baidu-v2'],
  [47, 'Xinference', 'xinference'],
  [48, 'xAI', 'xai'],
  [49, 'Coze', 'coze'],
  [50, 'Kling', 'kling'],
  [51, 'Jimeng', 'jimeng'],
  [53, 'Submodel', 'submodel'],
  [54, 'DoubaoVideo', 'doubao-video'],
  [55, 'Sora', 'sora'],
  [56, 'Replicate', 'replicate'],
  [57, 'Codex', 'codex'],
];

// The numbers up to the newest that are skipped as `unknown legacy channel type N`, and why.
const NEWAPI_SKIPPED: ReadonlyArray<readonly [types: readonly number[], why: RegExp]> = [
  [[0], /Unknown.*no provider/],
  [[28, 29, 30, 32], /no New API channel type has this number/],
  [[52], /Vidu .* CustomPass/],
  [[58], /different providers/],
  [Array.from({ length: 41 }, (_, i) => 59 + i), /no type defined/],
  [[100, 101], /downstream-only/],
];

const slugsOf = (table: ReadonlyMap<number, { provider: string }>) => [...table.values()].map((p) => p.provider);

describe('one provider list for both type tables', () => {
  it('takes every slug of every table from the provider list, and uses every entry of it', () => {
    const used = new Set([
      ...slugsOf(LEGACY_PROVIDERS),
      ...slugsOf(NEWAPI_PROVIDERS),
      ...slugsOf(ONEHUB.types),
      ...slugsOf(DONEHUB.types),
    ]);

    expect([...used].filter((slug) => !(slug in PROVIDERS))).toEqual([]);
    expect(Object.keys(PROVIDERS).filter((slug) => !used.has(slug))).toEqual([]);
  });

  it('never gives one provider two slugs: each entry describes a different provider', () => {
    const descriptions = Object.values(PROVIDERS).map((d) => d.toLowerCase());

    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('gives New API the legacy slug wherever the provider is the same', () => {
    // biome-ignore format: pairs read better in rows
    const sameProvider: ReadonlyArray<readonly [newApiType: number, legacyType: number]> = [
      [1, 1], [3, 3], [4, 30], [6, 6], [7, 7], [8, 8], [9, 9], [10, 10], [11, 11], [12, 12], [13, 13], [14, 14],
      [15, 15], [16, 16], [17, 17], [18, 18], [19, 19], [20, 20], [21, 21], [22, 22], [23, 23], [24, 24], [25, 25],
      [31, 31], [33, 33], [34, 35], [35, 27], [39, 37], [40, 44], [41, 42], [42, 28], [43, 36], [45, 40], [46, 47],
      [48, 45], [49, 34], [56, 46],
    ];

    for (const [newApiType, legacyType] of sameProvider) {
      expect([newApiType, NEWAPI_PROVIDERS.get(newApiType)?.provider]).toEqual([
        newApiType,
        LEGACY_PROVIDERS.get(legacyType)?.provider,
      ]);
    }
  });
});

describe('New API type table', () => {
  it.each(NEWAPI_MAPPED)('maps New API type %d (%s) to %s', (type, _name, slug) => {
    expect(NEWAPI_PROVIDERS.get(type)?.provider).toBe(slug);
  });

  it('maps exactly the listed types and skips, with a reason, every other number up to the newest', () => {
    const skipped = NEWAPI_SKIPPED.flatMap(([types]) => types);
    const all = Array.from({ length: NEWAPI_NEWEST_TYPE + 1 }, (_, i) => i);

    expect([...NEWAPI_PROVIDERS.keys()]).toEqual(NEWAPI_MAPPED.map(([type]) => type));
    expect([...NEWAPI_UNMAPPED.keys()].sort((a, b) => a - b)).toEqual(skipped.sort((a, b) => a - b));
    expect([...NEWAPI_PROVIDERS.keys(), ...skipped].sort((a, b) => a - b)).toEqual(all);
    for (const [types, why] of NEWAPI_SKIPPED) {
      for (const type of types) expect([type, NEWAPI_UNMAPPED.get(type)]).toEqual([type, expect.stringMatching(why)]);
    }
  });

  it.each([...NEWAPI_UNMAPPED.keys()])('skips a row of New API type %d as an unknown type', (type) => {
    const outcome = createRowMapper('newapi').map({ id: 9, type, key: 'k', status: 1, base_url: '', models: 'm' });

    expect(outcome).toEqual({
      legacyId: 9,
      outcome: 'skipped',
      reason: `unknown legacy channel type ${type}`,
      warnings: [],
    });
  });

  it.each([
    [43, 'deepseek', 'https://api.deepseek.com'],
    [48, 'xai', 'https://api.x.ai'],
    [33, 'aws', null],
    [41, 'vertex-ai', null],
    [2, 'midjourney', null],
    [5, 'midjourney-plus', null],
    [11, 'palm', null],
    [19, 'ai360', 'https://api.360.cn'],
    [49, 'coze', 'https://api.coze.cn'],
  ])('maps type %d to %s with New API default %s', (type, provider, defaultBaseUrl) => {
    expect(NEWAPI_PROVIDERS.get(type)).toEqual({ provider, defaultBaseUrl });
  });

  it('has no default base URL with a trailing slash', () => {
    for (const { defaultBaseUrl } of NEWAPI_PROVIDERS.values()) expect(defaultBaseUrl ?? '').not.toMatch(/\/$/);
  });
});
