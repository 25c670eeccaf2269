import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type BatchDeleteDeps, batchDeleteChannels, parseBatchIds } from './batch-delete-channels.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('batch-delete-channels', config.LOG_LEVEL);
const deps: BatchDeleteDeps = { repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE), logger };

/** POST /api/channels/batch_delete behind the authorizer. */
export const handler = adminHandler(logger, (event) => batchDeleteChannels(parseBatchIds(event), deps));
