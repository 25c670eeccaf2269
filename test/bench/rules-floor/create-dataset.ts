/**
 * Rules floor of create-dataset: its SDK floor plus what the project's rules make every such function
 * do at module load (zod/mini and one environment parse, the Powertools Logger and Metrics), built with
 * the shared modules the functions use. The environment schema is the table and log level
 * (`datasetsEnvSchema`): the model catalogue of the function's own schema is the function's own.
 */
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';

export * from '../sdk-floor/create-dataset.ts';

export const config = loadConfig(datasetsEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
export const metrics = createMetrics();
