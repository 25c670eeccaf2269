import type { Logger } from '@aws-lambda-powertools/logger';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayTokenAuthorizerEvent,
} from 'aws-lambda';
import type { CredentialSource } from '#shared/access-tokens';
import { type LambdaHandler, withLambdaContext } from '#shared/logger';
import { relayAuthorizerContext } from '#shared/relay-keys';
import { denyPolicy, type PolicyDecision, type Principal, policyFor, UnusableMethodArnError } from './policy.ts';
import type { RelayKeyLookup } from './relay-key-lookup.ts';
import { type Verification, verifyToken } from './verify-token.ts';

/**
 * The authorizer as API Gateway calls it (and as the local server calls it): TOKEN on `Authorization` for most methods,
 * REQUEST for a route whose key may also come in `x-api-key` (shared/routes.ts `keyHeader`).
 */
export type Authorizer = LambdaHandler<
  APIGatewayTokenAuthorizerEvent | APIGatewayRequestAuthorizerEvent,
  APIGatewayAuthorizerResult
>;

/**
 * The credential of a REQUEST event: `Authorization` when present, else `x-api-key` read as a bearer token (Anthropic's
 * SDKs send the key there). Header names are matched without case, as HTTP's are.
 */
export function requestCredential(headers: Readonly<Record<string, string | undefined>> | null): string | undefined {
  let authorization: string | undefined;
  let apiKey: string | undefined;
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' && value) authorization = value;
    else if (lower === 'x-api-key' && value) apiKey = value;
  }
  return authorization ?? (apiKey !== undefined ? `Bearer ${apiKey}` : undefined);
}

export interface AuthorizerOptions {
  /** Where the admin key and the access tokens come from (Secrets Manager deployed, a file locally). */
  readonly source: CredentialSource;
  readonly logger: Logger;
  /** Whether an unknown token may get a second look at freshly read credentials now (rate limit). */
  readonly mayReadFresh?: () => boolean;
  /** Relay keys by their keyed hash (the `relayKeys` table through a cache); without it no relay key is recognised. */
  readonly relayKeys?: RelayKeyLookup;
  readonly now?: () => Date;
}

const ADMIN: Principal = { scope: 'admin', tokenId: 'admin', teamId: '', tmbId: '' };

function decide(methodArn: string, verification: Exclude<Verification, { kind: 'malformed' }>): PolicyDecision {
  switch (verification.kind) {
    case 'unknown':
      return denyPolicy(methodArn, 'unknown', 'unknown-token');
    case 'expired':
      return denyPolicy(methodArn, verification.record.id, 'expired-token');
    case 'admin':
      return policyFor(methodArn, ADMIN);
    case 'access': {
      const { id, teamId, tmbId } = verification.record;
      return policyFor(methodArn, { scope: 'dataset', tokenId: id, teamId, tmbId });
    }
    case 'relay':
      return policyFor(methodArn, { scope: 'relay', context: relayAuthorizerContext(verification.record) });
    case 'relay-denied':
      return denyPolicy(
        methodArn,
        verification.record.id,
        verification.reason === 'expired' ? 'expired-relay-key' : 'disabled-relay-key',
      );
  }
}

/**
 * The TOKEN authorizer of the three APIs over a credential source and the relay keys. Throwing exactly `Unauthorized` makes
 * API Gateway answer 401 (UNAUTHORIZED); a Deny policy gives ACCESS_DENIED; any other error gives 500
 * and is not cached. Logs name the token id at most: never the token, the header or the event; they
 * carry the Lambda context.
 */
export function createAuthorizer(options: AuthorizerOptions): Authorizer {
  const { source, logger, mayReadFresh = () => false, relayKeys, now = () => new Date() } = options;
  return withLambdaContext(logger, async (event) => {
    let verification: Verification;
    try {
      const token = event.type === 'REQUEST' ? requestCredential(event.headers) : event.authorizationToken;
      verification = await verifyToken(token ?? '', source, now(), mayReadFresh, relayKeys);
    } catch (error) {
      // Fail closed: no policy at all, and nothing API Gateway would cache.
      logger.error('Could not verify the token; failing closed', error as Error);
      throw new Error('Authorizer failure');
    }
    if (verification.kind === 'malformed') {
      logger.info('Rejected a missing or malformed Authorization header');
      throw new Error('Unauthorized');
    }

    let decision: PolicyDecision;
    try {
      decision = decide(event.methodArn, verification);
    } catch (error) {
      // A valid credential and a method ARN no scoped policy can be built from (policy.ts): never a cached Deny.
      if (!(error instanceof UnusableMethodArnError)) throw error;
      logger.error('Could not build a policy from the method ARN; failing closed', { methodArn: event.methodArn });
      throw new Error('Authorizer failure');
    }
    const { principalId } = decision.result;
    if (decision.denied) logger.info('Denied', { principalId, reason: decision.denied, methodArn: event.methodArn });
    else if (decision.coversMethod) logger.info('Allowed', { principalId, methodArn: event.methodArn });
    // The Allow is the same for every path (policy.ts): here it opens its own API's routes, not this method.
    else
      logger.info('Allowed its own API only: the method asked about is not one of its routes', {
        principalId,
        methodArn: event.methodArn,
      });
    return decision.result;
  });
}
