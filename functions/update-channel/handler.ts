import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler, proxyBody } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { ChannelRepository } from '#shared/repositories/channels';
import { channelChanges, type UpdateChannelDeps, updateChannel, updateChannelBodySchema } from './update-channel.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('update-channel', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: UpdateChannelDeps = {
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  now: () => new Date(),
  logger,
};

/** PUT /api/channel/{id} behind the authorizer. */
export const handler = adminHandler(
  logger,
  async (event) => {
    const changes = channelChanges(proxyBody(event, updateChannelBodySchema));
    const channel = await updateChannel(event.pathParameters?.id, changes, deps);
    addMetric(metrics, BUSINESS_METRICS.channelsEdited, 1);
    return channel;
  },
  { metrics },
);
