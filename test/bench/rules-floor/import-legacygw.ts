/**
 * Rules floor of import-legacygw: its SDK floor plus zod/mini with a table and log-level environment
 * parsed (`channelsEnvSchema`), the Powertools Logger and Metrics. The import's own settings (row and
 * time limits, the allow-list and CA bundle, which bring `node:net` and `node:crypto`) are its own.
 */
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';

export * from '../sdk-floor/import-legacygw.ts';

export const config = loadConfig(channelsEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
export const metrics = createMetrics();
