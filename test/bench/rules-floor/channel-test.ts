/**
 * Rules floor of the channel test and the re-test: their SDK floor (the relay's) plus zod/mini with their two
 * environments parsed (`channelsEnvSchema`, `relayEnvSchema`) and the Powertools Logger, as both set them up at module
 * load.
 */
import { channelsEnvSchema, loadConfig, relayEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/relay.ts';

export const config = loadConfig(channelsEnvSchema);
export const relayConfig = loadConfig(relayEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
