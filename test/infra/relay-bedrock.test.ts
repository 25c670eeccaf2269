import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { BEDROCK_ACTIONS, bedrockResources } from '#infra/relay-bedrock';
import type { FunctionName } from '#shared/routes';
import {
  allowStatementsOf,
  logicalId,
  NO_BUNDLING,
  removeTempDirs,
  synthStack,
  tempDir,
  writeConfigFile,
} from './synth.ts';

// Bedrock on the function's own role (docs/relay.md, "Bedrock on the function's role"): the stage config's models and
// regions only, on the functions that send relayed requests only, and cdk-nag clean.

afterAll(removeTempDirs);

const GRANT = {
  regions: ['us-east-1', 'us-west-2'],
  models: ['claude-3-5-sonnet-20240620', 'amazon.titan-text-express-v1'],
};

describe("Bedrock on the relay's role", () => {
  it('lists foundation models in every region and the inference profiles the relay sends, no wildcard', () => {
    expect(bedrockResources(GRANT, 'aws', '123456789012')).toEqual([
      'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0',
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0',
      'arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-text-express-v1',
      'arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0',
      'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0',
      'arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-text-express-v1',
    ]);
  });

  it('grants the relay, the channel test and the re-test exactly the invoke calls, and no other function any', () => {
    const { stack, template } = synthStack({ relay: { bedrock: GRANT } });
    const { template: without, stack: plain } = synthStack();
    const bedrockOf = (t: typeof template, s: typeof stack, name: FunctionName) =>
      allowStatementsOf(t, logicalId(s, s.functions[name].role)).filter((st) =>
        st.actions.some((a) => a.startsWith('bedrock:')),
      );

    for (const name of ['relay', 'test-channel', 'retest-channels'] as const) {
      const statements = bedrockOf(template, stack, name);
      expect(statements).toHaveLength(1);
      expect(statements[0]?.actions.sort()).toEqual([...BEDROCK_ACTIONS].sort());
      expect(statements[0]?.resources).toHaveLength(6);
      expect(statements[0]?.resources.join(' ')).not.toMatch(/\*/);
    }
    for (const name of Object.keys(stack.functions) as FunctionName[]) {
      if (['relay', 'test-channel', 'retest-channels'].includes(name)) continue;
      expect(bedrockOf(template, stack, name)).toEqual([]);
    }
    for (const name of Object.keys(plain.functions) as FunctionName[])
      expect(bedrockOf(without, plain, name)).toEqual([]);
  });

  it('refuses a region or model that is not one', () => {
    expect(() => synthStack({ relay: { bedrock: { regions: ['*'], models: ['m'] } } })).toThrow(/regions/);
    expect(() => synthStack({ relay: { bedrock: { regions: ['us-east-1'], models: ['anthropic.*'] } } })).toThrow(
      /models/,
    );
  });

  it('leaves cdk-nag nothing unacknowledged with a Bedrock grant', () => {
    const { app } = buildApp({
      context: { ...NO_BUNDLING, stage: 'dev', config: writeConfigFile({ relay: { bedrock: GRANT } }) },
      outdir: tempDir(),
    });
    const assembly = app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; conclusion: string; violations: unknown[] }[];
    };
    const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions');

    expect(nag?.violations).toEqual([]);
    expect(nag?.conclusion).toBe('success');
  }, 120_000);
});
