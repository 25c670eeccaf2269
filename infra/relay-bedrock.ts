import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { bedrockFoundationId, bedrockModelId } from '#shared/relay/providers/bedrock-models';
import type { AppFunction } from './constructs/function.ts';

/*
 * Bedrock on the function's own role (docs/relay.md, "Bedrock on the function's role"): a Bedrock channel that names
 * no key is signed with the execution role of the function that sends it (the relay, the channel test, the re-test),
 * so those roles may invoke exactly the models and regions the stage configuration lists (`relay.bedrock`), and
 * nothing when it lists none. Converse is authorized as `bedrock:InvokeModel`, ConverseStream as
 * `bedrock:InvokeModelWithResponseStream` (Amazon Bedrock User Guide, "Converse API" prerequisites); CountTokens as
 * `bedrock:CountTokens`. Resources: each model's foundation-model ARN in each listed region (a cross-region inference
 * profile reaches the model in its destination regions, which must be listed too) and the inference profile the
 * relay sends from that region (shared/relay/providers/bedrock-models.ts), in this account. No wildcard.
 */

export interface BedrockGrant {
  readonly regions: readonly string[];
  readonly models: readonly string[];
}

export const BEDROCK_ACTIONS = [
  'bedrock:InvokeModel',
  'bedrock:InvokeModelWithResponseStream',
  'bedrock:CountTokens',
] as const;

/** The ARNs a grant covers: foundation models in every region, and the inference profiles the relay sends. */
export function bedrockResources(grant: BedrockGrant, partition: string, account: string): string[] {
  const arns = new Set<string>();
  for (const region of grant.regions) {
    for (const model of grant.models) {
      const id = bedrockFoundationId(model);
      arns.add(`arn:${partition}:bedrock:${region}::foundation-model/${id}`);
      const sent = bedrockModelId(model, region);
      if (sent !== id) arns.add(`arn:${partition}:bedrock:${region}:${account}:inference-profile/${sent}`);
    }
  }
  return [...arns];
}

/** Grants the functions that send relayed requests Bedrock's invoke calls on the configured models and regions. */
export function grantBedrock(functions: readonly AppFunction[], grant: BedrockGrant | undefined): void {
  if (grant === undefined) return;
  const statement = new PolicyStatement({
    actions: [...BEDROCK_ACTIONS],
    resources: bedrockResources(grant, Aws.PARTITION, Aws.ACCOUNT_ID),
  });
  for (const fn of functions) fn.role.addToPrincipalPolicy(statement);
}
