import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { APIS, findRoute, requiresAuthorizer, routeResourcePatterns, type Scope } from '#shared/routes';

/** The parts of `arn:{partition}:execute-api:{region}:{account}:{apiId}/{stage}/{METHOD}/{resource path}`. */
export interface MethodArn {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
  readonly apiId: string;
  readonly stage: string;
  readonly method: string;
  /** With its leading slash, as in the route table. */
  readonly resourcePath: string;
}

const METHOD_ARN = /^arn:([^:]+):execute-api:([^:]+):([^:]+):([^:/]+)\/([^/]+)\/([^/]+)(\/.*)?$/;

/**
 * Splits a method ARN, or returns undefined. An ARN holding `*` or `?` is refused: the policy
 * copies its parts into resources, where those characters would widen what is allowed.
 */
export function parseMethodArn(methodArn: string): MethodArn | undefined {
  if (/[*?]/.test(methodArn)) return undefined;
  const m = METHOD_ARN.exec(methodArn);
  if (!m) return undefined;
  const [, partition, region, accountId, apiId, stage, method, resourcePath] = m;
  if (!partition || !region || !accountId || !apiId || !stage || !method) return undefined;
  return { partition, region, accountId, apiId, stage, method, resourcePath: resourcePath ?? '/' };
}

/** Who a verified token belongs to; the context fields reach the handlers as strings. */
export interface Principal {
  readonly scope: Scope;
  /** Access token id, or "admin"; never the token itself. */
  readonly tokenId: string;
  readonly teamId: string;
  readonly tmbId: string;
}

/** Why a policy denies. */
export type DenyReason = 'unparseable-method-arn' | 'unknown-token' | 'expired-token';

export interface PolicyDecision {
  readonly result: APIGatewayAuthorizerResult;
  /** Set when the policy denies. */
  readonly denied?: DenyReason;
  /** For logs only: whether an Allow covers the method asked about (false: another API's, or no route). */
  readonly coversMethod?: boolean;
}

const stagePrefix = (arn: MethodArn) =>
  `arn:${arn.partition}:execute-api:${arn.region}:${arn.accountId}:${arn.apiId}/${arn.stage}`;

/**
 * A Deny for the whole stage of the API the method belongs to (API Gateway caches the policy per
 * token, so the answer is the same for every method). Without a parseable ARN it denies everything.
 */
export function denyPolicy(methodArn: string, principalId: string, reason: DenyReason): PolicyDecision {
  const arn = parseMethodArn(methodArn);
  return {
    denied: reason,
    result: {
      principalId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Deny', Action: 'execute-api:Invoke', Resource: arn ? `${stagePrefix(arn)}/*` : '*' }],
      },
    },
  };
}

/**
 * The policy for a verified principal, the same whatever method and path `methodArn` names: API Gateway
 * caches it per token, so a decision that depended on the first request's path (an unknown path, a
 * method of the other API) would lock the token out of every route until the cache expires. It allows
 * exactly the routes of the API the principal's scope opens, under the region, account, API id and stage
 * of `methodArn`: called on the other API, it covers none of that API's methods (its routes are other
 * paths), so a cached policy can never open the other API, and API Gateway answers 403 there. An
 * unknown path is API Gateway's 404, or the function's.
 */
export function policyFor(methodArn: string, principal: Principal): PolicyDecision {
  const arn = parseMethodArn(methodArn);
  if (!arn) return denyPolicy(methodArn, principal.tokenId, 'unparseable-method-arn');
  const api = Object.values(APIS).find((a) => a.scope === principal.scope);
  // Every scope opens one API (shared/routes.ts); a missing one is a programming error and fails closed.
  if (!api) throw new Error(`no API is opened by scope ${principal.scope}`);

  return {
    coversMethod: findRoute(arn.method, arn.resourcePath)?.api === api,
    result: {
      principalId: principal.tokenId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Action: 'execute-api:Invoke',
            // Public routes (`auth: 'none'`) never reach the authorizer, so the policy does not list them. A path
            // parameter becomes `*`: the method ARN holds the concrete path (`/api/channel/<id>`).
            Resource: api.routes
              .filter(requiresAuthorizer)
              .flatMap((route) =>
                routeResourcePatterns(route).map((pattern) => `${stagePrefix(arn)}/${route.method}${pattern}`),
              ),
          },
        ],
      },
      context: {
        scope: principal.scope,
        teamId: principal.teamId,
        tmbId: principal.tmbId,
        tokenId: principal.tokenId,
      },
    },
  };
}
