import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, relayKeysEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { type DeleteKeyDeps, deleteKey } from './delete-key.ts';

const config = loadConfig(relayKeysEnvSchema);
const logger = createLogger('delete-key', config.LOG_LEVEL);
const deps: DeleteKeyDeps = { repo: new RelayKeysRepository(documentClient, config[ENV.relayKeysTable]), logger };

/** DELETE /api/key/{id} behind the authorizer. */
export const handler = adminHandler(logger, (event) => deleteKey(event.pathParameters?.id, deps));
