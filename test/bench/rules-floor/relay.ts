/**
 * Rules floor of the `/v1` function: its SDK floor plus zod/mini with its environment parsed (`relayEnvSchema`), the
 * Powertools Logger and Powertools Metrics (its per-channel metrics), as the function sets them up at module load.
 * The routing core, the providers, the front door, quotas and the key marker are the function's own.
 */
import { loadConfig, relayEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';

export * from '../sdk-floor/relay.ts';

export const config = loadConfig(relayEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
export const metrics = createMetrics();
