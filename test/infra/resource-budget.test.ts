import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import type { StageConfigFile } from '#infra/stage-config';
import { removeTempDirs, synthStack } from './synth.ts';

afterAll(removeTempDirs);

/** CloudFormation's hard limit of resources in one stack: a template above it fails to deploy. */
const CLOUDFORMATION_LIMIT = 500;

/**
 * The budget of each template, the parent's and each nested stack's (docs/deploy.md, "Resource budget"): well under the
 * limit, so that the next feature's functions and routes fit. Raise it only with headroom left to the limit. When a
 * count nears it, move a part of the product into a nested stack (aws-cdk-lib NestedStack: its resources count
 * against its own 500, as the monitoring's do), or fold per-item resources as the function alarms were.
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
    `keeps each template of the %s stack, parent and nested, within ${BUDGET} resources (CloudFormation's limit: ${CLOUDFORMATION_LIMIT})`,
    (stage, file) => {
      const { stack, template } = synthStack(file, stage);
      const nested = stack.node.findAll().filter(NestedStack.isNestedStack);
      const templates: [string, Template][] = [
        [stack.stackName, template],
        ...nested.map((n): [string, Template] => [n.node.path, Template.fromStack(n)]),
      ];

      const counts = templates.map(([name, t]) => {
        const resources = t.toJSON().Resources as Record<string, { Type: string }>;
        return { name, total: Object.keys(resources).length, byType: countByType(resources) };
      });
      console.info(`${stage}: ${counts.map((c) => `${c.name} ${c.total}`).join(', ')} resources`);

      expect(BUDGET).toBeLessThan(CLOUDFORMATION_LIMIT);
      expect(nested.map((n) => n.node.path)).toContain(stack.monitoringStack.node.path);
      for (const { name, total, byType } of counts) {
        const types = byType.map(([type, n]) => `  ${type}: ${n}`).join('\n');
        expect(
          total,
          `${name}: ${total} resources exceed the budget of ${BUDGET} (limit ${CLOUDFORMATION_LIMIT}; docs/deploy.md, "Resource budget"):\n${types}`,
        ).toBeLessThanOrEqual(BUDGET);
      }
    },
  );
});
