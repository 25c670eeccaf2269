import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, relayKeysEnvSchema } from '#shared/config';
import { adminHandler, proxyBody } from '#shared/envelopes/proxy';
import { keyUpdateBodySchema } from '#shared/key-view';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { type UpdateKeyDeps, updateKey } from './update-key.ts';

const config = loadConfig(relayKeysEnvSchema);
const logger = createLogger('update-key', config.LOG_LEVEL);
const deps: UpdateKeyDeps = {
  repo: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]),
  now: () => new Date(),
  logger,
};

/** PUT /api/key/{id} behind the authorizer. */
export const handler = adminHandler(logger, (event) =>
  updateKey(event.pathParameters?.id, proxyBody(event, keyUpdateBodySchema), deps),
);
