import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, relayKeysEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { type ListKeysDeps, listKeys } from './list-keys.ts';

const config = loadConfig(relayKeysEnvSchema);
const logger = createLogger('list-keys', config.LOG_LEVEL);
const deps: ListKeysDeps = {
  repo: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]),
  now: () => new Date(),
};

/** GET /api/keys behind the authorizer. */
export const handler = adminHandler(logger, () => listKeys(deps));
