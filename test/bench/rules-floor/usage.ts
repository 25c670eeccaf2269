/** Rules floor of the usage API: its SDK floor plus zod/mini with `usageEnvSchema` parsed and the Powertools Logger. */
import { loadConfig, usageEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/usage.ts';

export const config = loadConfig(usageEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
