import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, type RelayConfig } from '../config.ts';
import { createDynamoRelay } from './dynamo-relay.ts';
import { DynamoQuotaStore, DynamoRatioSource, QuotaMeter } from './quota.ts';
import { QuotaLeases } from './quota-lease.ts';
import { DynamoLeaseStore } from './quota-lease-store.ts';
import type { Relay } from './relay.ts';
import type { RelayLogger } from './responses.ts';

/**
 * The routing core on DynamoDB from a function's configuration (the `/v1` function, the channel test), built once per
 * execution environment (docs/relay.md).
 */
export function relayOnDynamo(
  client: DynamoDBDocumentClient,
  config: RelayConfig,
  logger: RelayLogger,
  meter?: QuotaMeter,
): Relay {
  return createDynamoRelay({
    client,
    tables: {
      channels: config[ENV.channelsTable],
      relayState: config[ENV.relayStateTable],
      usage: config[ENV.usageTable],
    },
    allowedHosts: config[ENV.relayAllowedHosts],
    ...(config[ENV.relayMaxAttempts] !== undefined ? { maxAttempts: config[ENV.relayMaxAttempts] } : {}),
    firstByteTimeoutMs: config[ENV.relayFirstByteTimeoutMs],
    usageRetentionDays: config[ENV.usageRetentionDays],
    // Fields only: the core never hands a key, a body or an upstream's raw error text to its logger.
    logger,
    ...(meter ? { meter } : {}),
  });
}

/**
 * Quota admission and metering on the relay keys table and the imported ratios (docs/relay.md, "Quotas"); undefined
 * where the function has no relay keys table (the channel test meters nothing).
 */
export function quotaOnDynamo(
  client: DynamoDBDocumentClient,
  config: RelayConfig,
  logger: RelayLogger,
): QuotaMeter | undefined {
  const table = config[ENV.relayKeysTable];
  if (table === undefined) return undefined;
  const onError = (message: string, error: unknown) => logger.warn(message, { error: String(error) });
  const store = new DynamoQuotaStore(client, table);
  // Blocks of quota per instance, so admission needs no round trip (docs/performance.md, "Quotas: the lease").
  const leases = new QuotaLeases(new DynamoLeaseStore(client, table, store), {}, onError);
  return new QuotaMeter(store, new DynamoRatioSource(client, config[ENV.relayStateTable]), onError, leases);
}
