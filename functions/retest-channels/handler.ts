import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { documentClient } from '#shared/clients/dynamodb';
import { channelsEnvSchema, ENV, loadConfig, relayEnvSchema } from '#shared/config';
import { createLogger } from '#shared/logger';
import { HEALTH_PARTITION } from '#shared/relay/health';
import { relayOnDynamo } from '#shared/relay/runtime';
import { type RetestReport, retestChannels } from './retest-channels.ts';
import { DynamoRetestStore } from './store.ts';

const config = loadConfig(channelsEnvSchema);
const relayConfig = loadConfig(relayEnvSchema);
const logger = createLogger('retest-channels', config.LOG_LEVEL);

// The relay's own channel test, built once per execution environment (as the test-channel function builds it).
const relay = relayOnDynamo(documentClient, relayConfig, logger);
const store = new DynamoRetestStore(documentClient, config.CHANNELS_TABLE);

/** The EventBridge schedule's target (and `npm start`'s timer): re-tests every auto-disabled channel. */
export const handler = async (_event?: Partial<ScheduledEvent>): Promise<RetestReport> =>
  retestChannels({
    store,
    tester: (channel) => relay.testChannel(channel),
    // The channel's failure counts in the relay's health (one DeleteItem), as a relayed success forgets them.
    resetHealth: async (channelId) => {
      await documentClient.send(
        new DeleteCommand({
          TableName: relayConfig[ENV.relayStateTable],
          Key: { pk: HEALTH_PARTITION, sk: channelId },
        }),
      );
    },
    now: () => new Date(),
    logger,
  });
