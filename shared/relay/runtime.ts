import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, type RelayConfig } from '../config.ts';
import { createDynamoRelay } from './dynamo-relay.ts';
import type { Relay } from './relay.ts';

/**
 * The routing core on DynamoDB from a function's configuration (the `/v1` function, the channel test), built once per
 * execution environment (docs/relay.md).
 */
export function relayOnDynamo(client: DynamoDBDocumentClient, config: RelayConfig, logger: Logger): Relay {
  return createDynamoRelay({
    client,
    tables: {
      channels: config[ENV.channelsTable],
      relayState: config[ENV.relayStateTable],
      usage: config[ENV.usageTable],
    },
    allowedHosts: config[ENV.relayAllowedHosts],
    maxAttempts: config[ENV.relayMaxAttempts],
    firstByteTimeoutMs: config[ENV.relayFirstByteTimeoutMs],
    usageRetentionDays: config[ENV.usageRetentionDays],
    // Fields only: the core never hands a key, a body or an upstream's raw error text to its logger.
    logger,
  });
}
