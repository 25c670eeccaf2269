import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { BODY_PROBLEMS, parseJsonObjectBody } from '#shared/http';
import { createLogger } from '#shared/logger';
import { addMetric, BUSINESS_METRICS, createMetrics } from '#shared/metrics';
import { ChannelRepository } from '#shared/repositories/channels';
import { parseChannelUpdate, type UpdateChannelDeps, updateChannel } from './update-channel.ts';

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
    const body = parseJsonObjectBody(event);
    if (!body.ok) throw new ProxyApiError(400, BODY_PROBLEMS[body.reason]);
    const channel = await updateChannel(event.pathParameters?.id, parseChannelUpdate(body.value), deps);
    addMetric(metrics, BUSINESS_METRICS.channelsEdited, 1);
    return channel;
  },
  { metrics },
);
