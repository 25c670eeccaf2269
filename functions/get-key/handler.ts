import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, relayKeysEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { type GetKeyDeps, getKey } from './get-key.ts';

const config = loadConfig(relayKeysEnvSchema);
const logger = createLogger('get-key', config.LOG_LEVEL);
const deps: GetKeyDeps = {
  repo: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]),
  now: () => new Date(),
};

/** GET /api/key/{id} behind the authorizer. */
export const handler = adminHandler(logger, (event) => getKey(event.pathParameters?.id, deps));
