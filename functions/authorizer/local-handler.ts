import { channelIdKeySource } from '#shared/channel-id-key';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig } from '#shared/config';
import {
  LOCAL_CREDENTIALS_FILE_ENV,
  localAuthorizerEnvSchema,
  localFileCredentialSource,
} from '#shared/local-credentials';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { createAuthorizer } from './authorizer.ts';
import { cachedRelayKeyLookup } from './relay-key-lookup.ts';

const config = loadConfig(localAuthorizerEnvSchema);
const relayKeysTable = config[ENV.relayKeysTable];

/**
 * The authorizer of the SAM-ready template only (`npm run synth:sam`, infra/sam.ts): the local run's
 * credentials file, copied beside this bundle. The deployed template bundles handler.ts instead.
 */
export const handler = createAuthorizer({
  source: localFileCredentialSource(config[LOCAL_CREDENTIALS_FILE_ENV]),
  logger: createLogger('authorizer', config[ENV.logLevel]),
  // Relay keys on the local engine (AWS_ENDPOINT_URL_DYNAMODB), hashed under the file's channel-id key.
  relayKeys: relayKeysTable
    ? cachedRelayKeyLookup({
        store: new RelayKeysRepository(documentClient, relayKeysTable),
        hmacKey: channelIdKeySource({ credentialsFile: config[LOCAL_CREDENTIALS_FILE_ENV] }),
        maxAgeMs: 0,
      })
    : undefined,
});
