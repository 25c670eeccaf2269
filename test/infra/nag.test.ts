import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { NO_BUNDLING, removeTempDirs, tempDir, writeConfigFile } from './synth.ts';

interface PluginReport {
  pluginName: string;
  conclusion: string;
  violations: { ruleName: string }[];
  suppressedViolations?: { ruleName: string; reason: string; acknowledgedAt: string }[];
}

afterAll(removeTempDirs);

// A whole-app synth with cdk-nag; the first in a worker also loads every aws-cdk-lib module the stack
// uses, which took 37 s on two cores shared with other suites.
const WHOLE_APP_SYNTH_TIMEOUT_MS = 120_000;

/** Synthesizes an app and returns cdk-nag's report from the cloud assembly's validation report. */
function nagReport(app: App): PluginReport {
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
    pluginReports: PluginReport[];
  };
  const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions');
  if (!nag) throw new Error('cdk-nag did not report');
  return nag;
}

describe('cdk-nag AwsSolutions checks', () => {
  it.each([
    ['the default dev stage', { stage: 'dev' }],
    [
      'prod with the import function in a VPC and an alarm e-mail subscription',
      {
        stage: 'prod',
        config: writeConfigFile({
          vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'sg-0a1b2c3d' },
          legacygw: { allowedHosts: ['10.20.0.0/16'] },
          monitoring: { alarmEmail: 'oncall@example.com' },
        }),
      },
    ],
    ['a disposable stage', { stage: 'scratch', config: writeConfigFile({ retainData: false }) }],
  ])(
    'finds nothing unacknowledged in %s, and every acknowledgement has a reason',
    (_, context) => {
      const { app } = buildApp({ context: { ...NO_BUNDLING, ...context }, outdir: tempDir() });

      const report = nagReport(app);

      expect(report.violations).toEqual([]);
      expect(report.conclusion).toBe('success');
      expect(report.suppressedViolations?.length).toBeGreaterThan(0);
      for (const ack of report.suppressedViolations ?? []) expect(ack.reason.length).toBeGreaterThan(40);
    },
    WHOLE_APP_SYNTH_TIMEOUT_MS,
  );

  it('reports a finding nobody acknowledged (the check above can fail)', () => {
    const app = new App({ outdir: tempDir() });
    const stack = new Stack(app, 'Unchecked');
    new Table(stack, 'NoRecovery', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(() => app.synth()).toThrow(/AwsSolutions-DDB3/);
  });

  it("reports a finding in a nested stack's template too (the monitoring's is one)", () => {
    const app = new App({ outdir: tempDir() });
    const nested = new NestedStack(new Stack(app, 'Parent'), 'Nested');
    new Table(nested, 'NoRecovery', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    expect(() => app.synth()).toThrow(/Parent\/Nested\/NoRecovery[\s\S]*AwsSolutions-DDB3/);
  });
});
