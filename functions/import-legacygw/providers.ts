/** One row of SPEC Appendix A: the provider a legacy channel type maps to, and the legacy default base URL. */
export interface LegacyProvider {
  readonly provider: string;
  readonly defaultBaseUrl: string | null;
}

// SPEC Appendix A, verbatim. Types missing here (0, 52, forks' numbers) are skipped, never guessed:
// the same number means another provider in a fork of the legacy gateway.
const TABLE: ReadonlyArray<readonly [type: number, provider: string, defaultBaseUrl: string | null]> = [
  [1, 'openai', 'https://api.openai.com'],
  [2, 'api2d', 'https://oa.api2d.net'],
  [3, 'azure', null],
  [4, 'closeai', 'https://api.closeai-proxy.xyz'],
  [5, 'openai-sb', 'https://api.openai-sb.com'],
  [6, 'openai-max', 'https://api.openaimax.com'],
  [7, 'ohmygpt', 'https://api.ohmygpt.com'],
  [8, 'custom', null],
  [9, 'ails', 'https://api.caipacity.com'],
  [10, 'aiproxy', 'https://api.aiproxy.io'],
  [11, 'palm', 'https://generativelanguage.googleapis.com'],
  [12, 'api2gpt', 'https://api.api2gpt.com'],
  [13, 'aigc2d', 'https://api.aigc2d.com'],
  [14, 'anthropic', 'https://api.anthropic.com'],
  [15, 'baidu', 'https://aip.baidubce.com'],
  [16, 'zhipu', 'https://open.bigmodel.cn'],
  [17, 'ali', 'https://dashscope.aliyuncs.com'],
  [18, 'xunfei', null],
  [19, 'ai360', 'https://ai.360.cn'],
  [20, 'openrouter', 'https://openrouter.ai/api'],
  [21, 'aiproxy-library', 'https://api.aiproxy.io'],
  [22, 'fastgpt', 'https://fastgpt.run/api/openapi'],
  [23, 'tencent', 'https://hunyuan.tencentcloudapi.com'],
  [24, 'gemini', 'https://generativelanguage.googleapis.com'],
  [25, 'moonshot', 'https://api.moonshot.cn'],
  [26, 'baichuan', 'https://api.baichuan-ai.com'],
  [27, 'minimax', 'https://api.minimax.chat'],
  [28, 'mistral', 'https://api.mistral.ai'],
  [29, 'groq', 'https://api.groq.com/openai'],
  [30, 'ollama', 'http://localhost:11434'],
  [31, 'lingyiwanwu', 'https://api.lingyiwanwu.com'],
  [32, 'stepfun', 'https://api.stepfun.com'],
  [33, 'aws', null],
  [34, 'coze', 'https://api.coze.com'],
  [35, 'cohere', 'https://api.cohere.ai'],
  [36, 'deepseek', 'https://api.deepseek.com'],
  [37, 'cloudflare', 'https://api.cloudflare.com'],
  [38, 'deepl', 'https://api-free.deepl.com'],
  [39, 'together', 'https://api.together.xyz'],
  [40, 'doubao', 'https://ark.cn-beijing.volces.com'],
  [41, 'novita', 'https://api.novita.ai/v3/openai'],
  [42, 'vertex-ai', null],
  [43, 'proxy', null],
  [44, 'siliconflow', 'https://api.siliconflow.cn'],
  [45, 'xai', 'https://api.x.ai'],
  [46, 'replicate', 'https://api.replicate.com/v1/models'],
  [47, 'baidu-v2', 'https://qianfan.baidubce.com'],
  [48, 'xunfei-v2', 'https://spark-api-open.xf-yun.com'],
  [49, 'ali-bailian', 'https://dashscope.aliyuncs.com'],
  [50, 'openai-compatible', null],
  [51, 'gemini-openai', 'https://generativelanguage.googleapis.com/v1beta/openai'],
];

/** Legacy channel type -> provider and legacy default base URL (SPEC Appendix A). */
export const LEGACY_PROVIDERS: ReadonlyMap<number, LegacyProvider> = new Map(
  TABLE.map(([type, provider, defaultBaseUrl]) => [type, Object.freeze({ provider, defaultBaseUrl })]),
);

/** The Appendix A entry for a legacy type, or undefined for a type the table does not list (or NULL). */
export function legacyProvider(type: number | null): LegacyProvider | undefined {
  return type === null ? undefined : LEGACY_PROVIDERS.get(type);
}
