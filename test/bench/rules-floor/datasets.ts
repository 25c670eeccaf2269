/**
 * Rules floor of the knowledge-base functions without metrics (list, detail, update, paths): their SDK
 * floor plus zod/mini with the table and log-level environment parsed (`datasetsEnvSchema`) and the
 * Powertools Logger, as every such function sets them up at module load. update-dataset's model
 * catalogue is its own, not the rules'.
 */
import { datasetsEnvSchema, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/datasets.ts';

export const config = loadConfig(datasetsEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
