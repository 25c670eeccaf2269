import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import * as z from 'zod';
import { DEFAULTS, LOG_LEVELS } from '#shared/config';
import { ConfigError } from '#shared/errors';
import { metricsNamespace } from '#shared/metrics';
import {
  BUILT_IN_MODEL_CATALOG,
  DEFAULT_MODEL_POLICY,
  MODEL_POLICIES,
  type ModelCatalog,
  type ModelPolicy,
  parseModelCatalog,
} from '#shared/model-catalog';
import { parsePemBundle } from '#shared/pem';
import type { ApiName } from '#shared/routes';

/** Context keys the app reads (`-c stage=prod -c config=deploy/prod.json`). */
export const CONTEXT_KEYS = { stage: 'stage', config: 'config' } as const;

/**
 * API Gateway's cache of authorizer decisions. With the secrets cache (60 s) it bounds how long a
 * revoked token keeps working: 60 + 60 = 120 s, or 60 s after `npm run tokens -- revoke` (which flushes it).
 */
export const DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS = 60;

/**
 * Upper bound of LEGACYGW_DEADLINE_MS: the import function's timeout is 28 s (below API Gateway's
 * 29 s integration limit), and the import needs about a second after its deadline to answer 504.
 */
export const MAX_IMPORT_DEADLINE_MS = 27_000;

const retentionDays = z
  .number()
  .int()
  .refine((days) => (Object.values(RetentionDays) as unknown[]).includes(days), {
    message: 'must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, ...)',
  });

const awsId = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}-[0-9a-f]{8,17}$`), `must look like ${prefix}-0123abcd`);

/** When one alarm goes to ALARM: `datapointsToAlarm` of the last `evaluationPeriods` periods reach `threshold`. */
export interface AlarmSpec {
  /** Count, or milliseconds for latency; the alarm fires at or above it. */
  readonly threshold: number;
  readonly periodMinutes: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
}

/** The alarms of the stack (infra/constructs/monitoring.ts); docs/operations.md says what each means. */
export const COUNT_ALARMS = [
  'apiServerErrors',
  'functionErrors',
  'functionThrottles',
  'authorizerErrors',
  'tableThrottles',
  'tableSystemErrors',
  'relayChannelErrorRate',
] as const;
export type CountAlarm = (typeof COUNT_ALARMS)[number];

export type AlarmSettings = Readonly<Record<CountAlarm, AlarmSpec>> & {
  /** p99 latency per API, in ms: the APIs do very different work (a put vs. an import of thousands of rows). */
  readonly apiLatencyP99: Readonly<Record<ApiName, AlarmSpec>>;
};

/**
 * Defaults by stage kind. A stage that keeps its data (`retainData`, the default) is one people rely on:
 * it pages on the first sign of trouble, since the handlers answer every error they expect (a Lambda
 * error is a crash, timeout or bad configuration) and a throttle or a DynamoDB system error is never
 * normal. A disposable stage tolerates a few before it notifies. The proxy API's p99 alarm fires when
 * imports reach their deadline (LEGACYGW_DEADLINE_MS).
 */
export function defaultAlarms(keepsData: boolean, importDeadlineMs: number): AlarmSettings {
  const count = (kept: number, disposable: number): AlarmSpec => ({
    threshold: keepsData ? kept : disposable,
    periodMinutes: 5,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
  });
  return {
    apiServerErrors: count(5, 10),
    apiLatencyP99: {
      // A create is one or two DynamoDB calls; 3 s for 15 minutes is far beyond cold starts.
      dataset: {
        threshold: keepsData ? 3_000 : 5_000,
        periodMinutes: 5,
        evaluationPeriods: 3,
        datapointsToAlarm: 3,
      },
      proxy: { threshold: importDeadlineMs, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 2 },
      // A relayed request lasts as long as the upstream's completion (a long streamed answer takes minutes): the
      // alarm is for a relay that hangs, past the upstreams' own first-byte timeout (docs/relay.md).
      relay: { threshold: 120_000, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 3 },
    },
    functionErrors: count(1, 5),
    functionThrottles: count(1, 5),
    // The authorizer failing closed locks every caller out, in any stage.
    authorizerErrors: count(1, 1),
    tableThrottles: count(1, 5),
    tableSystemErrors: count(1, 5),
    // The worst channel's share of failed attempts (0-1) over 15 minutes: one bad answer is noise, half of them for a
    // quarter of an hour is a channel to look at (docs/relay.md, "Metrics").
    relayChannelErrorRate: { threshold: 0.5, periodMinutes: 5, evaluationPeriods: 3, datapointsToAlarm: 3 },
  };
}

const alarmOverride = z
  .object({
    threshold: z.number().positive(),
    periodMinutes: z.number().int().min(1).max(1440),
    evaluationPeriods: z.number().int().min(1).max(100),
    datapointsToAlarm: z.number().int().min(1).max(100),
  })
  .partial()
  .strict()
  .optional();

const monitoringSchema = z
  .object({
    /** CloudWatch namespace of the business metrics; default KbChannelGateway/<stage>. */
    metricsNamespace: z.optional(metricsNamespace),
    /** Subscribed to the alarm topic (the address must confirm the subscription once). */
    alarmEmail: z.email().optional(),
    alarms: z
      .object({
        apiServerErrors: alarmOverride,
        apiLatencyP99: z
          .object({ dataset: alarmOverride, proxy: alarmOverride, relay: alarmOverride })
          .strict()
          .optional(),
        functionErrors: alarmOverride,
        functionThrottles: alarmOverride,
        authorizerErrors: alarmOverride,
        tableThrottles: alarmOverride,
        tableSystemErrors: alarmOverride,
        relayChannelErrorRate: alarmOverride,
      } satisfies Record<CountAlarm | 'apiLatencyP99', z.ZodType>)
      .strict()
      .optional(),
  })
  .strict()
  .default({});

/** Method throttle of the import route, apart from the stage's: an import holds a database connection for seconds. */
export const DEFAULT_IMPORT_THROTTLING = { rateLimit: 2, burstLimit: 5 } as const;

const throttlingSchema = z
  .object({
    rateLimit: z.number().positive().max(10_000),
    burstLimit: z.number().int().positive().max(5_000),
  })
  .strict();

const fileSchema = z
  .object({
    // JSON has no comments: a note for the reader of the file (docs/stage-config.example.json has one).
    $comment: z.string().optional(),
    // Data outlives the stack unless the stage says it is disposable; never decided by the stage's name.
    retainData: z.boolean().default(true),
    // Off by default: a first deploy that rolls back could not delete a protected table (docs/deploy.md).
    tableDeletionProtection: z.boolean().default(false),
    logRetentionDays: retentionDays.optional(),
    logLevel: z.enum(LOG_LEVELS).default(DEFAULTS.logLevel),
    throttling: throttlingSchema.default({ rateLimit: 50, burstLimit: 100 }),
    // Validated with the same parser the function runs at cold start, so a bad catalogue fails `cdk synth`.
    modelCatalog: z.unknown().optional(),
    // What create and update do with a model name the catalogue does not know (MODEL_POLICY).
    modelPolicy: z.enum(MODEL_POLICIES).default(DEFAULT_MODEL_POLICY),
    authorizerCacheTtlSeconds: z.number().int().min(0).max(3600).default(DEFAULT_AUTHORIZER_CACHE_TTL_SECONDS),
    secretsMaxAgeSeconds: z.number().int().positive().max(3600).default(DEFAULTS.secretsMaxAgeSeconds),
    legacygw: z
      .object({
        maxRows: z.number().int().positive().default(DEFAULTS.legacygwMaxRows),
        deadlineMs: z.number().int().positive().max(MAX_IMPORT_DEADLINE_MS).default(DEFAULTS.legacygwDeadlineMs),
        allowedHosts: z.array(z.string().trim().min(1)).default([]),
        throttling: throttlingSchema.default(DEFAULT_IMPORT_THROTTLING),
        // PEM file of a private CA that tls=true trusts besides Node's and Amazon RDS's (relative to the config file).
        caBundleFile: z.string().trim().min(1).optional(),
      })
      .strict()
      .default({
        maxRows: DEFAULTS.legacygwMaxRows,
        deadlineMs: DEFAULTS.legacygwDeadlineMs,
        allowedHosts: [],
        throttling: DEFAULT_IMPORT_THROTTLING,
      }),
    // The relay (docs/relay.md, "Configuration"): attempts across channels, the hosts a loopback or private base URL
    // may reach, an upstream's time to its response head, how long usage records are kept.
    relay: z
      .object({
        // Unset: the legacy gateway's imported RetryTimes + 1, else 3 (docs/relay.md, "Routing options").
        maxAttempts: z.number().int().min(1).max(10).optional(),
        allowedHosts: z.array(z.string().trim().min(1)).default([]),
        firstByteTimeoutMs: z.number().int().min(1000).max(600_000).default(DEFAULTS.relayFirstByteTimeoutMs),
        usageRetentionDays: z.number().int().min(1).max(3650).default(DEFAULTS.usageRetentionDays),
        // How often auto-disabled channels are re-tested (an EventBridge schedule); 0 = no schedule.
        retestIntervalMinutes: z.number().int().min(0).max(1440).default(DEFAULTS.relayRetestIntervalMinutes),
        // Bedrock channels that name no key sign with the relay's own role, granted these models in these regions
        // only (infra/relay-bedrock.ts; docs/relay.md, "Bedrock on the function's role"). Absent = no Bedrock grant.
        bedrock: z
          .object({
            regions: z.array(z.string().regex(/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/)).min(1),
            models: z.array(z.string().regex(/^[A-Za-z0-9][\w.:-]{0,199}$/)).min(1),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({
        allowedHosts: [],
        firstByteTimeoutMs: DEFAULTS.relayFirstByteTimeoutMs,
        usageRetentionDays: DEFAULTS.usageRetentionDays,
        retestIntervalMinutes: DEFAULTS.relayRetestIntervalMinutes,
      }),
    vpc: z
      .object({
        vpcId: awsId('vpc'),
        subnetIds: z.array(awsId('subnet')).min(1),
        securityGroupId: awsId('sg'),
      })
      .strict()
      .optional(),
    // Set false when the account's API Gateway CloudWatch role is managed elsewhere.
    manageApiGatewayAccount: z.boolean().default(true),
    monitoring: monitoringSchema,
  })
  .strict()
  .superRefine((c, ctx) => {
    // `cdk destroy` of a disposable stage deletes its tables: DynamoDB would refuse a protected one.
    if (c.tableDeletionProtection && !c.retainData) {
      ctx.addIssue({
        code: 'custom',
        path: ['tableDeletionProtection'],
        message: 'must not be true with "retainData": false (the stack deletes the tables of a disposable stage)',
      });
    }
    // Inside a VPC an empty allow-list would let the admin key probe every host and port of the VPC.
    if (c.vpc && c.legacygw.allowedHosts.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['legacygw', 'allowedHosts'],
        message:
          'must list the hosts or CIDRs the import may reach when vpc is set (closed by default inside a VPC), e.g. ["10.20.0.0/16"]',
      });
    }
  });

/** The content of a `-c config=<file.json>` file, as written (every key optional). */
export type StageConfigFile = z.input<typeof fileSchema>;

/** Everything the stack needs from the stage, validated and with defaults applied. */
export interface StageConfig {
  readonly stage: string;
  /** Tables, secrets, keys and log groups survive `cdk destroy` and any update that would remove them. */
  readonly retainData: boolean;
  /**
   * RETAIN_ON_UPDATE_OR_DELETE (CloudFormation's RetainExceptOnCreate) when retainData, the default: kept
   * by every stack operation except a rollback of the one that created them, so a failed first deploy
   * leaves nothing behind. DESTROY only for a stage configured as disposable.
   */
  readonly removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection on both tables (opt-in once the stage's first deploy succeeded). */
  readonly tableDeletionProtection: boolean;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  readonly modelCatalog: ModelCatalog;
  /** `lenient`: an unknown model name is stored as sent (FastGPT's way); `strict`: 400/501010. */
  readonly modelPolicy: ModelPolicy;
  readonly authorizerCacheTtlSeconds: number;
  readonly secretsMaxAgeSeconds: number;
  readonly legacygw: {
    readonly maxRows: number;
    readonly deadlineMs: number;
    readonly allowedHosts: readonly string[];
    /** Method throttle of the import route. */
    readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
    /** PEM certificates of a private CA (read from caBundleFile at synth), compiled into the import's bundle. */
    readonly caBundle?: string;
  };
  readonly relay: {
    /** Unset: the imported RetryTimes + 1, else 3. */
    readonly maxAttempts?: number;
    readonly allowedHosts: readonly string[];
    readonly firstByteTimeoutMs: number;
    readonly usageRetentionDays: number;
    /** Minutes between two re-tests of auto-disabled channels; 0 = no schedule. */
    readonly retestIntervalMinutes: number;
    /** Models (names or Bedrock ids) and regions the relay's own role may invoke; absent = none. */
    readonly bedrock?: { readonly regions: readonly string[]; readonly models: readonly string[] };
  };
  readonly vpc?: { readonly vpcId: string; readonly subnetIds: readonly string[]; readonly securityGroupId: string };
  readonly manageApiGatewayAccount: boolean;
  readonly monitoring: {
    readonly metricsNamespace: string;
    readonly alarmEmail?: string;
    readonly alarms: AlarmSettings;
  };
}

const stageName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,19}$/, 'must be 1-20 lowercase letters, digits or dashes, starting with a letter');

/** Builds the typed stage config from a stage name and the parsed config file; throws ConfigError. */
export function parseStageConfig(stage: unknown, file: unknown = {}, baseDir = process.cwd()): StageConfig {
  const name = stageName.safeParse(stage);
  if (!name.success) throw new ConfigError(`Context "stage" ${name.error.issues[0]?.message ?? 'is invalid'}`);
  const parsed = fileSchema.safeParse(file);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Stage config ${issue?.path.join('.') || '(root)'} ${issue?.message ?? 'is invalid'}`);
  }
  const c = parsed.data;
  return {
    stage: name.data,
    retainData: c.retainData,
    removalPolicy: c.retainData ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY,
    tableDeletionProtection: c.tableDeletionProtection,
    // Logs kept with the data they explain: a year when retained, a month for a disposable stage.
    logRetention: (c.logRetentionDays ?? (c.retainData ? 365 : 30)) as RetentionDays,
    logLevel: c.logLevel,
    throttling: c.throttling,
    modelCatalog: c.modelCatalog === undefined ? BUILT_IN_MODEL_CATALOG : parseModelCatalog(c.modelCatalog),
    modelPolicy: c.modelPolicy,
    authorizerCacheTtlSeconds: c.authorizerCacheTtlSeconds,
    secretsMaxAgeSeconds: c.secretsMaxAgeSeconds,
    legacygw: {
      maxRows: c.legacygw.maxRows,
      deadlineMs: c.legacygw.deadlineMs,
      allowedHosts: c.legacygw.allowedHosts,
      throttling: c.legacygw.throttling,
      ...(c.legacygw.caBundleFile ? { caBundle: readCaBundle(resolve(baseDir, c.legacygw.caBundleFile)) } : {}),
    },
    relay: c.relay,
    ...(c.vpc ? { vpc: c.vpc } : {}),
    manageApiGatewayAccount: c.manageApiGatewayAccount,
    monitoring: {
      metricsNamespace: c.monitoring.metricsNamespace ?? `KbChannelGateway/${name.data}`,
      ...(c.monitoring.alarmEmail ? { alarmEmail: c.monitoring.alarmEmail } : {}),
      alarms: mergeAlarms(defaultAlarms(c.retainData, c.legacygw.deadlineMs), c.monitoring.alarms ?? {}),
    },
  };
}

type AlarmOverrides = Partial<Record<CountAlarm, Partial<AlarmSpec>>> & {
  apiLatencyP99?: Partial<Record<ApiName, Partial<AlarmSpec>>>;
};

/** The stage's defaults with the config file's overrides, each alarm checked as a whole. */
function mergeAlarms(defaults: AlarmSettings, overrides: AlarmOverrides): AlarmSettings {
  const merge = (path: string, base: AlarmSpec, override: Partial<AlarmSpec> | undefined): AlarmSpec => {
    const spec = { ...base, ...override };
    if (spec.datapointsToAlarm > spec.evaluationPeriods) {
      throw new ConfigError(`Stage config ${path}.datapointsToAlarm must be at most its evaluationPeriods`);
    }
    // CloudWatch evaluates at most one day of periods.
    if (spec.periodMinutes * spec.evaluationPeriods > 1440) {
      throw new ConfigError(`Stage config ${path}: periodMinutes x evaluationPeriods must be at most 1440 (one day)`);
    }
    return spec;
  };
  const latency = defaults.apiLatencyP99;
  return {
    ...(Object.fromEntries(
      COUNT_ALARMS.map((kind) => [kind, merge(`monitoring.alarms.${kind}`, defaults[kind], overrides[kind])]),
    ) as Record<CountAlarm, AlarmSpec>),
    apiLatencyP99: Object.fromEntries(
      (Object.keys(latency) as ApiName[]).map((api) => [
        api,
        merge(`monitoring.alarms.apiLatencyP99.${api}`, latency[api], overrides.apiLatencyP99?.[api]),
      ]),
    ) as Record<ApiName, AlarmSpec>,
  };
}

/** The certificates of a PEM file, checked now so a bad file fails `cdk synth`, not the first import. */
function readCaBundle(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`Stage config legacygw.caBundleFile ${file} is not readable`, { cause });
  }
  return parsePemBundle(text, `Stage config legacygw.caBundleFile ${file}`).join('\n');
}

/** Reads `-c stage=<name>` (default `dev`) and the optional `-c config=<file.json>` from the CDK context. */
export function loadStageConfig(node: Node): StageConfig {
  const stage = node.tryGetContext(CONTEXT_KEYS.stage) ?? 'dev';
  const configPath: unknown = node.tryGetContext(CONTEXT_KEYS.config);
  if (configPath === undefined) return parseStageConfig(stage);
  if (typeof configPath !== 'string' || configPath.trim() === '') {
    throw new ConfigError('Context "config" must be the path of a JSON file');
  }
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(resolve(configPath), 'utf8'));
  } catch (cause) {
    throw new ConfigError(`Stage config file ${configPath} is not readable JSON`, { cause });
  }
  return parseStageConfig(stage, file, dirname(resolve(configPath)));
}
