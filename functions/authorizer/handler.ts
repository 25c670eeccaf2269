import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorizerEnvSchema, ENV, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';
import {
  type CredentialSource,
  clearSecretsCache as clearCachedSecrets,
  freshReadLimiter,
  localFileCredentialSource,
  secretsManagerCredentialSource,
} from './credential-source.ts';
import { denyPolicy, type PolicyDecision, type Principal, policyFor } from './policy.ts';
import { type Verification, verifyToken } from './verify-token.ts';

const config = loadConfig(authorizerEnvSchema);
const logger = createLogger('authorizer', config[ENV.logLevel]);

const localCredentialsFile = config[ENV.localCredentialsFile];
const source: CredentialSource = localCredentialsFile
  ? localFileCredentialSource(localCredentialsFile)
  : secretsManagerCredentialSource({
      // The schema requires both ids whenever no local credentials file is set.
      accessTokensSecretId: config[ENV.accessTokensSecretId] ?? '',
      adminKeySecretId: config[ENV.adminKeySecretId] ?? '',
      maxAgeS: config[ENV.secretsMaxAgeS],
    });

/** At most one cache-bypassing read of the secrets per second in this execution environment. */
export const FRESH_READ_INTERVAL_MS = 1_000;
let mayReadFresh = freshReadLimiter(FRESH_READ_INTERVAL_MS);

/** Forgets the cached secrets and the last fresh read, as a new execution environment would (tests). */
export function clearSecretsCache(): void {
  clearCachedSecrets();
  mayReadFresh = freshReadLimiter(FRESH_READ_INTERVAL_MS);
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
  }
}

/**
 * TOKEN authorizer for both APIs. Throwing exactly `Unauthorized` makes API Gateway answer 401
 * (UNAUTHORIZED); a Deny policy gives ACCESS_DENIED; any other error gives 500 and is not cached.
 * Logs name the token id at most: never the token, the header or the event.
 */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  let verification: Verification;
  try {
    verification = await verifyToken(event.authorizationToken, source, new Date(), mayReadFresh);
  } catch (error) {
    // Fail closed: no policy at all, and nothing API Gateway would cache.
    logger.error('Could not verify the token; failing closed', error as Error);
    throw new Error('Authorizer failure');
  }
  if (verification.kind === 'malformed') {
    logger.info('Rejected a missing or malformed Authorization header');
    throw new Error('Unauthorized');
  }

  const decision = decide(event.methodArn, verification);
  const { principalId } = decision.result;
  if (decision.denied) logger.info('Denied', { principalId, reason: decision.denied, methodArn: event.methodArn });
  else logger.info('Allowed', { principalId, methodArn: event.methodArn });
  return decision.result;
};
