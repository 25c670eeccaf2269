import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ChannelTester, type TestChannelDeps, testChannel } from './test-channel.ts';

const config = loadConfig(channelsEnvSchema);
const logger = createLogger('test-channel', config.LOG_LEVEL);

// INTEGRATION (relay-core): replace with the relay's tester, built once per execution environment, e.g.
//   const relay = createRelay({ ...deps from relay-core's handler wiring });
//   const tester: ChannelTester = (channel) => relay.testChannel(channel);
// imported from '#shared/relay/relay'. Until then the route answers 501 after its 400/404 checks: it never pretends
// a channel was tested.
const tester: ChannelTester = async () => {
  throw new ProxyApiError(501, 'The channel test needs the relay, which this build does not include', {
    expose: true,
  });
};

const deps: TestChannelDeps = {
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  tester,
  logger,
};

/** POST /api/channel/{id}/test behind the authorizer. */
export const handler = adminHandler(logger, (event) => testChannel(event.pathParameters?.id, deps));
