import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AllowList } from '../allow-list.ts';
import { DynamoChannelSource } from './channel-source.ts';
import type { UsageSink } from './contract.ts';
import { type Clock, DynamoHealthStore } from './health.ts';
import type { QuotaMeter } from './quota.ts';
import { createRelay, type Relay, type RelayLogger } from './relay.ts';
import { DynamoRoutingOptionsSource } from './routing-options.ts';
import { DEFAULT_USAGE_RETENTION_DAYS, DynamoUsageSink } from './usage-store.ts';

const meteredSink = (sink: UsageSink, meter: Pick<QuotaMeter, 'sink'> | undefined): UsageSink =>
  meter ? meter.sink(sink) : sink;

/** The physical names of the tables the relay uses (the front door reads them from its configuration). */
export interface RelayTableNames {
  readonly channels: string;
  readonly relayState: string;
  readonly usage: string;
}

export interface DynamoRelayOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tables: RelayTableNames;
  readonly allowedHosts: AllowList;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** RELAY_MAX_ATTEMPTS; unset: the imported RetryTimes + 1, else 3 (docs/relay.md, "Routing options"). */
  readonly maxAttempts?: number;
  readonly firstByteTimeoutMs?: number;
  /** USAGE_RETENTION_DAYS (default 90). */
  readonly usageRetentionDays?: number;
  /** Channel snapshot age before a background rescan (default 5000 ms). */
  readonly channelsMaxAgeMs?: number;
  readonly logger?: RelayLogger;
  /** Prices each usage record and settles its key's quota reservation before it is written (docs/relay.md, "Quotas"). */
  readonly meter?: Pick<QuotaMeter, 'sink'>;
}

/** The relay wired to DynamoDB: the one construction every front door (the /v1 function, the training) shares. */
export function createDynamoRelay(options: DynamoRelayOptions): Relay & { readonly channels: DynamoChannelSource } {
  const clock = options.clock ?? { now: () => Date.now() };
  const onError = (message: string, error: unknown) => options.logger?.warn(message, { error: String(error) });
  const channels = new DynamoChannelSource({
    client: options.client,
    tableName: options.tables.channels,
    clock,
    onError,
    ...(options.channelsMaxAgeMs !== undefined ? { maxAgeMs: options.channelsMaxAgeMs } : {}),
  });
  const relay = createRelay({
    channels,
    health: new DynamoHealthStore({
      client: options.client,
      tableName: options.tables.relayState,
      channelsTableName: options.tables.channels,
      clock,
      onError,
    }),
    usage: meteredSink(
      new DynamoUsageSink(
        options.client,
        options.tables.usage,
        options.usageRetentionDays ?? DEFAULT_USAGE_RETENTION_DAYS,
      ),
      options.meter,
    ),
    clock,
    random: options.random ?? Math.random,
    allowedHosts: options.allowedHosts,
    routingOptions: new DynamoRoutingOptionsSource(options.client, options.tables.relayState),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { ...relay, channels };
}
