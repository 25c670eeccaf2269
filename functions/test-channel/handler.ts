import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig, relayEnvSchema } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { relayOnDynamo } from '#shared/relay/runtime';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ChannelTester, type TestChannelDeps, testChannel } from './test-channel.ts';

const config = loadConfig(channelsEnvSchema);
const relayConfig = loadConfig(relayEnvSchema);
const logger = createLogger('test-channel', config.LOG_LEVEL);

// The relay's own routing core, built once per execution environment: the test goes out exactly as a relayed request
// would (provider adapter, settings, checked address), through that one channel only.
const relay = relayOnDynamo(documentClient, relayConfig, logger);
const tester: ChannelTester = (channel) => relay.testChannel(channel);

const deps: TestChannelDeps = {
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  tester,
  logger,
};

/** POST /api/channel/{id}/test behind the authorizer. */
export const handler = adminHandler(logger, (event) => testChannel(event.pathParameters?.id, deps));
