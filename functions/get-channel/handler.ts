import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type GetChannelDeps, getChannel } from './get-channel.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('get-channel', config.LOG_LEVEL);
const deps: GetChannelDeps = { repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE) };

/** GET /api/channel/{id} behind the authorizer. */
export const handler = adminHandler(logger, (event) => getChannel(event.pathParameters?.id, deps));
