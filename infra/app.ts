import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from './stack.ts';
import { loadStageConfig } from './stage-config.ts';

/** Stack name for a stage: one stack per stage, side by side in one account. */
export function stackName(stage: string): string {
  return `KbChannelGateway-${stage}`;
}

/**
 * The context of `cdk.json` (feature flags included). The CLI passes it to the app itself; an App
 * built in a test does not read it, so the app and the tests merge it in and synthesize alike.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/** The CDK app: stage config from context, the stack, and cdk-nag's AWS Solutions checks on every synth. */
export function buildApp(props?: AppProps): { app: App; stack: ServiceStack } {
  const app = new App({ ...props, context: { ...cdkJsonContext(), ...props?.context } });
  const config = loadStageConfig(app.node);
  const stack = new ServiceStack(app, stackName(config.stage), {
    config,
    description: `Knowledge-base API and channel proxy API (${config.stage})`,
    // Account and region come from the CLI's profile at deploy time; none are needed to synth.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    tags: { project: 'kb-channel-gateway', stage: config.stage },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
