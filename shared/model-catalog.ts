import { ConfigError, datasetErrors } from './errors.ts';
import * as z from './zod.ts';

/** Model kinds a knowledge base refers to (docs/knowledge-base-api.md). */
export const MODEL_KINDS = ['vector', 'agent', 'vlm'] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];

const modelName = () => z.string().check(z.trim(), z.minLength(1));
const kindSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z
    .object({
      models: z.array(modelName()).check(z.minLength(1, 'needs at least one model')),
      default: modelName(),
    })
    .check(
      z.refine((k) => k.models.includes(k.default), {
        message: 'default is not in its models list',
        path: ['default'],
      }),
    ),
);

export const modelCatalogSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ vector: kindSchema, agent: kindSchema, vlm: kindSchema }),
);
export type ModelCatalog = z.infer<typeof modelCatalogSchema>;

/** The catalogue used when the operator configures none (and locally). */
export const BUILT_IN_MODEL_CATALOG: ModelCatalog = /* @__PURE__ */ Object.freeze({
  vector: {
    models: ['text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002', 'bge-m3'],
    default: 'text-embedding-3-small',
  },
  agent: { models: ['gpt-4o-mini', 'gpt-4o', 'qwen-plus', 'deepseek-chat'], default: 'gpt-4o-mini' },
  vlm: { models: ['gpt-4o-mini', 'gpt-4o'], default: 'gpt-4o-mini' },
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
  return parsed.data;
}

/** Returns `name` if it is one of the catalogue's `kind` models; otherwise the API's 400/501010 naming `field`. */
export function requireModel(catalog: ModelCatalog, kind: ModelKind, field: string, name: string): string {
  const { models } = catalog[kind];
  if (!models.includes(name)) {
    throw datasetErrors.invalidModel(`${field} must be one of the available ${kind} models: ${models.join(', ')}`);
  }
  return name;
}
