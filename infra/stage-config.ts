import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import * as z from 'zod';
import { DEFAULTS, LOG_LEVELS } from '#shared/config';
import { ConfigError } from '#shared/errors';
import { BUILT_IN_MODEL_CATALOG, type ModelCatalog, parseModelCatalog } from '#shared/model-catalog';

/** Context keys the app reads (`-c stage=prod -c config=deploy/prod.json`). */
export const CONTEXT_KEYS = { stage: 'stage', config: 'config' } as const;

/** The stage whose data and logs outlive the stack (RETAIN, deletion protection). */
export const PRODUCTION_STAGE = 'prod';

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

const fileSchema = z
  .object({
    logRetentionDays: retentionDays.optional(),
    logLevel: z.enum(LOG_LEVELS).default(DEFAULTS.logLevel),
    throttling: z
      .object({
        rateLimit: z.number().positive().max(10_000),
        burstLimit: z.number().int().positive().max(5_000),
      })
      .strict()
      .default({ rateLimit: 50, burstLimit: 100 }),
    // Validated with the same parser the function runs at cold start, so a bad catalogue fails `cdk synth`.
    modelCatalog: z.unknown().optional(),
    authorizerCacheTtlSeconds: z.number().int().min(0).max(3600).default(300),
    secretsMaxAgeSeconds: z.number().int().positive().max(3600).default(DEFAULTS.secretsMaxAgeSeconds),
    legacygw: z
      .object({
        maxRows: z.number().int().positive().default(DEFAULTS.legacygwMaxRows),
        deadlineMs: z.number().int().positive().max(MAX_IMPORT_DEADLINE_MS).default(DEFAULTS.legacygwDeadlineMs),
        allowedHosts: z.array(z.string().trim().min(1)).default([]),
      })
      .strict()
      .default({ maxRows: DEFAULTS.legacygwMaxRows, deadlineMs: DEFAULTS.legacygwDeadlineMs, allowedHosts: [] }),
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
  })
  .strict();

/** The content of a `-c config=<file.json>` file, as written (every key optional). */
export type StageConfigFile = z.input<typeof fileSchema>;

/** Everything the stack needs from the stage, validated and with defaults applied. */
export interface StageConfig {
  readonly stage: string;
  readonly isProduction: boolean;
  /** RETAIN for the production stage (tables, secrets, log groups), DESTROY elsewhere. */
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
  readonly throttling: { readonly rateLimit: number; readonly burstLimit: number };
  readonly modelCatalog: ModelCatalog;
  readonly authorizerCacheTtlSeconds: number;
  readonly secretsMaxAgeSeconds: number;
  readonly legacygw: {
    readonly maxRows: number;
    readonly deadlineMs: number;
    readonly allowedHosts: readonly string[];
  };
  readonly vpc?: { readonly vpcId: string; readonly subnetIds: readonly string[]; readonly securityGroupId: string };
  readonly manageApiGatewayAccount: boolean;
}

const stageName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,19}$/, 'must be 1-20 lowercase letters, digits or dashes, starting with a letter');

/** Builds the typed stage config from a stage name and the parsed config file; throws ConfigError. */
export function parseStageConfig(stage: unknown, file: unknown = {}): StageConfig {
  const name = stageName.safeParse(stage);
  if (!name.success) throw new ConfigError(`Context "stage" ${name.error.issues[0]?.message ?? 'is invalid'}`);
  const parsed = fileSchema.safeParse(file);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Stage config ${issue?.path.join('.') || '(root)'} ${issue?.message ?? 'is invalid'}`);
  }
  const c = parsed.data;
  const isProduction = name.data === PRODUCTION_STAGE;
  return {
    stage: name.data,
    isProduction,
    removalPolicy: isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRetention: (c.logRetentionDays ?? (isProduction ? 365 : 30)) as RetentionDays,
    logLevel: c.logLevel,
    throttling: c.throttling,
    modelCatalog: c.modelCatalog === undefined ? BUILT_IN_MODEL_CATALOG : parseModelCatalog(c.modelCatalog),
    authorizerCacheTtlSeconds: c.authorizerCacheTtlSeconds,
    secretsMaxAgeSeconds: c.secretsMaxAgeSeconds,
    legacygw: c.legacygw,
    ...(c.vpc ? { vpc: c.vpc } : {}),
    manageApiGatewayAccount: c.manageApiGatewayAccount,
  };
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
  return parseStageConfig(stage, file);
}
