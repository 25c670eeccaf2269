import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '#infra/local/policy';

const arn = 'arn:aws:execute-api:us-east-1:000000000000:localdataset/local/POST/api/core/dataset/create';
type Statement = APIGatewayAuthorizerResult['policyDocument']['Statement'][number];
const statement = (Effect: 'Allow' | 'Deny', Resource: string | string[]): Statement => ({
  Effect,
  Action: 'execute-api:Invoke',
  Resource,
});
const policy = (...Statement: Statement[]): APIGatewayAuthorizerResult => ({
  principalId: 'p',
  policyDocument: { Version: '2012-10-17', Statement },
});

describe('evaluatePolicy (the local gateway applies an authorizer policy like API Gateway)', () => {
  it('allows a method covered by an Allow statement, with wildcards', () => {
    expect(evaluatePolicy(policy(statement('Allow', arn)), arn)).toBe('allow');
    expect(evaluatePolicy(policy(statement('Allow', 'arn:aws:execute-api:*:*:localdataset/*')), arn)).toBe('allow');
  });

  it('denies a method of another API even when the policy allows its own', () => {
    const other = 'arn:aws:execute-api:us-east-1:000000000000:localproxy/local/POST/api/channels/import/legacygw';

    expect(evaluatePolicy(policy(statement('Allow', arn)), other)).toBe('deny');
  });

  it('lets an explicit Deny win over an Allow', () => {
    expect(evaluatePolicy(policy(statement('Allow', '*'), statement('Deny', arn)), arn)).toBe('deny');
  });

  it('treats a result without a policy document as invalid', () => {
    expect(evaluatePolicy({ principalId: 'p' } as never, arn)).toBe('invalid');
  });
});
