import { CHANNEL_ID_KEY_FILE_ENV, channelIdKeySource } from '#shared/channel-id-key';
import { documentClient } from '#shared/clients/dynamodb';
import { createKeyEnvSchema, ENV, loadConfig } from '#shared/config';
import { adminHandler, proxyBody } from '#shared/envelopes/proxy';
import { keyCreateBodySchema } from '#shared/key-view';
import { createLogger } from '#shared/logger';
import { newRelayKey, newRelayKeyId } from '#shared/relay-keys';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { type CreateKeyDeps, createKey } from './create-key.ts';

const config = loadConfig(createKeyEnvSchema);
const logger = createLogger('create-key', config.LOG_LEVEL);
const deps: CreateKeyDeps = {
  repo: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]),
  hmacKey: channelIdKeySource({
    secretId: config[ENV.channelIdKeySecretId],
    credentialsFile: process.env[CHANNEL_ID_KEY_FILE_ENV],
  }),
  newKey: newRelayKey,
  newId: newRelayKeyId,
  now: () => new Date(),
  logger,
};

/** POST /api/keys behind the authorizer: the only answer that ever holds a whole key. */
export const handler = adminHandler(logger, (event) => createKey(proxyBody(event, keyCreateBodySchema), deps));
