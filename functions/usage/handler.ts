import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, usageEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { UsageRepository } from '#shared/repositories/usage';
import { parseUsageQuery } from './schema.ts';
import { readUsage, type UsageDeps } from './usage.ts';

const config = loadConfig(usageEnvSchema);
const logger = createLogger('usage', config.LOG_LEVEL);
const deps: UsageDeps = { store: new UsageRepository(documentClient, config[ENV.usageTable]), logger };

/** GET /api/usage behind the authorizer. */
export const handler = adminHandler(logger, (event) =>
  readUsage(parseUsageQuery(event.multiValueQueryStringParameters, new Date()), deps),
);
