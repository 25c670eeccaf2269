/**
 * Rules floor of the channel review functions without metrics (list, detail, delete, batch delete):
 * their SDK floor plus zod/mini with their environment parsed (`channelsEnvSchema`) and the
 * Powertools Logger, as the functions set them up at module load.
 */
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/channel-review.ts';

export const config = loadConfig(channelsEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
