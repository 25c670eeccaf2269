import { FRESH_READ_INTERVAL_MS } from '#shared/access-tokens';
import { authorizerEnvSchema, ENV, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';
import { createAuthorizer } from './authorizer.ts';
import {
  clearSecretsCache as clearCachedSecrets,
  freshReadLimiter,
  secretsManagerCredentialSource,
} from './credential-source.ts';

const config = loadConfig(authorizerEnvSchema);

let mayReadFresh = freshReadLimiter(FRESH_READ_INTERVAL_MS);

/** Forgets the cached secrets and the last fresh read, as a new execution environment would (tests). */
export function clearSecretsCache(): void {
  clearCachedSecrets();
  mayReadFresh = freshReadLimiter(FRESH_READ_INTERVAL_MS);
}

/** The deployed authorizer: the credentials in Secrets Manager, through Powertools' cache. */
export const handler = createAuthorizer({
  source: secretsManagerCredentialSource({
    accessTokensSecretId: config[ENV.accessTokensSecretId],
    adminKeySecretId: config[ENV.adminKeySecretId],
    maxAgeS: config[ENV.secretsMaxAgeS],
  }),
  logger: createLogger('authorizer', config[ENV.logLevel]),
  mayReadFresh: () => mayReadFresh(),
});
