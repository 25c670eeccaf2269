import type { Family } from './family.ts';
import { ONEHUB_SCHEMA_EXTRA } from './fingerprints.ts';
import { type HubTableRow, hubFamily, hubTypeTable, matchOneHub, ONEHUB_COLUMNS } from './hub.ts';
import { ONEAPI_SCHEMA_COLUMNS } from './oneapi.ts';

/**
 * The One Hub source the type table, the defaults and the columns were read from: MartialBE/one-hub at this commit
 * (common/config/constants.go, providers/providers.go, each providers/<name>/base.go getConfig, model/channel.go).
 */
export const ONEHUB_COMMIT = '387f8bf16ed0d601fdede7ade378adb10aa1a35a';

/**
 * One Hub's types. Numbers from 25 up are not New API's (25 is Gemini, 31 Groq, 56 xAI). The defaults are One Hub's
 * own (its providers' BaseURL): Zhipu's and Coze's carry a path, Ollama's is Ollama's cloud. A provider whose URL One
 * Hub builds from the key or `other` (Bedrock, Vertex AI, Azure Speech, Xunfei) or that has none (Azure, Custom,
 * 360, Midjourney, Suno, Azure Databricks) gets none; Cloudflare's template
 * `https://api.cloudflare.com/client/v4/accounts/%s/ai/run/%s` is stored as its host, the account going to settings.
 */
export const ONEHUB_TABLE: readonly HubTableRow[] = [
  [1, 'openai', 'https://api.openai.com'],
  [3, 'azure', null],
  [8, 'custom', null],
  [11, 'palm', 'https://generativelanguage.googleapis.com'],
  [14, 'anthropic', 'https://api.anthropic.com'],
  [15, 'baidu', 'https://aip.baidubce.com'],
  // One Hub's Zhipu speaks the v4 API, its base URL including the version path.
  [16, 'zhipu-v4', 'https://open.bigmodel.cn/api/paas/v4'],
  [17, 'ali', 'https://dashscope.aliyuncs.com'],
  [18, 'xunfei', null],
  // No provider of its own: One Hub relays it as OpenAI-compatible to the row's base URL, and to nothing without one.
  [19, 'ai360', null],
  [20, 'openrouter', 'https://openrouter.ai/api'],
  // "Tencent Hunyuan (old)": the hyllm API, keys AppId|SecretId|SecretKey.
  [23, 'tencent', 'https://hunyuan.cloud.tencent.com'],
  [24, 'azure-speech', null],
  [25, 'gemini', 'https://generativelanguage.googleapis.com'],
  [26, 'baichuan', 'https://api.baichuan-ai.com'],
  [27, 'minimax', 'https://api.minimax.chat'],
  [28, 'deepseek', 'https://api.deepseek.com'],
  [29, 'moonshot', 'https://api.moonshot.cn'],
  [30, 'mistral', 'https://api.mistral.ai'],
  [31, 'groq', 'https://api.groq.com/openai'],
  [32, 'aws', null],
  [33, 'lingyiwanwu', 'https://api.lingyiwanwu.com'],
  [34, 'midjourney', null],
  [35, 'cloudflare', 'https://api.cloudflare.com'],
  [36, 'cohere', 'https://api.cohere.ai'],
  [37, 'stability', 'https://api.stability.ai/v2beta'],
  [38, 'coze', 'https://api.coze.com/open_api'],
  [39, 'ollama', 'https://ollama.com'],
  // Hunyuan's TC3 API, keys SecretId|SecretKey (listed so that its rows are skipped with the key format as reason).
  [40, 'tencent', 'https://hunyuan.tencentcloudapi.com'],
  [41, 'suno', null],
  [42, 'vertex-ai', null],
  [45, 'siliconflow', 'https://api.siliconflow.cn'],
  [47, 'jina', 'https://api.jina.ai'],
  [49, 'github-models', 'https://models.inference.ai.azure.com'],
  [51, 'recraft', 'https://external.api.recraft.ai'],
  [52, 'replicate', 'https://api.replicate.com'],
  [53, 'kling', 'https://api.klingai.com'],
  [54, 'azure-databricks', null],
  [55, 'azure-v1', null],
  [56, 'xai', 'https://api.x.ai'],
];

/** The newest type number in the commit read; every number up to it is mapped above or listed below. */
export const ONEHUB_NEWEST_TYPE = 56;

/** One Hub numbers up to ONEHUB_NEWEST_TYPE that are not mapped, and why (skipped as unknown types). */
export const ONEHUB_UNMAPPED: ReadonlyMap<number, string> = new Map<number, string>([
  [0, 'One Hub\u2019s "Unknown" type: no provider'],
  ...[2, 4, 5, 6, 7, 9, 10, 12, 13, 21, 22].map((n): [number, string] => [
    n,
    'a One API type One Hub commented out: no provider in its code (it would relay such a row as OpenAI-compatible only with a base URL)',
  ]),
  ...[43, 44, 46, 48].map((n): [number, string] => [
    n,
    'a model-owner label (LLAMA, Ideogram, Flux, Rerank), never a channel type the editor offers',
  ]),
  [50, 'no One Hub type has this number'],
]);

export const ONEHUB: Family = hubFamily({
  kind: 'onehub',
  name: 'One Hub',
  upstream: { repository: 'MartialBE/one-hub', commit: ONEHUB_COMMIT },
  match: matchOneHub,
  // Done Hub before its own columns: its table is One Hub's, and it numbers its own types above One Hub's.
  lookalike: { kind: 'donehub', applies: () => true },
  schemaColumns: new Set([...ONEAPI_SCHEMA_COLUMNS, ...ONEHUB_SCHEMA_EXTRA]),
  types: hubTypeTable(ONEHUB_TABLE),
  columns: ONEHUB_COLUMNS,
});
