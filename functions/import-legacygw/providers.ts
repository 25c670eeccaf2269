import type { SourceKind } from '#shared/schemas/import-report';

/** One row of a type table: the provider a channel type maps to, and that gateway's default base URL for it. */
export interface LegacyProvider {
  readonly provider: ProviderSlug;
  readonly defaultBaseUrl: string | null;
}

/** Which gateway's `channels` table an import reads; each has its own type table (named in the report's schema). */
export type { SourceKind };

/**
 * Every provider either type table can name, once: slug -> the provider or API the slug stands for. A slug
 * names the API a channel speaks, so one company can have several (`gemini` and `gemini-openai`, `baidu` and
 * `baidu-v2`), but one API never has two slugs: both tables take their slugs from here, and a test checks
 * that no two entries describe the same thing.
 */
export const PROVIDERS = {
  openai: 'OpenAI',
  api2d: 'API2D',
  azure: 'Azure OpenAI',
  closeai: 'CloseAI',
  'openai-sb': 'OpenAI-SB',
  'openai-max': 'OpenAI-Max',
  ohmygpt: 'OhMyGPT',
  custom: 'Custom OpenAI-compatible endpoint',
  ails: 'AILS',
  aiproxy: 'AI Proxy',
  palm: 'Google PaLM',
  api2gpt: 'API2GPT',
  aigc2d: 'AIGC2D',
  anthropic: 'Anthropic',
  baidu: 'Baidu ERNIE (v1 API)',
  zhipu: 'Zhipu (v3 API)',
  ali: 'Alibaba DashScope',
  xunfei: 'iFlytek Spark (v1 API)',
  ai360: '360 AI',
  openrouter: 'OpenRouter',
  'aiproxy-library': 'AI Proxy knowledge library',
  fastgpt: 'FastGPT',
  tencent: 'Tencent Hunyuan',
  gemini: 'Google Gemini',
  moonshot: 'Moonshot',
  baichuan: 'Baichuan',
  minimax: 'MiniMax',
  mistral: 'Mistral',
  groq: 'Groq',
  ollama: 'Ollama',
  lingyiwanwu: '01.AI (Lingyiwanwu)',
  stepfun: 'StepFun',
  aws: 'AWS Bedrock',
  coze: 'Coze',
  cohere: 'Cohere',
  deepseek: 'DeepSeek',
  cloudflare: 'Cloudflare Workers AI',
  deepl: 'DeepL',
  together: 'Together AI',
  doubao: 'Volcengine Ark (Doubao)',
  novita: 'Novita AI',
  'vertex-ai': 'Google Vertex AI',
  proxy: 'Pass-through proxy',
  siliconflow: 'SiliconFlow',
  xai: 'xAI',
  replicate: 'Replicate',
  'baidu-v2': 'Baidu Qianfan (v2 API)',
  'xunfei-v2': 'iFlytek Spark (v2 API)',
  'ali-bailian': 'Alibaba Bailian',
  'openai-compatible': 'OpenAI-compatible API with its own version path',
  'gemini-openai': "Google Gemini's OpenAI-compatible API",
  // Only New API has these.
  midjourney: 'Midjourney proxy',
  'midjourney-plus': 'Midjourney-Plus proxy',
  'zhipu-v4': 'Zhipu (v4 API)',
  perplexity: 'Perplexity',
  suno: 'Suno API proxy',
  dify: 'Dify',
  jina: 'Jina AI',
  mokaai: 'Moka AI',
  xinference: 'Xinference',
  kling: 'Kling',
  jimeng: 'Jimeng (Volcengine visual API)',
  submodel: 'Submodel',
  'doubao-video': 'Volcengine Ark video generation',
  sora: 'OpenAI Sora video API',
  codex: 'ChatGPT subscription (Codex)',
  // Only One Hub and Done Hub have these.
  'azure-speech': 'Azure AI Speech (text to speech)',
  'azure-v1': 'Azure OpenAI (v1 API)',
  'azure-databricks': 'Azure Databricks model serving',
  stability: 'Stability AI',
  'github-models': 'GitHub Models',
  recraft: 'Recraft AI',
  // Only Done Hub has these.
  'gemini-cli': 'Google Gemini CLI (Code Assist, OAuth credentials)',
  'claude-code': 'Claude subscription (Claude Code)',
  antigravity: 'Google Antigravity (OAuth credentials)',
  'vertex-ai-express': 'Google Vertex AI express mode (API key)',
  'bedrock-messages': "AWS Bedrock's Anthropic Messages endpoint (bedrock-mantle)",
} as const;

/** A provider slug as stored in a channel's `provider`. */
export type ProviderSlug = keyof typeof PROVIDERS;

type TableRow = readonly [type: number, provider: ProviderSlug, defaultBaseUrl: string | null];

function typeTable(rows: readonly TableRow[]): ReadonlyMap<number, LegacyProvider> {
  return new Map(rows.map(([type, provider, defaultBaseUrl]) => [type, Object.freeze({ provider, defaultBaseUrl })]));
}

/**
 * The One API source the legacy table was checked against: songquanpeng/one-api `relay/channeltype/define.go` (type
 * numbers) and `relay/channeltype/url.go` (`ChannelBaseURLs`) at this commit, the newest; numbers 1-24 were compared
 * with `common/constants.go` of v0.5.0 .. v0.6.0 too (no number ever changed meaning). Defaults are the newest ones:
 * One API applies the running version's default when `base_url` is empty, and older versions' defaults for 2, 4, 11,
 * 23 and 24 differed (docs/channel-import.md). Our own table, as data.
 */
export const ONEAPI_TYPES_COMMIT = '8df4a2670b98266bd287c698243fff327d9748cf';

// One API's types (docs/channel-import.md). Types missing here (0, 52, forks' numbers) are skipped, never guessed:
// the same number means another provider in a fork. One API's defaults for 46 and 51 end in `/`; the import removes
// one trailing slash from every base URL, so they are listed without it.
const LEGACY_TABLE: readonly TableRow[] = [
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

/**
 * The New API source this table was built from: QuantumNous/new-api `constant/channel.go` (type numbers, names,
 * `ChannelBaseURLs`) at this commit. Our own table, as data; docs/channel-import.md lists every number and why.
 */
export const NEWAPI_TYPES_COMMIT = '016c88c305ca1285c2faa92a2521dd6b06ec7bc0';

// New API's types. The defaults are New API's own, not the legacy gateway's (19, 49, 56 differ; 11 has none),
// except 2 (Midjourney) and 5 (Midjourney-Plus): New API's defaults there are leftovers of the legacy table
// (an API2D and an OpenAI-SB host) that do not serve those providers, so they get none.
const NEWAPI_TABLE: readonly TableRow[] = [
  [1, 'openai', 'https://api.openai.com'],
  [2, 'midjourney', null],
  [3, 'azure', null],
  [4, 'ollama', 'http://localhost:11434'],
  [5, 'midjourney-plus', null],
  [6, 'openai-max', 'https://api.openaimax.com'],
  [7, 'ohmygpt', 'https://api.ohmygpt.com'],
  [8, 'custom', null],
  [9, 'ails', 'https://api.caipacity.com'],
  [10, 'aiproxy', 'https://api.aiproxy.io'],
  [11, 'palm', null],
  [12, 'api2gpt', 'https://api.api2gpt.com'],
  [13, 'aigc2d', 'https://api.aigc2d.com'],
  [14, 'anthropic', 'https://api.anthropic.com'],
  [15, 'baidu', 'https://aip.baidubce.com'],
  [16, 'zhipu', 'https://open.bigmodel.cn'],
  [17, 'ali', 'https://dashscope.aliyuncs.com'],
  [18, 'xunfei', null],
  [19, 'ai360', 'https://api.360.cn'],
  [20, 'openrouter', 'https://openrouter.ai/api'],
  [21, 'aiproxy-library', 'https://api.aiproxy.io'],
  [22, 'fastgpt', 'https://fastgpt.run/api/openapi'],
  [23, 'tencent', 'https://hunyuan.tencentcloudapi.com'],
  [24, 'gemini', 'https://generativelanguage.googleapis.com'],
  [25, 'moonshot', 'https://api.moonshot.cn'],
  [26, 'zhipu-v4', 'https://open.bigmodel.cn'],
  [27, 'perplexity', 'https://api.perplexity.ai'],
  [31, 'lingyiwanwu', 'https://api.lingyiwanwu.com'],
  [33, 'aws', null],
  [34, 'cohere', 'https://api.cohere.ai'],
  [35, 'minimax', 'https://api.minimax.chat'],
  [36, 'suno', null],
  [37, 'dify', 'https://api.dify.ai'],
  [38, 'jina', 'https://api.jina.ai'],
  [39, 'cloudflare', 'https://api.cloudflare.com'],
  [40, 'siliconflow', 'https://api.siliconflow.cn'],
  [41, 'vertex-ai', null],
  [42, 'mistral', 'https://api.mistral.ai'],
  [43, 'deepseek', 'https://api.deepseek.com'],
  [44, 'mokaai', 'https://api.moka.ai'],
  // New API's "VolcEngine" is the Ark platform the legacy gateway calls Doubao (same host, same keys).
  [45, 'doubao', 'https://ark.cn-beijing.volces.com'],
  [46, 'baidu-v2', 'https://qianfan.baidubce.com'],
  [47, 'xinference', null],
  [48, 'xai', 'https://api.x.ai'],
  [49, 'coze', 'https://api.coze.cn'],
  [50, 'kling', 'https://api.klingai.com'],
  [51, 'jimeng', 'https://visual.volcengineapi.com'],
  [53, 'submodel', 'https://llm.submodel.ai'],
  [54, 'doubao-video', 'https://ark.cn-beijing.volces.com'],
  [55, 'sora', 'https://api.openai.com'],
  [56, 'replicate', 'https://api.replicate.com'],
  [57, 'codex', 'https://chatgpt.com'],
];

/** The newest type number in the commit read; everything up to it is either mapped or listed below. */
export const NEWAPI_NEWEST_TYPE = 101;

/**
 * New API type numbers up to NEWAPI_NEWEST_TYPE that are deliberately not mapped, and why. A row of one of
 * these types is skipped as `unknown legacy channel type N`, like any number neither table knows.
 */
export const NEWAPI_UNMAPPED: ReadonlyMap<number, string> = new Map<number, string>([
  [0, 'New API\u2019s "Unknown" type: no provider'],
  ...[28, 29, 30, 32].map((n): [number, string] => [n, 'no New API channel type has this number']),
  [52, 'Vidu in the commit read, CustomPass at 691a8046de7e64222a3cdbd1488682197054a4c7: ambiguous, never guessed'],
  [58, 'New API builds assign 58 to different providers: ambiguous, never guessed'],
  ...Array.from({ length: 41 }, (_, i): [number, string] => [
    59 + i,
    'no type defined in the commit read (kept free for New API\u2019s future types)',
  ]),
  [100, 'BlockRun: a downstream-only type outside New API\u2019s own range (100 and up)'],
  [101, 'BlockRunVideo: a downstream-only type outside New API\u2019s own range (100 and up)'],
]);

/** Legacy channel type -> provider and the legacy gateway's default base URL. */
export const LEGACY_PROVIDERS: ReadonlyMap<number, LegacyProvider> = typeTable(LEGACY_TABLE);

/** New API channel type -> provider and New API's default base URL. */
export const NEWAPI_PROVIDERS: ReadonlyMap<number, LegacyProvider> = typeTable(NEWAPI_TABLE);

/** The type table of each source kind. */
export const TYPE_TABLES: Readonly<Record<SourceKind, ReadonlyMap<number, LegacyProvider>>> = {
  legacygw: LEGACY_PROVIDERS,
  newapi: NEWAPI_PROVIDERS,
};

/** The table entry for a type, or undefined for a type the table does not list (or NULL). */
export function legacyProvider(type: number | null, kind: SourceKind = 'legacygw'): LegacyProvider | undefined {
  return type === null ? undefined : TYPE_TABLES[kind].get(type);
}
