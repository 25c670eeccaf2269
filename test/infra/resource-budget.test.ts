import { afterAll, describe, expect, it } from 'vitest';
import type { StageConfigFile } from '#infra/stage-config';
import { removeTempDirs, synthStack } from './synth.ts';

afterAll(removeTempDirs);

/** CloudFormation's hard limit of resources in one stack: a template above it fails to deploy. */
const CLOUDFORMATION_LIMIT = 500;

/**
 * The stack's budget (docs/deploy.md, "Resource budget"): well under the limit, so that the next feature's functions
 * and routes fit. Raise it only with headroom left to the limit. When the count nears it, move a part of the product
 * (e.g. the relay of infra/relay.ts, or the knowledge-base sources) into a nested stack (aws-cdk-lib NestedStack:
 * its resources count against its own 500), or fold per-item resources as the function alarms were.
 */
const BUDGET = 450;

/** How many resources of each type the template holds, most first. */
function countByType(resources: Record<string, { Type: string }>): [string, number][] {
  const counts = new Map<string, number>();
  for (const { Type } of Object.values(resources)) counts.set(Type, (counts.get(Type) ?? 0) + 1);
  return [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
}

describe('resource budget', () => {
  it.each<[string, StageConfigFile]>([
    ['dev', {}],
    // Every optional part on: the import's VPC placement and an alarm e-mail subscription add resources.
    [
      'prod',
      {
        monitoring: { alarmEmail: 'oncall@example.com' },
        vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'sg-0a1b2c3d' },
        legacygw: { allowedHosts: ['10.20.0.0/16'] },
      },
    ],
  ])(
    `keeps the %s stack within ${BUDGET} resources (CloudFormation's limit: ${CLOUDFORMATION_LIMIT})`,
    (stage, file) => {
      const resources = synthStack(file, stage).template.toJSON().Resources as Record<string, { Type: string }>;
      const total = Object.keys(resources).length;
      const byType = countByType(resources)
        .map(([type, n]) => `  ${type}: ${n}`)
        .join('\n');

      expect(BUDGET).toBeLessThan(CLOUDFORMATION_LIMIT);
      expect(
        total,
        `${total} resources exceed the budget of ${BUDGET} (limit ${CLOUDFORMATION_LIMIT}; docs/deploy.md, "Resource budget"):\n${byType}`,
      ).toBeLessThanOrEqual(BUDGET);
    },
  );
});
