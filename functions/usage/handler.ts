import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, usageEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { UsageRepository } from '#shared/repositories/usage';
import { parseUsageQuery } from './schema.ts';
import { readUsage, type UsageDeps } from './usage.ts';

const config = loadConfig(usageEnvSchema);
const logger = createLogger('usage', config.LOG_LEVEL);
const channels = new ChannelRepository(documentClient, config[ENV.channelsTable]);
const deps: UsageDeps = {
  store: new UsageRepository(documentClient, config[ENV.usageTable]),
  // Names for the report's channel rows: BatchGetItem of id, name and provider only (never a key).
  channelLabels: (ids) => channels.getLabels(ids),
  logger,
};

/** GET /api/usage behind the authorizer. */
export const handler = adminHandler(logger, (event) =>
  readUsage(parseUsageQuery(event.multiValueQueryStringParameters, new Date()), deps),
);
