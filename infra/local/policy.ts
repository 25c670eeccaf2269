import type { APIGatewayAuthorizerResult } from 'aws-lambda';

/** Outcome of applying an authorizer's policy to one method ARN, as API Gateway decides it. */
export type PolicyDecision = 'allow' | 'deny' | 'invalid';

/** Matches an IAM resource pattern (`*` any run of characters, `?` any one) against an ARN. */
export function resourceMatches(pattern: string, arn: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(arn);
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** Evaluates an authorizer result against `methodArn`: an explicit Deny wins, then an Allow, else deny. */
export function evaluatePolicy(result: APIGatewayAuthorizerResult, methodArn: string): PolicyDecision {
  const statements = result?.policyDocument?.Statement;
  if (!Array.isArray(statements) || typeof result.principalId !== 'string') return 'invalid';
  let allowed = false;
  for (const statement of statements as unknown as Record<string, unknown>[]) {
    const actions = asArray(statement.Action);
    const resources = asArray(statement.Resource);
    const invokes = actions.some((a) => typeof a === 'string' && resourceMatches(a, 'execute-api:Invoke'));
    const covers = resources.some((r) => typeof r === 'string' && resourceMatches(r, methodArn));
    if (!invokes || !covers) continue;
    if (statement.Effect === 'Deny') return 'deny';
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed ? 'allow' : 'deny';
}
