/**
 * Rules floor of the authorizer: its SDK floor plus zod/mini with its environment parsed
 * (`authorizerEnvSchema`: secret ids, cache age and log level, nothing more), the Powertools Logger,
 * and Powertools Parameters' secrets getter, which the rules make it read its secrets through (loaded,
 * not called: the function's first call is in its first invocation).
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { authorizerEnvSchema, loadConfig } from '#shared/config';
import { createLogger } from '#shared/logger';

export * from '../sdk-floor/authorizer.ts';
export { getSecret };

export const config = loadConfig(authorizerEnvSchema);
export const logger = createLogger('rules-floor', config.LOG_LEVEL);
