import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Duration, type RemovalPolicy, Stage, Token, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { BUNDLED_ENV_GLOBAL, encodeBundledEnv } from '#shared/bundled-env';
import { ConfigError } from '#shared/errors';
import { FUNCTION_ENTRIES, type FunctionName } from '#shared/routes';
import type { AppTable, IndexAction, TableAction } from './table.ts';

/**
 * Newest Node.js runtime aws-cdk-lib offers. Pinned rather than NODEJS_LATEST, which tracks the
 * newest version available in *all* regions and lags behind.
 */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** Where a function runs inside a VPC (imported resources; no lookups, so synth stays offline). */
export interface FunctionVpcPlacement {
  readonly vpc: IVpc;
  readonly subnets: readonly ISubnet[];
  readonly securityGroup: ISecurityGroup;
}

export interface AppFunctionProps {
  /** Which function this is: FUNCTION_ENTRIES names the entry bundled for it. */
  readonly name: FunctionName;
  /** Another entry file (relative to the repository root) for this function: the SAM-only authorizer. */
  readonly entry?: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Plain configuration values; table and secret names are added by `useTable` / `readSecret`. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Configuration too large for Lambda's environment, compiled into the bundle as defaults of the
   * same variables (shared/bundled-env.ts): no cold start has to fetch it from another service.
   */
  readonly bundledEnvironment?: Readonly<Record<string, string>>;
  readonly vpc?: FunctionVpcPlacement;
  /** Instruction set; arm64 unless the SAM template is made for an x86 host. */
  readonly architecture?: Architecture;
  /** Shell commands run after esbuild, from the repository root, to add files beside the bundle in `outputDir`. */
  readonly afterBundling?: (outputDir: string) => string[];
}

/**
 * A module exporting BUNDLED_ENV_GLOBAL as `encoded`, for esbuild's `inject` (shared/bundled-env.ts): esbuild
 * replaces the free global of that name with the export. Named by its content, so every function compiled with
 * the same values shares one file and a synth writes nothing that differs between runs.
 */
function bundledEnvModule(scope: Construct, encoded: string): string {
  // Beside the app's own output (cdk.out): a directory the synthesizing user owns.
  const dir = join(Stage.of(scope)?.outdir ?? tmpdir(), 'bundled-env');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(encoded).digest('hex').slice(0, 32)}.mjs`);
  writeFileSync(file, `export const ${BUNDLED_ENV_GLOBAL} = ${JSON.stringify(encoded)};\n`);
  return file;
}

/** Lambda's limit on a function's environment variables, names and values together. */
export const LAMBDA_ENVIRONMENT_MAX_BYTES = 4096;
/**
 * What an unresolved value (a table name, a secret ARN) is counted as: DynamoDB table names and
 * the ARNs of the secrets CloudFormation names stay below this.
 */
export const UNRESOLVED_VALUE_BYTES = 256;
/** Cap on configuration compiled into a bundle: far below Lambda's 250 MB, and a hint of a mistake. */
export const BUNDLED_ENVIRONMENT_MAX_BYTES = 1024 * 1024;

/**
 * Bytes of a function's environment as Lambda counts them (the variables' JSON), with each
 * unresolved token counted as UNRESOLVED_VALUE_BYTES.
 */
export function environmentBytes(variables: Readonly<Record<string, string>>): number {
  let bytes = 2;
  for (const [name, value] of Object.entries(variables)) {
    const valueBytes = Token.isUnresolved(value) ? UNRESOLVED_VALUE_BYTES : Buffer.byteLength(JSON.stringify(value));
    bytes += Buffer.byteLength(JSON.stringify(name)) + 1 + valueBytes + 1;
  }
  return bytes;
}

/** Quotes one word for a POSIX shell (bundling hooks run through one). */
const shellQuote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;

/** Repository root: entries in FUNCTION_ENTRIES and the lockfile are relative to it. */
const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * A Lambda function with the project's fixed defaults: newest Node.js runtime, arm64, X-Ray active
 * tracing, its own log group with retention, and an execution role that starts with nothing but
 * writing to that log group. Access to tables and secrets is added explicitly, one grant at a time.
 */
export class AppFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** Every variable set on the function, for the size check at synth. */
  private readonly environment: Record<string, string>;
  private tables = 0;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    this.environment = { ...props.environment };
    const bundled = props.bundledEnvironment ?? {};
    const encodedBundle = encodeBundledEnv(bundled);
    if (encodedBundle.length > BUNDLED_ENVIRONMENT_MAX_BYTES) {
      throw new ConfigError(
        `The configuration compiled into the ${props.name} function (${Object.keys(bundled).join(', ')}) is ${encodedBundle.length.toLocaleString('en-US')} bytes encoded, over the ${BUNDLED_ENVIRONMENT_MAX_BYTES.toLocaleString('en-US')} bytes this stack allows`,
      );
    }

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    // Our own role instead of the default AWSLambdaBasicExecutionRole, whose logs:* on "*" would
    // let the function write into any log group of the account.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${props.name} function`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry ?? FUNCTION_ENTRIES[props.name]),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: props.architecture ?? Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      // No NODE_OPTIONS=--enable-source-maps: loading the maps costs 12-16 ms of every cold start
      // (npm run bench). The maps ship in the asset; set that variable on a function while debugging.
      environment: { ...props.environment },
      bundling: {
        // Local esbuild from node_modules; Docker is never needed.
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        // The map only has to resolve positions; embedding the sources would double the asset.
        sourcesContent: false,
        // Through a module esbuild injects, never its command line: a catalogue of hundreds of models would
        // pass the 128 KiB a single argument may hold (spawnSync E2BIG). Unbundled code sees none.
        ...(Object.keys(bundled).length > 0 ? { inject: [bundledEnvModule(this, encodedBundle)] } : {}),
        // Bundle the AWS SDK too (no externals): the function then runs the SDK version our lockfile
        // pins and our tests exercised, not whatever the runtime ships that month, and esbuild keeps
        // only the commands we import, which loads faster than the runtime's full clients.
        externalModules: [],
        // mysql2 and other CommonJS dependencies call require() for Node built-ins, which an ESM
        // bundle lacks; createRequire gives them one.
        banner:
          "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => [
            // esbuild writes under the deploying shell's umask: with 077 the bundle is 0600, the CLI zips each
            // file with its mode, and Lambda, which reads the code as another user, fails with EACCES. A hook
            // below that adds a file sets its mode itself (the SAM-only credentials copy stays private).
            `chmod -R a+rX ${shellQuote(outputDir)}`,
            ...(props.afterBundling?.(outputDir) ?? []),
          ],
        },
      },
      ...(props.vpc
        ? {
            vpc: props.vpc.vpc,
            vpcSubnets: { subnets: [...props.vpc.subnets] },
            securityGroups: [props.vpc.securityGroup],
          }
        : {}),
    });

    // The default policy holds the X-Ray statement; its wildcard resource is acknowledged here, where it is made.
    Validations.of(this.role.node.findChild('DefaultPolicy')).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });

    if (props.vpc) this.allowVpcNetworkInterfaces();

    // Checked when the app synthesizes, after every grant has added its variable: CloudFormation
    // would only fail the deploy, halfway through the stack.
    this.node.addValidation({
      validate: () => {
        const bytes = environmentBytes(this.environment);
        if (bytes <= LAMBDA_ENVIRONMENT_MAX_BYTES) return [];
        return [
          `The environment of the ${props.name} function would be about ${bytes.toLocaleString('en-US')} bytes, over Lambda's limit of ${LAMBDA_ENVIRONMENT_MAX_BYTES.toLocaleString('en-US')} bytes (${Object.keys(this.environment).join(', ')}): move large values into bundledEnvironment`,
        ];
      },
    });
  }

  /** Sets one environment variable (counted in the size check). */
  setEnvironment(name: string, value: string): void {
    this.environment[name] = value;
    this.function.addEnvironment(name, value);
  }

  /**
   * Grants exactly `actions` on `table` (no index, no other table; its KMS key when it has one) and
   * sets `envName` to its name.
   */
  useTable(table: AppTable, envName: string, actions: readonly TableAction[]): void {
    table.grantData(this.role, actions);
    this.setEnvironment(envName, table.table.tableName);
    this.tables += 1;
  }

  /** True once the function was granted a table (and so talks to DynamoDB). */
  get usesTables(): boolean {
    return this.tables > 0;
  }

  /** Grants a Scan of `table` that may return its partition key only (AppTable.grantKeyOnlyScan); call `useTable` too. */
  useKeyOnlyScan(table: AppTable): void {
    table.grantKeyOnlyScan(this.role);
  }

  /** Grants read `actions` on `table` returning only `attributes` (AppTable.grantProjected) and sets `envName` to its name. */
  useProjected(
    table: AppTable,
    envName: string,
    actions: readonly ('GetItem' | 'BatchGetItem')[],
    attributes: readonly string[],
  ): void {
    table.grantProjected(this.role, actions, attributes);
    this.setEnvironment(envName, table.table.tableName);
    this.tables += 1;
  }

  /** Grants `actions` on one index of `table` only (call `useTable` for the table's name and item actions). */
  useIndex(table: AppTable, indexName: string, actions: readonly IndexAction[]): void {
    table.grantIndex(this.role, indexName, actions);
    this.tables += 1;
  }

  /** Grants secretsmanager:GetSecretValue on `secret` only and sets `envName` to its ARN. */
  readSecret(secret: ISecret, envName: string): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    this.setEnvironment(envName, secret.secretArn);
  }

  /**
   * Lambda creates the function's network interfaces with its execution role. Written out instead
   * of AWSLambdaVPCAccessExecutionRole, which would also grant logs:* on every log group.
   */
  private allowVpcNetworkInterfaces(): void {
    const policy = new Policy(this, 'VpcAccess', {
      roles: [this.role],
      statements: [
        new PolicyStatement({
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DescribeSubnets',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Lambda VPC networking: the EC2 network-interface actions Lambda performs with the execution role (Describe*, Create/DeleteNetworkInterface) cannot be scoped to a resource.',
    });
    // The function must not be created before it may create its network interfaces.
    this.function.node.addDependency(policy);
  }
}
