import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, type RelayConfig } from '../config.ts';
import { DynamoChannelSource } from './channel-source.ts';
import { type Clock, DynamoHealthStore } from './health.ts';
import { createRelay, type Relay } from './relay.ts';
import { DynamoUsageSink } from './usage-store.ts';

/**
 * The routing core on DynamoDB, as every front door builds it once per execution environment (the `/v1` function,
 * the channel test): the channels scanned into a snapshot refreshed in the background, health shared through the
 * `relayState` table, usage records into `usage` (docs/relay.md).
 */
export function relayOnDynamo(client: DynamoDBDocumentClient, config: RelayConfig, powertools: Logger): Relay {
  // Fields only: the core never hands a key, a body or an upstream's raw error text to its logger.
  const logger = {
    warn: (message: string, fields: Record<string, unknown> = {}) => powertools.warn(message, fields),
    error: (message: string, fields: Record<string, unknown> = {}) => powertools.error(message, fields),
  };
  const clock: Clock = { now: () => Date.now() };
  const onError = (message: string, error: unknown) => logger.warn(message, { error: String(error) });
  return createRelay({
    channels: new DynamoChannelSource({ client, tableName: config[ENV.channelsTable], clock, onError }),
    health: new DynamoHealthStore({
      client,
      tableName: config[ENV.relayStateTable],
      channelsTableName: config[ENV.channelsTable],
      clock,
      onError,
    }),
    usage: new DynamoUsageSink(client, config[ENV.usageTable], config[ENV.usageRetentionDays]),
    clock,
    random: Math.random,
    maxAttempts: config[ENV.relayMaxAttempts],
    allowedHosts: config[ENV.relayAllowedHosts],
    firstByteTimeoutMs: config[ENV.relayFirstByteTimeoutMs],
    logger,
  });
}
