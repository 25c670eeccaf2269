import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type DeleteChannelDeps, deleteChannel } from './delete-channel.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('delete-channel', config.LOG_LEVEL);
const deps: DeleteChannelDeps = { repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE), logger };

/** DELETE /api/channel/{id} behind the authorizer. */
export const handler = adminHandler(logger, (event) => deleteChannel(event.pathParameters?.id, deps));
