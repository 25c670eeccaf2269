import { parseAllowList } from './allow-list.ts';
import { configEnvironment } from './bundled-env.ts';
import { ConfigError } from './errors.ts';
import { BUILT_IN_MODEL_CATALOG, DEFAULT_MODEL_POLICY, MODEL_POLICIES, parseModelCatalog } from './model-catalog.ts';
import { parsePemBundle } from './pem.ts';
import * as z from './zod.ts';

/** Environment variable names, shared by the functions, the CDK stack and the local server. */
export const ENV = {
  datasetsTable: 'DATASETS_TABLE',
  channelsTable: 'CHANNELS_TABLE',
  /** The relay keys table (shared/tables.ts), read by the authorizer by keyed hash. */
  relayKeysTable: 'RELAY_KEYS_TABLE',
  /** The relay's usage records (shared/tables.ts, `usage`). */
  usageTable: 'USAGE_TABLE',
  /** The relay's shared channel health (shared/tables.ts, `relayState`). */
  relayStateTable: 'RELAY_STATE_TABLE',
  accessTokensSecretId: 'ACCESS_TOKENS_SECRET_ID',
  adminKeySecretId: 'ADMIN_KEY_SECRET_ID',
  secretsMaxAgeS: 'SECRETS_MAX_AGE_S',
  modelCatalog: 'MODEL_CATALOG',
  /** `lenient` (default): an unknown model name is stored as sent; `strict`: it is 400/501010. */
  modelPolicy: 'MODEL_POLICY',
  legacygwMaxRows: 'LEGACYGW_MAX_ROWS',
  legacygwDeadlineMs: 'LEGACYGW_DEADLINE_MS',
  legacygwAllowedHosts: 'LEGACYGW_ALLOWED_HOSTS',
  /** PEM certificates of a private CA that `tls=true` trusts too (compiled into the bundle by the stack). */
  legacygwCaBundle: 'LEGACYGW_CA_BUNDLE',
  /** The Secrets Manager secret holding the channel-id key (docs/channel-import.md, "Identity"). */
  channelIdKeySecretId: 'CHANNEL_ID_KEY_SECRET_ID',
  logLevel: 'LOG_LEVEL',
  /** The AWS SDK's DynamoDB endpoint override: the local engine (npm start, tests, sam local). */
  dynamodbEndpoint: 'AWS_ENDPOINT_URL_DYNAMODB',
  /** CloudWatch namespace of the business metrics (shared/metrics.ts); Powertools' own variable name. */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Attempts in all for one relayed request, across channels (docs/relay.md, "Failover"). */
  relayMaxAttempts: 'RELAY_MAX_ATTEMPTS',
  /** Hosts and networks a channel's loopback or private-use base URL may reach (a local Ollama); like LEGACYGW_ALLOWED_HOSTS. */
  relayAllowedHosts: 'RELAY_ALLOWED_HOSTS',
  /** Milliseconds an upstream may take to send its response head before the attempt fails over. */
  relayFirstByteTimeoutMs: 'RELAY_FIRST_BYTE_TIMEOUT_MS',
  /** Days a usage record is kept (the usage table's TTL). */
  usageRetentionDays: 'USAGE_RETENTION_DAYS',
  /** The knowledge base's collections and chunks (shared/tables.ts, `kbContent`). */
  kbContentTable: 'KB_CONTENT_TABLE',
  /** The search's vectors and full-text postings (shared/tables.ts, `kbVectors`, `kbTerms`). */
  kbVectorsTable: 'KB_VECTORS_TABLE',
  kbTermsTable: 'KB_TERMS_TABLE',
  /** `index`: DynamoDB's vector indexes (SearchVectors, deployed); `exact`: an exact search (local engines). */
  kbVectorSearch: 'KB_VECTOR_SEARCH',
  /** The dimensions the stack made a vector index for, comma-separated (`index` mode). */
  kbVectorDimensions: 'KB_VECTOR_DIMENSIONS',
  /** The training queue (SQS, FIFO); absent = the in-process queue of `npm start` (infra/local/kb-queue.ts). */
  kbTrainingQueueUrl: 'KB_TRAINING_QUEUE_URL',
  /** The relay group the knowledge base's embeddings and Q&A calls route in (default `default`). */
  kbRelayGroup: 'KB_RELAY_GROUP',
  /** Local run only: where `npm start` keeps source files (text kept as files); deployed: the source bucket. */
  kbSourceDir: 'KB_SOURCE_DIR',
  /** The source bucket (S3) of uploaded files and text kept as files. */
  kbSourceBucket: 'KB_SOURCE_BUCKET',
  /** Local run only: the built console page; in Lambda it sits beside the bundle. */
  consolePageFile: 'CONSOLE_PAGE_FILE',
} as const;

/** Log levels the functions accept (Powertools' names). */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;

/** Defaults of the optional settings, shared by the functions' environment and the stage config. */
export const DEFAULTS = Object.freeze({
  logLevel: 'INFO',
  legacygwMaxRows: 50_000,
  legacygwDeadlineMs: 25_000,
  secretsMaxAgeSeconds: 60,
  relayMaxAttempts: 3,
  relayFirstByteTimeoutMs: 60_000,
  usageRetentionDays: 90,
  /** The re-test schedule of auto-disabled channels (docs/relay.md, "Re-test"); 0 = off. */
  relayRetestIntervalMinutes: 10,
  /** The relay group of the knowledge base's model calls (docs/knowledge-base-api.md, "Training"). */
  kbRelayGroup: 'default',
} as const);

const logLevel = /* @__PURE__ */ z.moduleSchema(() =>
  z._default(
    z.pipe(
      z.string(),
      z.pipe(
        z.transform((s: string) => s.toUpperCase()),
        z.enum(LOG_LEVELS),
      ),
    ),
    DEFAULTS.logLevel,
  ),
);
const requiredName = /* @__PURE__ */ z.moduleSchema(() => z.string().check(z.trim(), z.minLength(1, 'is required')));
/**
 * An optional variable turned into its value by `parse`; what `parse` throws (a ConfigError naming the
 * problem) becomes the variable's issue, so the cold start fails naming the variable.
 */
const parsedString = <T>(parse: (value: string | undefined) => T) =>
  z.pipe(
    z.optional(z.string()),
    z.transform((value: string | undefined, payload) => {
      try {
        return parse(value);
      } catch (e) {
        payload.issues.push({ code: 'custom', message: (e as Error).message, input: value });
        return z.NEVER;
      }
    }),
  );
const positiveInt = (fallback: number) => z._default(z.pipe(z.coerce.number(), z.int().check(z.positive())), fallback);

/**
 * Parses the environment once (at cold start) and freezes it; the message names the bad variable.
 * By default that is process.env over the values the stack compiled into the bundle (bundled-env.ts).
 */
export function loadConfig<S extends z.core.$ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = configEnvironment(),
): Readonly<z.infer<S>> {
  const parsed = z.safeParse(schema, env);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'} ${i.message}`);
    throw new ConfigError(`Invalid environment: ${messages.join('; ')}`);
  }
  return Object.freeze(parsed.data);
}

/** The knowledge-base functions that show model items (list, detail): the table and the model catalogue. */
export const catalogEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.datasetsTable]: requiredName,
    [ENV.modelCatalog]: parsedString((v) =>
      v === undefined || v.trim() === '' ? BUILT_IN_MODEL_CATALOG : parseModelCatalog(v),
    ),
    [ENV.logLevel]: logLevel,
  }),
);
export type CatalogConfig = z.infer<typeof catalogEnvSchema>;

/** The functions that store model names (create, folder create, update): the catalogue and what an unknown name gets. */
export const createDatasetEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(catalogEnvSchema, {
    [ENV.modelPolicy]: z._default(
      z.pipe(
        z.string(),
        z.pipe(
          z.transform((s: string) => s.trim().toLowerCase() || DEFAULT_MODEL_POLICY),
          z.enum(MODEL_POLICIES, { error: `must be ${MODEL_POLICIES.join(' or ')}` }),
        ),
      ),
      DEFAULT_MODEL_POLICY,
    ),
  }),
);
export type CreateDatasetConfig = z.infer<typeof createDatasetEnvSchema>;

/** Environment of the knowledge-base functions that need no model catalogue (list, detail, delete, paths). */
export const datasetsEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.datasetsTable]: requiredName,
    [ENV.logLevel]: logLevel,
  }),
);

export const importEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.channelsTable]: requiredName,
    [ENV.legacygwMaxRows]: positiveInt(DEFAULTS.legacygwMaxRows),
    [ENV.legacygwDeadlineMs]: positiveInt(DEFAULTS.legacygwDeadlineMs),
    // Comma-separated host names, IP addresses or CIDRs; empty = any non-link-local target. Parsed here, once,
    // so a bad entry fails the cold start naming the variable and the import receives a ready matcher.
    [ENV.legacygwAllowedHosts]: parsedString((v) => parseAllowList((v ?? '').split(','))),
    [ENV.legacygwCaBundle]: parsedString((v) =>
      v === undefined || v.trim() === '' ? [] : parsePemBundle(v, ENV.legacygwCaBundle),
    ),
    // Where the channel-id key is: the secret when deployed, the local credentials file locally and under SAM. The
    // handler requires one of the two at cold start (shared/channel-id-key.ts).
    [ENV.channelIdKeySecretId]: z.optional(z.string()),
    // The token import's tables (docs/relay.md, "Keys"): relay keys, and relayState for the imported ratios. Both or neither.
    [ENV.relayKeysTable]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.relayStateTable]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.logLevel]: logLevel,
  }),
);
export type ImportConfig = z.infer<typeof importEnvSchema>;

/** The log level alone: every function's setting, and all the local server's authorizer needs. */
export const logLevelEnvSchema = /* @__PURE__ */ z.moduleSchema(() => z.object({ [ENV.logLevel]: logLevel }));

/**
 * The deployed authorizer: the credential secrets, and the relay keys table with the channel-id key secret its items
 * are hashed under (the local run wires its own sources, shared/local-credentials.ts). SECRETS_MAX_AGE_S is also how
 * long a found relay key is reused before the table is read again.
 */
export const authorizerEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, {
    [ENV.accessTokensSecretId]: requiredName,
    [ENV.adminKeySecretId]: requiredName,
    [ENV.secretsMaxAgeS]: positiveInt(DEFAULTS.secretsMaxAgeSeconds),
    [ENV.relayKeysTable]: requiredName,
    [ENV.channelIdKeySecretId]: requiredName,
  }),
);

/**
 * The relay's routing core (the `/v1` function and the channel test): the tables it reads and writes, its attempts,
 * the hosts a loopback base URL may reach, and the usage records' retention (docs/relay.md, "Configuration").
 */
export const relayEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, {
    [ENV.channelsTable]: requiredName,
    [ENV.relayStateTable]: requiredName,
    [ENV.usageTable]: requiredName,
    // Unset: the RetryTimes imported from the legacy gateway + 1, else DEFAULTS.relayMaxAttempts (docs/relay.md, "Routing options").
    [ENV.relayMaxAttempts]: z.optional(z.pipe(z.coerce.number(), z.int().check(z.positive()))),
    [ENV.relayFirstByteTimeoutMs]: positiveInt(DEFAULTS.relayFirstByteTimeoutMs),
    [ENV.relayAllowedHosts]: parsedString((v) => parseAllowList((v ?? '').split(','))),
    [ENV.usageRetentionDays]: positiveInt(DEFAULTS.usageRetentionDays),
    // The relay keys table, for quota admission and metering (the `/v1` function only; the channel test has none).
    [ENV.relayKeysTable]: z.optional(z.string().check(z.trim(), z.minLength(1))),
  }),
);
export type RelayConfig = z.infer<typeof relayEnvSchema>;

/** The channel review functions (list, detail, update, delete, batch delete): the table and the log level. */
export const channelsEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, { [ENV.channelsTable]: requiredName }),
);
export type ChannelsConfig = z.infer<typeof channelsEnvSchema>;

/** The usage API (GET /api/usage): the usage table, the channels table (names only) and the log level. */
export const usageEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, { [ENV.usageTable]: requiredName, [ENV.channelsTable]: requiredName }),
);
export type AuthorizerConfig = z.infer<typeof authorizerEnvSchema>;

/** The key API (`/api/keys`, `/api/key/{id}`): the relay keys table and the log level. */
export const relayKeysEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, { [ENV.relayKeysTable]: requiredName }),
);

/**
 * `POST /api/keys` also hashes the new key under the channel-id key: the secret when deployed, the local credentials
 * file locally (shared/channel-id-key.ts requires one of the two at cold start).
 */
export const createKeyEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(relayKeysEnvSchema, { [ENV.channelIdKeySecretId]: z.optional(z.string()) }),
);

export const consoleEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    [ENV.consolePageFile]: z.optional(z.string().check(z.trim(), z.minLength(1))),
  }),
);
export type ConsoleConfig = z.infer<typeof consoleEnvSchema>;

/** How embedding recall finds the nearest vectors (docs/knowledge-base-search.md, "Adapters"). */
export const VECTOR_SEARCH_MODES = ['index', 'exact'] as const;

/**
 * The optional environment of a function that writes the search's indexes (shared/kb/wiring.ts, chunkIndexWriterFor).
 * Built by the schemas that use it, so no other function's cold start builds it.
 */
const searchIndexEnv = () => {
  const optionalName = z.optional(z.string().check(z.trim(), z.minLength(1)));
  return {
    [ENV.kbVectorsTable]: optionalName,
    [ENV.kbTermsTable]: optionalName,
    [ENV.kbVectorSearch]: z._default(z.enum(VECTOR_SEARCH_MODES), 'exact'),
  };
};

/** The search (`POST /api/core/dataset/searchTest`): the datasets table, the content and index tables, the catalogue. */
export const kbSearchEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(catalogEnvSchema, {
    [ENV.kbContentTable]: requiredName,
    [ENV.kbVectorsTable]: requiredName,
    [ENV.kbTermsTable]: requiredName,
    [ENV.kbVectorSearch]: z._default(z.enum(VECTOR_SEARCH_MODES), 'exact'),
    [ENV.kbVectorDimensions]: parsedString((v) => {
      // `none`: the catalogue gave no length, so no vector index exists.
      if (v?.trim() === 'none') return new Set<number>();
      const parts = (v ?? '').split(',').filter((p) => p.trim() !== '');
      const dimensions = parts.map(Number);
      if (!dimensions.every((d) => Number.isInteger(d) && d > 0)) {
        throw new ConfigError('must list positive integers, comma-separated');
      }
      return parts.length === 0 ? undefined : new Set(dimensions);
    }),
  }),
);
export type KbSearchConfig = z.infer<typeof kbSearchEnvSchema>;

/**
 * The search's embedding of the question through the relay's routing core, as the training embeds (the relay's
 * environment and KB_RELAY_GROUP); read only where CHANNELS_TABLE is set: a stage without it answers embedding recall
 * with 424 and full-text recall still works.
 */
export const kbSearchRelayEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(relayEnvSchema, {
    [ENV.kbRelayGroup]: z._default(z.string().check(z.trim(), z.minLength(1)), DEFAULTS.kbRelayGroup),
  }),
);
/**
 * The knowledge base's content calls (collections, data, training status): the datasets table (the knowledge base
 * itself), the model catalogue (item limits), the content table, the training queue (absent locally) and the source
 * files.
 */
export const kbContentEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(catalogEnvSchema, {
    [ENV.kbContentTable]: requiredName,
    [ENV.kbTrainingQueueUrl]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.kbSourceBucket]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.kbSourceDir]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    ...searchIndexEnv(),
  }),
);
export type KbContentConfig = z.infer<typeof kbContentEnvSchema>;

/** The export of a collection's chunks (`collection/export`): the content table, and the datasets table's records. */
export const kbExportEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(logLevelEnvSchema, { [ENV.kbContentTable]: requiredName, [ENV.datasetsTable]: requiredName }),
);

/** The preview of a source's chunks (`file/getPreviewChunks`): the knowledge bases and the content table. */
export const kbPreviewEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(datasetsEnvSchema, { [ENV.kbContentTable]: requiredName }),
);

/** The training function: the content calls' environment, the relay's, and the group its model calls route in. */
export const kbTrainingEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(relayEnvSchema, {
    [ENV.datasetsTable]: requiredName,
    [ENV.kbContentTable]: requiredName,
    [ENV.modelCatalog]: catalogEnvSchema.shape[ENV.modelCatalog],
    [ENV.kbSourceBucket]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.kbSourceDir]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    [ENV.kbRelayGroup]: z._default(z.string().check(z.trim(), z.minLength(1)), DEFAULTS.kbRelayGroup),
    // A background delete sends itself again here (absent under `npm start`: its in-process queue).
    [ENV.kbTrainingQueueUrl]: z.optional(z.string().check(z.trim(), z.minLength(1))),
    ...searchIndexEnv(),
  }),
);
export type KbTrainingConfig = z.infer<typeof kbTrainingEnvSchema>;

/**
 * The knowledge-base delete: the datasets table, and the training queue its knowledge bases' content is purged through
 * (absent under `npm start`: its in-process queue).
 */
export const deleteDatasetEnvSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.extend(datasetsEnvSchema, {
    [ENV.kbTrainingQueueUrl]: z.optional(z.string().check(z.trim(), z.minLength(1))),
  }),
);
