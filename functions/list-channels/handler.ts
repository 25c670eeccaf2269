import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ListDeps, listChannels, parseListQuery } from './list-channels.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('list-channels', config.LOG_LEVEL);
const deps: ListDeps = { repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE), logger };

/** GET /api/channels/ behind the authorizer. */
export const handler = adminHandler(logger, (event) =>
  listChannels(parseListQuery(event.multiValueQueryStringParameters), deps),
);
