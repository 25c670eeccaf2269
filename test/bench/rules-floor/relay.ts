/**
 * Rules floor of the `/v1` function: its SDK floor plus zod/mini with its environment parsed (`relayEnvSchema`), the
 * Powertools Logger and Powertools Metrics (its per-channel metrics), made at module load as the other functions make
 * them. The function itself makes the two on their first line since 2026-11-28 (docs/performance.md, "The relay's
 * module load"), so it reads closer to this floor than its own code costs.
 * The routing core, the providers, the front door, quotas and the key marker are the function's own.
 */
import { loadConfig, relayEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';

export * from '../sdk-floor/relay.ts';

export const config = loadConfig(relayEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
export const metrics = createMetrics();
