import { ConfigError, datasetErrors } from './errors.ts';
import * as z from './zod.ts';

/** Model kinds a knowledge base refers to (docs/knowledge-base-api.md). */
export const MODEL_KINDS = ['vector', 'agent', 'vlm'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

/**
 * What a create or update does with a model name the catalogue does not know: `lenient` stores it as
 * sent (FastGPT does, and shows the default model's item for it), `strict` answers 400/501010.
 */
export const MODEL_POLICIES = ['lenient', 'strict'] as const;
export type ModelPolicy = (typeof MODEL_POLICIES)[number];
export const DEFAULT_MODEL_POLICY: ModelPolicy = 'lenient';

/** Longest model name a catalogue or a request may hold (a name is stored as sent). */
export const MAX_MODEL_NAME = 200;

/** FastGPT's embedding model item, as its dataset pages read it (no request URL or credential, ever). */
export interface EmbeddingModelItem {
  provider: string;
  model: string;
  name: string;
  type: 'embedding';
  charsPointsPrice: number;
  defaultToken: number;
  maxToken: number;
  weight: number;
}

/** FastGPT's language model item (the agent and vision models). */
export interface LlmModelItem {
  provider: string;
  model: string;
  name: string;
  type: 'llm';
  charsPointsPrice: number;
  maxContext: number;
  maxResponse: number;
  quoteMaxToken: number;
  functionCall: boolean;
  toolChoice: boolean;
  vision: boolean;
}

export type ModelItemOf<K extends ModelKind> = K extends 'vector' ? EmbeddingModelItem : LlmModelItem;

export interface ModelCatalog {
  readonly vector: {
    readonly models: readonly EmbeddingModelItem[];
    readonly default: string;
    /** Vector length of models the catalogue gives one for (`dimensions` of an entry); see vectorModelDimensions. */
    readonly dimensions?: Readonly<Record<string, number>>;
  };
  readonly agent: { readonly models: readonly LlmModelItem[]; readonly default: string };
  readonly vlm: { readonly models: readonly LlmModelItem[]; readonly default: string };
  /**
   * FastGPT's rerank models, by name (its `reRankModels` and default rerank model); absent: none configured, and
   * searchTest reranks only with the model a request names (docs/knowledge-base-search.md, "Rerank").
   */
  readonly rerank?: RerankModels;
}

export interface RerankModels {
  readonly models: readonly string[];
  readonly default: string;
}

type EmbeddingLimits = Pick<EmbeddingModelItem, 'defaultToken' | 'maxToken' | 'weight'>;
type LlmLimits = Pick<LlmModelItem, 'maxContext' | 'maxResponse' | 'quoteMaxToken' | 'functionCall' | 'toolChoice'> & {
  vision: boolean;
};
type Known = { provider: string } & (
  | { kind: 'embedding'; limits: EmbeddingLimits }
  | { kind: 'llm'; limits: LlmLimits }
);

const embedding = (provider: string): Known => ({
  provider,
  kind: 'embedding',
  limits: { defaultToken: 512, maxToken: 8000, weight: 100 },
});
const llm = (
  provider: string,
  maxContext: number,
  maxResponse: number,
  quoteMaxToken: number,
  vision: boolean,
): Known => ({
  provider,
  kind: 'llm',
  limits: { maxContext, maxResponse, quoteMaxToken, functionCall: false, toolChoice: true, vision },
});

/**
 * The limits of the models the built-in catalogue names, as FastGPT's model list gives them
 * (labring/fastgpt-plugin modules/model/provider/*: OpenAI 0c29376, Qwen 135d5ec, DeepSeek 1fcf2e4,
 * BAAI b683c63). `gpt-3.5-turbo-16k`, which FastGPT's documented create example names, has left that
 * list: it gets `gpt-3.5-turbo`'s figures. A catalogue entry given by name alone takes these.
 */
// Each call is marked too: esbuild drops an unread `Object.freeze` only when its arguments are free of side effects, so a
// bundle that never reads the catalogue (the relay, the channel and key functions) neither carries nor builds it.
const KNOWN_MODELS: Readonly<Record<string, Known>> = /* @__PURE__ */ Object.freeze({
  'text-embedding-3-small': /* @__PURE__ */ embedding('OpenAI'),
  'text-embedding-3-large': /* @__PURE__ */ embedding('OpenAI'),
  'text-embedding-ada-002': /* @__PURE__ */ embedding('OpenAI'),
  'bge-m3': /* @__PURE__ */ embedding('BAAI'),
  'gpt-4o-mini': /* @__PURE__ */ llm('OpenAI', 128_000, 16_000, 60_000, true),
  'gpt-4o': /* @__PURE__ */ llm('OpenAI', 128_000, 4_000, 60_000, true),
  'gpt-4.1': /* @__PURE__ */ llm('OpenAI', 1_000_000, 32_000, 1_000_000, true),
  'gpt-3.5-turbo-16k': /* @__PURE__ */ llm('OpenAI', 16_000, 4_000, 13_000, false),
  'qwen-plus': /* @__PURE__ */ llm('Qwen', 1_000_000, 32_000, 1_000_000, false),
  'deepseek-chat': /* @__PURE__ */ llm('DeepSeek', 64_000, 8_000, 60_000, false),
});

/**
 * Vector length of the known embedding models, as their providers return them by default (OpenAI's embeddings guide:
 * 1,536 for text-embedding-3-small and ada-002, 3,072 for text-embedding-3-large; BAAI's bge-m3 model card: 1,024).
 * The search's vector indexes are made per dimension from these (infra/kb-search.ts).
 */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = /* @__PURE__ */ Object.freeze({
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'bge-m3': 1024,
});

// A model nothing describes: FastGPT's provider "Other" and modest limits a page can work with.
const UNKNOWN_EMBEDDING: EmbeddingLimits = { defaultToken: 512, maxToken: 8000, weight: 100 };
const UNKNOWN_LLM: Omit<LlmLimits, 'vision'> = {
  maxContext: 16_000,
  maxResponse: 4_000,
  quoteMaxToken: 13_000,
  functionCall: false,
  toolChoice: false,
};

/** The full item of `model` as a model of `kind`: the entry's own fields over the known figures over the defaults. */
function itemFor<K extends ModelKind>(kind: K, entry: ModelEntryInput): ModelItemOf<K> {
  const fields = typeof entry === 'string' ? { model: entry } : entry;
  const known = KNOWN_MODELS[fields.model];
  const base = { provider: known?.provider ?? 'Other', model: fields.model, name: fields.model, charsPointsPrice: 0 };
  if (kind === 'vector') {
    const limits = known?.kind === 'embedding' ? known.limits : UNKNOWN_EMBEDDING;
    // `dimensions` is the catalogue's, never part of the item FastGPT's pages read.
    const { dimensions: _dimensions, ...item } = fields as Record<string, unknown>;
    return { ...base, type: 'embedding', ...limits, ...item } as ModelItemOf<K>;
  }
  // A vision model is one by definition of its kind; an agent model keeps what is known of it.
  const limits = known?.kind === 'llm' ? known.limits : { ...UNKNOWN_LLM, vision: kind === 'vlm' };
  return { ...base, type: 'llm', ...limits, ...(kind === 'vlm' ? { vision: true } : {}), ...fields } as ModelItemOf<K>;
}

const modelName = () =>
  z
    .string()
    .check(z.trim(), z.minLength(1), z.maxLength(MAX_MODEL_NAME, `must be at most ${MAX_MODEL_NAME} characters`));
const count = () => z.int().check(z.positive());
const common = () => ({
  model: modelName(),
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_MODEL_NAME))),
  provider: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  charsPointsPrice: z.optional(z.number().check(z.nonnegative())),
});
// Strict objects: an unknown key (a request URL, a key) fails the cold start and `cdk synth` instead of
// being dropped in silence; a model item never carries a request URL or credential.
const embeddingEntry = () =>
  z.union([
    modelName(),
    z.strictObject({
      ...common(),
      // An item as this catalogue writes it (the stack compiles the parsed catalogue into bundles) or FastGPT's.
      type: z.optional(z.literal('embedding')),
      defaultToken: z.optional(count()),
      maxToken: z.optional(count()),
      weight: z.optional(z.number().check(z.nonnegative())),
      /** The vector length the model returns (the search makes one vector index per distinct length). */
      dimensions: z.optional(count()),
    }),
  ]);
const llmEntry = () =>
  z.union([
    modelName(),
    z.strictObject({
      ...common(),
      type: z.optional(z.literal('llm')),
      maxContext: z.optional(count()),
      maxResponse: z.optional(count()),
      quoteMaxToken: z.optional(count()),
      functionCall: z.optional(z.boolean()),
      toolChoice: z.optional(z.boolean()),
      vision: z.optional(z.boolean()),
    }),
  ]);
type ModelEntryInput = string | ({ model: string } & Record<string, unknown>);

const kindSchema = <K extends ModelKind>(kind: K, entry: z.ZodMiniType<ModelEntryInput>) =>
  z.pipe(
    z
      .object({
        models: z.array(entry).check(z.minLength(1, 'needs at least one model')),
        default: modelName(),
        // The lengths a parsed catalogue carries beside its items (the stack compiles it into the bundles).
        dimensions: z.optional(z.record(z.string(), count())),
      })
      .check(
        z.refine((k) => k.models.some((m) => (typeof m === 'string' ? m : m.model) === k.default), {
          message: 'default is not in its models list',
          path: ['default'],
        }),
        z.refine(
          (k) => {
            const names = k.models.map((m) => (typeof m === 'string' ? m : m.model));
            return new Set(names).size === names.length;
          },
          { message: 'names a model twice', path: ['models'] },
        ),
      ),
    z.transform((k) => {
      const given = k.models.flatMap((m) =>
        typeof m !== 'string' && typeof m.dimensions === 'number' ? [[m.model, m.dimensions] as const] : [],
      );
      const dimensions = { ...k.dimensions, ...Object.fromEntries(given) };
      return {
        models: k.models.map((m) => itemFor(kind, m)),
        default: k.default,
        ...(Object.keys(dimensions).length > 0 ? { dimensions } : {}),
      };
    }),
  );

const rerankSchema = () =>
  z
    .strictObject({
      models: z.array(modelName()).check(
        z.minLength(1, 'needs at least one model'),
        z.refine((names) => new Set(names).size === names.length, 'names a model twice'),
      ),
      default: modelName(),
    })
    .check(
      z.refine((k) => k.models.includes(k.default), {
        message: 'default is not in its models list',
        path: ['default'],
      }),
    );

export const modelCatalogSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    vector: kindSchema('vector', embeddingEntry()),
    agent: kindSchema('agent', llmEntry()),
    vlm: kindSchema('vlm', llmEntry()),
    rerank: z.optional(rerankSchema()),
  }),
);

const builtIn = <K extends ModelKind>(kind: K, models: string[], defaultModel: string) => ({
  models: models.map((m) => itemFor(kind, m)),
  default: defaultModel,
});

/** The catalogue used when the operator configures none (and locally). */
export const BUILT_IN_MODEL_CATALOG: ModelCatalog = /* @__PURE__ */ Object.freeze({
  vector: /* @__PURE__ */ builtIn(
    'vector',
    ['text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002', 'bge-m3'],
    'text-embedding-3-small',
  ),
  agent: /* @__PURE__ */ builtIn(
    'agent',
    ['gpt-4o-mini', 'gpt-4o', 'qwen-plus', 'deepseek-chat', 'gpt-3.5-turbo-16k', 'gpt-4.1'],
    'gpt-4o-mini',
  ),
  vlm: /* @__PURE__ */ builtIn('vlm', ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'], 'gpt-4o-mini'),
});

/** Parses a MODEL_CATALOG value (JSON text or object); throws ConfigError naming the bad part. */
export function parseModelCatalog(value: unknown): ModelCatalog {
  let input = value;
  if (typeof value === 'string') {
    try {
      input = JSON.parse(value);
    } catch (cause) {
      throw new ConfigError('MODEL_CATALOG is not valid JSON', { cause });
    }
  }
  const parsed = z.safeParse(modelCatalogSchema, input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join('.') : '';
    throw new ConfigError(`MODEL_CATALOG is invalid at ${where || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data as ModelCatalog;
}

/** The names of the catalogue's `kind` models. */
export const modelNames = (catalog: ModelCatalog, kind: ModelKind): string[] =>
  catalog[kind].models.map((m) => m.model);

/**
 * The name a create or update stores for `field`: as sent when the catalogue knows it or the policy is
 * lenient; otherwise the API's 400/501010 naming the field and the models there are.
 */
export function acceptModel(
  catalog: ModelCatalog,
  policy: ModelPolicy,
  kind: ModelKind,
  field: string,
  name: string,
): string {
  if (policy === 'strict' && !modelNames(catalog, kind).includes(name)) {
    throw datasetErrors.invalidModel(
      `${field} must be one of the available ${kind} models: ${modelNames(catalog, kind).join(', ')}`,
    );
  }
  return name;
}

/**
 * The item a response shows for a stored model name: its catalogue entry, or the kind's default one
 * when the catalogue does not know the name (or none is stored), which is the model FastGPT uses then.
 */
export function modelItem<K extends ModelKind>(
  catalog: ModelCatalog,
  kind: K,
  name: string | undefined,
): ModelItemOf<K> {
  const { models, default: fallback } = catalog[kind] as { models: readonly ModelItemOf<K>[]; default: string };
  return (models.find((m) => m.model === name) ?? models.find((m) => m.model === fallback)) as ModelItemOf<K>;
}

/** Each vector model with its vector length: the catalogue's `dimensions`, else the known figure, else undefined. */
export function vectorModelDimensions(catalog: ModelCatalog): { model: string; dimensions: number | undefined }[] {
  return catalog.vector.models.map(({ model }) => ({
    model,
    dimensions: catalog.vector.dimensions?.[model] ?? KNOWN_DIMENSIONS[model],
  }));
}

/**
 * The rerank model a search uses, as FastGPT's getRerankModel picks it: the one asked for when the catalogue lists it,
 * else the catalogue's default; with no rerank models in the catalogue, the one asked for as it is (the relay's channels
 * say whether anything serves it), else none.
 */
export function rerankModelFor(rerank: RerankModels | undefined, requested: string | undefined): string | undefined {
  if (rerank === undefined) return requested;
  return requested !== undefined && rerank.models.includes(requested) ? requested : rerank.default;
}
