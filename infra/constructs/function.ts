import { join } from 'node:path';
import { type Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { FUNCTION_ENTRIES, type FunctionName } from '#shared/routes';
import type { AppTable } from './table.ts';

/**
 * Newest Node.js runtime aws-cdk-lib offers. Pinned rather than NODEJS_LATEST, which tracks the
 * newest version available in *all* regions and lags behind.
 */
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;

/** The only DynamoDB actions a function may be granted: what the data layer calls, nothing broader. */
export type TableAction =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem';

/** Where a function runs inside a VPC (imported resources; no lookups, so synth stays offline). */
export interface FunctionVpcPlacement {
  readonly vpc: IVpc;
  readonly subnets: readonly ISubnet[];
  readonly securityGroup: ISecurityGroup;
}

export interface AppFunctionProps {
  /** Which entry of FUNCTION_ENTRIES to bundle. */
  readonly name: FunctionName;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Plain configuration values; table and secret names are added by `useTable` / `readSecret`. */
  readonly environment: Readonly<Record<string, string>>;
  readonly vpc?: FunctionVpcPlacement;
  /** Shell commands run after esbuild, from the repository root, to add files beside the bundle in `outputDir`. */
  readonly afterBundling?: (outputDir: string) => string[];
}

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

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);

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
      entry: join(PROJECT_ROOT, FUNCTION_ENTRIES[props.name]),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
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
        // Bundle the AWS SDK too (no externals): the function then runs the SDK version our lockfile
        // pins and our tests exercised, not whatever the runtime ships that month, and esbuild keeps
        // only the commands we import, which loads faster than the runtime's full clients.
        externalModules: [],
        // mysql2 and other CommonJS dependencies call require() for Node built-ins, which an ESM
        // bundle lacks; createRequire gives them one.
        banner:
          "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        ...(props.afterBundling
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => props.afterBundling?.(outputDir) ?? [],
              },
            }
          : {}),
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
  }

  /** Grants exactly `actions` on `table` (no index, no other table) and sets `envName` to its name. */
  useTable(table: AppTable, envName: string, actions: readonly TableAction[]): void {
    table.table.grant(this.role, ...actions.map((action) => `dynamodb:${action}`));
    this.function.addEnvironment(envName, table.table.tableName);
  }

  /** Grants secretsmanager:GetSecretValue on `secret` only and sets `envName` to its ARN. */
  readSecret(secret: ISecret, envName: string): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
    );
    this.function.addEnvironment(envName, secret.secretArn);
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
