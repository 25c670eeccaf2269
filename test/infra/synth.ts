import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, type NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { cdkJsonContext } from '#infra/app';
import { ServiceStack } from '#infra/stack';
import { parseStageConfig, type StageConfigFile } from '#infra/stage-config';
import type { FunctionName } from '#shared/routes';

/** Context that skips esbuild: for tests that inspect the template, not the assets. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/** cdk.json's context (the feature flags the CLI applies) without bundling. */
export const TEST_CONTEXT = { ...cdkJsonContext(), ...NO_BUNDLING };

// Everything a test file writes (cloud assemblies, config files) lives under one root it removes.
let root: string | undefined;

/** A fresh directory under this test file's temp root; an App without an outdir would leave one in /tmp. */
export function tempDir(prefix = 'cdk.out-'): string {
  root ??= mkdtempSync(join(tmpdir(), 'infra-test-'));
  return mkdtempSync(join(root, prefix));
}

/** Removes every directory tempDir and writeConfigFile made (call in afterAll). */
export function removeTempDirs(): void {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
}

/**
 * Synthesizes the stack for `stage` with a stage config file's content, without bundling: the parent's template, and
 * the monitoring nested stack's as the parent instantiates it (nestedTemplate).
 */
export function synthStack(
  file: StageConfigFile = {},
  stage = 'dev',
  context: Record<string, unknown> = {},
): { stack: ServiceStack; template: Template; monitoring: Template } {
  const app = new App({ context: { ...TEST_CONTEXT, ...context }, outdir: tempDir() });
  const stack = new ServiceStack(app, 'Test', { config: parseStageConfig(stage, file) });
  const template = Template.fromStack(stack);
  return { stack, template, monitoring: nestedTemplate(stack.monitoringStack, template) };
}

/** The values a parent stack passes its nested stack's parameters (its `AWS::CloudFormation::Stack` resource). */
export function parametersPassedTo(nested: NestedStack, parentTemplate: Template): Record<string, unknown> {
  const parent = nested.nestedStackParent;
  const resource = nested.nestedStackResource;
  if (!parent || !resource) throw new Error(`${nested.node.path} is not a nested stack`);
  const props = parentTemplate.toJSON().Resources[parent.getLogicalId(resource)]?.Properties as Json | undefined;
  if (!props) throw new Error(`the parent template has no resource for ${nested.node.path}`);
  return (props.Parameters ?? {}) as Record<string, unknown>;
}

/**
 * A nested stack's template with each `Ref` to one of its parameters replaced by what the parent passes it, so a test
 * asserts the whole wiring (a dimension names the parent's function) with the parent's logical ids. The raw template
 * is `Template.fromStack(nested)`.
 */
export function nestedTemplate(nested: NestedStack, parentTemplate: Template): Template {
  const passed = parametersPassedTo(nested, parentTemplate);
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    const [only] = entries;
    if (entries.length === 1 && only?.[0] === 'Ref' && typeof only[1] === 'string' && Object.hasOwn(passed, only[1])) {
      return passed[only[1]];
    }
    return Object.fromEntries(entries.map(([key, v]) => [key, resolve(v)]));
  };
  const { Parameters: _declared, ...rest } = Template.fromStack(nested).toJSON();
  return Template.fromJSON(resolve(rest) as Json);
}

/** The CloudFormation logical id of a construct's underlying resource. */
export function logicalId(stack: Stack, construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** Writes a stage config file into a fresh temp dir and returns its path. */
export function writeConfigFile(content: unknown): string {
  const file = join(tempDir('config-'), 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

type Json = Record<string, unknown>;

/** Every action a role's inline policies allow, mapped to the resources (as JSON) it applies to. */
export function permissionsOf(template: Template, roleLogicalId: string): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>();
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const props = policy.Properties as Json;
    const roles = props.Roles as Json[];
    if (!roles.some((r) => r.Ref === roleLogicalId)) continue;
    for (const statement of (props.PolicyDocument as Json).Statement as Json[]) {
      if (statement.Effect !== 'Allow') continue;
      for (const action of [statement.Action].flat() as string[]) {
        const resources = allowed.get(action) ?? new Set<string>();
        for (const resource of [statement.Resource].flat()) resources.add(JSON.stringify(resource));
        allowed.set(action, resources);
      }
    }
  }
  return allowed;
}

/** Each Allow statement of the policies attached to a role: its actions, resources and condition block as synthesized. */
export function allowStatementsOf(
  template: Template,
  roleLogicalId: string,
): { actions: string[]; resources: string[]; condition: Json | undefined }[] {
  const statements: { actions: string[]; resources: string[]; condition: Json | undefined }[] = [];
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const props = policy.Properties as Json;
    if (!(props.Roles as Json[]).some((r) => r.Ref === roleLogicalId)) continue;
    for (const statement of (props.PolicyDocument as Json).Statement as Json[]) {
      if (statement.Effect !== 'Allow') continue;
      statements.push({
        actions: [statement.Action].flat() as string[],
        resources: [statement.Resource].flat().map((r) => JSON.stringify(r)),
        condition: statement.Condition as Json | undefined,
      });
    }
  }
  return statements;
}

/** `Fn::GetAtt <id>.Arn` as a permissionsOf resource entry. */
export const arnOf = (id: string): string => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });
/** `Ref <id>` as a permissionsOf resource entry (a secret's ARN). */
export const refOf = (id: string): string => JSON.stringify({ Ref: id });

/** The knowledge-base functions after create, which all read the datasets table (the tests' own list). */
export const KB_FUNCTIONS = [
  'create-dataset-folder',
  'list-datasets',
  'dataset-detail',
  'update-dataset',
  'delete-dataset',
  'dataset-paths',
] as const satisfies readonly FunctionName[];
/** The channel review functions, which all use the channels table. */
export const REVIEW_FUNCTIONS = [
  'list-channels',
  'get-channel',
  'update-channel',
  'delete-channel',
  'batch-delete-channels',
] as const satisfies readonly FunctionName[];
