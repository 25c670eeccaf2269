import { type APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STACK_OUTPUTS } from '#infra/stack-outputs';

/** The deployed stage whose authorizer caches `revoke` flushes, read from the stack's outputs. */
export interface DeployedApis {
  readonly stackName: string;
  readonly restApiIds: readonly string[];
  readonly stageName: string;
  /** How long an authorizer instance may answer from its cached copy of the secrets. */
  readonly secretsMaxAgeSeconds: number;
}

/** The stack or its outputs are not what this tool expects; the message says what to do. */
export class DeployedApisError extends Error {}

// CloudFormation tags every secret it creates with the stack's name.
const STACK_NAME_TAG = 'aws:cloudformation:stack-name';

/** The stack that created the secret (`--stack` wins), then its API ids, stage and secrets max age. */
export async function findDeployedApis(
  clients: { secrets: SecretsManagerClient; cloudFormation: CloudFormationClient },
  secretId: string,
  stackName?: string,
): Promise<DeployedApis> {
  let name = stackName;
  if (name === undefined) {
    const { Tags } = await clients.secrets.send(new DescribeSecretCommand({ SecretId: secretId }));
    name = Tags?.find((tag) => tag.Key === STACK_NAME_TAG)?.Value;
    if (!name) {
      throw new DeployedApisError(
        `secret ${secretId} carries no ${STACK_NAME_TAG} tag: name the stack with --stack KbChannelGateway-<stage>`,
      );
    }
  }
  const { Stacks } = await clients.cloudFormation.send(new DescribeStacksCommand({ StackName: name }));
  const outputs = new Map((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const read = (key: string): string => {
    const value = outputs.get(key);
    if (!value) {
      throw new DeployedApisError(
        `stack ${name} has no ${key} output: deploy the current version of the stack (npm run deploy), then revoke again`,
      );
    }
    return value;
  };
  const maxAge = Number(read(STACK_OUTPUTS.secretsMaxAgeSeconds));
  if (!Number.isInteger(maxAge) || maxAge <= 0) {
    throw new DeployedApisError(
      `stack ${name} output ${STACK_OUTPUTS.secretsMaxAgeSeconds} is not a number of seconds`,
    );
  }
  return {
    stackName: name,
    restApiIds: [read(STACK_OUTPUTS.datasetApiId), read(STACK_OUTPUTS.proxyApiId)],
    stageName: read(STACK_OUTPUTS.stageName),
    secretsMaxAgeSeconds: maxAge,
  };
}

/** Drops every decision API Gateway cached for the stage of each API (Allow and Deny alike). */
export async function flushAuthorizerCaches(client: APIGatewayClient, apis: DeployedApis): Promise<void> {
  for (const restApiId of apis.restApiIds) {
    await client.send(new FlushStageAuthorizersCacheCommand({ restApiId, stageName: apis.stageName }));
  }
}
