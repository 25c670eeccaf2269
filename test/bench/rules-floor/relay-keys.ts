/**
 * Rules floor of the key API (list, detail, update, delete; create parses one more optional variable): its SDK floor
 * plus zod/mini with `relayKeysEnvSchema` parsed and the Powertools Logger.
 */
import { loadConfig, relayKeysEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/relay-keys.ts';

export const config = loadConfig(relayKeysEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
