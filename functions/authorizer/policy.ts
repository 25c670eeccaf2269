import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import type { RelayAuthorizerContext } from '#shared/relay-keys';
import { APIS, findRoute, requiresAuthorizer, routeResourcePatterns } from '#shared/routes';

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

// The parts a policy copies into its resources, each in the only characters API Gateway gives it: none can hold `*` or
// `?`, which would widen a resource. The method and the path are never copied (the Allow lists the route table's
// routes), so they may hold anything a request can carry, `*` and `?` included.
const PREFIX_PARTS = {
  partition: /^aws(-[a-z]+)*$/,
  region: /^[a-z0-9-]+$/,
  accountId: /^\d{12}$/,
  apiId: /^[A-Za-z0-9_-]+$/,
  stage: /^[A-Za-z0-9_-]+$/,
} as const;

/**
 * Splits a method ARN, or returns undefined when it is not one or when a part a policy copies (partition, region,
 * account, API id, stage) holds anything but the characters API Gateway gives it, `*` and `?` included. The method and
 * resource path are returned as sent: a request to `/api/channel/*` has that path.
 */
export function parseMethodArn(methodArn: string): MethodArn | undefined {
  const m = METHOD_ARN.exec(methodArn);
  if (!m) return undefined;
  const [, partition = '', region = '', accountId = '', apiId = '', stage = '', method = '', resourcePath] = m;
  const arn = { partition, region, accountId, apiId, stage, method, resourcePath: resourcePath ?? '/' };
  for (const [part, allowed] of Object.entries(PREFIX_PARTS)) {
    if (!allowed.test(arn[part as keyof typeof PREFIX_PARTS])) return undefined;
  }
  return method ? arn : undefined;
}

/** Who a verified access token or the admin key belongs to; the context fields reach the handlers as strings. */
export interface TokenPrincipal {
  readonly scope: 'dataset' | 'admin';
  /** Access token id, or "admin"; never the token itself. */
  readonly tokenId: string;
  readonly teamId: string;
  readonly tmbId: string;
}

/** A verified relay key: what the relay gets in the context (shared/relay-keys.ts), never the key or its hash. */
export interface RelayPrincipal {
  readonly scope: 'relay';
  readonly context: RelayAuthorizerContext;
}

export type Principal = TokenPrincipal | RelayPrincipal;

const principalIdOf = (principal: Principal): string =>
  principal.scope === 'relay' ? principal.context.keyId : principal.tokenId;

const contextOf = (principal: Principal): APIGatewayAuthorizerResult['context'] =>
  principal.scope === 'relay'
    ? { ...principal.context }
    : { scope: principal.scope, teamId: principal.teamId, tmbId: principal.tmbId, tokenId: principal.tokenId };

/**
 * The method ARN of a request that a valid credential came with cannot be turned into a scoped policy: a part the
 * policy would copy is not what API Gateway writes there. The authorizer fails closed (500, nothing cached) rather than
 * deny a valid credential (a Deny would be cached for every route) or widen its Allow.
 */
export class UnusableMethodArnError extends Error {}

/** Why a policy denies. */
export type DenyReason =
  | 'unparseable-method-arn'
  | 'unknown-token'
  | 'expired-token'
  | 'expired-relay-key'
  | 'disabled-relay-key';

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
 * method of another API) would lock the token out of every route until the cache expires. It allows
 * exactly the routes of the API the principal's scope opens (from the route table, never from the request's
 * path), under the region, account, API id and stage of `methodArn`: called on another API, it covers none of
 * that API's methods (its routes are other paths), so a cached policy can never open another API, and API
 * Gateway answers 403 there. An unknown path is API Gateway's 404, or the function's. Throws
 * UnusableMethodArnError when the ARN's API id, stage, account, region or partition is not API Gateway's shape.
 */
export function policyFor(methodArn: string, principal: Principal): PolicyDecision {
  const arn = parseMethodArn(methodArn);
  if (!arn)
    throw new UnusableMethodArnError(
      'the method ARN has no API Gateway prefix (partition, region, account, API id, stage)',
    );
  const api = Object.values(APIS).find((a) => a.scope === principal.scope);
  // Every scope opens one API (shared/routes.ts); a missing one is a programming error and fails closed.
  if (!api) throw new Error(`no API is opened by scope ${principal.scope}`);

  return {
    coversMethod: findRoute(arn.method, arn.resourcePath)?.api === api,
    result: {
      principalId: principalIdOf(principal),
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
      context: contextOf(principal),
    },
  };
}
