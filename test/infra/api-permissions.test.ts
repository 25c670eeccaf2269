import { afterAll, describe, expect, it } from 'vitest';
import { APIS, type ApiName, type FunctionName } from '#shared/routes';
import { logicalId, removeTempDirs, synthStack } from './synth.ts';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;

const { stack, template } = synthStack();
const fnArn = (name: FunctionName) => ({ 'Fn::GetAtt': [logicalId(stack, stack.functions[name].function), 'Arn'] });
const apiRef = (api: ApiName) => ({ Ref: logicalId(stack, stack.apis[api].api) });
/** `execute-api` ARN of any method and path of `api`'s own stage ("dev"). */
const stageArn = (api: ApiName) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':execute-api:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':',
      apiRef(api),
      '/dev/*/*',
    ],
  ],
});

// Every permission API Gateway holds, but the authorizers' (scoped to an authorizer ARN, one per authorizer).
const apiGatewayPermissions = Object.values(template.findResources('AWS::Lambda::Permission'))
  .map((p) => p.Properties as Json)
  .filter((p) => p.Principal === 'apigateway.amazonaws.com' && !JSON.stringify(p.SourceArn).includes('/authorizers/'));

describe('API Gateway invoke permissions (docs/authorization.md)', () => {
  it('lets each API invoke exactly the functions of its routes, with one permission per function and API on its own stage', () => {
    const expected = (Object.keys(APIS) as ApiName[]).flatMap((api) =>
      [...new Set(APIS[api].routes.map((r) => r.function))].map((name) => ({
        Action: 'lambda:InvokeFunction',
        FunctionName: fnArn(name),
        Principal: 'apigateway.amazonaws.com',
        SourceArn: stageArn(api),
      })),
    );
    const key = (p: Json) => JSON.stringify(p);

    expect(apiGatewayPermissions.map(key).sort()).toEqual(expected.map(key).sort());
  });

  it('allows no stage but the API own: not the console test-invoke-stage, which skips the authorizer', () => {
    for (const p of apiGatewayPermissions) {
      const parts = (p.SourceArn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      expect(parts.at(-1)).toBe('/dev/*/*');
    }
    expect(JSON.stringify(apiGatewayPermissions)).not.toContain('test-invoke-stage');
  });

  it('still lets the authorizer be invoked only through the APIs authorizers', () => {
    const authorizerPermissions = Object.values(template.findResources('AWS::Lambda::Permission'))
      .map((p) => p.Properties as Json)
      .filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify(fnArn('authorizer')));

    expect(authorizerPermissions.length).toBeGreaterThan(0);
    for (const p of authorizerPermissions) expect(JSON.stringify(p.SourceArn)).toContain('/authorizers/');
  });
});
