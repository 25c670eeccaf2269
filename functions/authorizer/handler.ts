import { FRESH_READ_INTERVAL_MS } from '#shared/access-tokens';
import { channelIdKeyFromSecret } from '#shared/channel-id-key';
import { documentClient } from '#shared/clients/dynamodb';
import { authorizerEnvSchema, ENV, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { createAuthorizer } from './authorizer.ts';
import {
  clearSecretsCache as clearCachedSecrets,
  freshReadLimiter,
  secretsManagerCredentialSource,
} from './credential-source.ts';
import { cachedRelayKeyLookup } from './relay-key-lookup.ts';

const config = loadConfig(authorizerEnvSchema);

const readChannelIdKey = () => channelIdKeyFromSecret(config[ENV.channelIdKeySecretId]);
let channelIdKey = readChannelIdKey();
// A found relay key is reused as long as a cached secret is: one revocation bound for every credential kind.
const relayKeys = cachedRelayKeyLookup({
  store: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]),
  hmacKey: () => channelIdKey(),
  maxAgeMs: config[ENV.secretsMaxAgeS] * 1000,
});

let mayReadFresh = freshReadLimiter(FRESH_READ_INTERVAL_MS);

/** Forgets the cached secrets, relay keys and the last fresh read, as a new execution environment would (tests). */
export function clearSecretsCache(): void {
  clearCachedSecrets();
  relayKeys.clear();
  channelIdKey = readChannelIdKey();
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
  relayKeys,
});
