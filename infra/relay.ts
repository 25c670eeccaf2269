import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Architecture } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ENV } from '#shared/config';
import { LABEL_ATTRIBUTES } from '#shared/repositories/channels';
import type { FunctionName } from '#shared/routes';
import { RELAY_KEYS_BY_ID, TABLES } from '#shared/tables';
import { STREAMING_INTEGRATION_TIMEOUT } from './constructs/api.ts';
import { AppFunction } from './constructs/function.ts';
import { AppTable } from './constructs/table.ts';
import { grantBedrock } from './relay-bedrock.ts';
import type { StageConfig } from './stage-config.ts';

type KeyFunction = Extract<FunctionName, `${string}-key` | `${string}-keys`>;

/** What the relay adds to the stack: its three tables and its three functions. */
export interface RelayResources {
  readonly tables: { readonly relayKeys: AppTable; readonly relayState: AppTable; readonly usage: AppTable };
  readonly functions: {
    readonly relay: AppFunction;
    readonly 'test-channel': AppFunction;
    readonly usage: AppFunction;
    readonly 'retest-channels': AppFunction;
    readonly 'list-keys': AppFunction;
    readonly 'create-key': AppFunction;
    readonly 'get-key': AppFunction;
    readonly 'update-key': AppFunction;
    readonly 'delete-key': AppFunction;
  };
}

export interface RelayResourcesProps {
  readonly config: StageConfig;
  readonly channels: AppTable;
  readonly channelIdKey: Secret;
  /** The authorizer: it finds relay keys by keyed hash in the relay keys table. */
  readonly authorizer: AppFunction;
  /** The import: it carries the legacy gateway's tokens over as relay keys and stores its price ratios (docs/relay.md, "Keys"). */
  readonly importFunction?: AppFunction;
  readonly common: {
    readonly logRetention: RetentionDays;
    readonly removalPolicy: RemovalPolicy;
    readonly architecture?: Architecture;
  };
}

/**
 * The relay (docs/relay.md): the relay keys table (keyed hashes only), the shared channel health, the usage records
 * (expiring by TTL), the streaming `/v1` function, the channel test and the usage API, each granted exactly the calls
 * its code makes. The `/v1` function may read channel keys; the knowledge-base functions never get that grant.
 */
export function addRelayResources(scope: Construct, props: RelayResourcesProps): RelayResources {
  const { config, channels, common } = props;
  const table = (id: string, name: 'relayKeys' | 'relayState' | 'usage') =>
    new AppTable(scope, id, {
      definition: TABLES[name],
      removalPolicy: config.removalPolicy,
      deletionProtection: config.tableDeletionProtection,
    });
  const relayKeys = table('RelayKeysTable', 'relayKeys');
  const relayState = table('RelayStateTable', 'relayState');
  const usage = table('UsageTable', 'usage');

  // One consistent GetItem by the presented key's HMAC, under the channel-id key (shared/relay-keys.ts).
  props.authorizer.useTable(relayKeys, ENV.relayKeysTable, ['GetItem']);
  props.authorizer.readSecret(props.channelIdKey, ENV.channelIdKeySecretId);

  if (props.importFunction) {
    // The token import: one GetItem by keyed hash per token (is it there, was it edited), a conditional PutItem to
    // create or replace it; one PutItem each of the ratios and the routing options items in relayState. It reads
    // nothing else of either table.
    props.importFunction.useTable(relayKeys, ENV.relayKeysTable, ['GetItem', 'PutItem']);
    props.importFunction.useTable(relayState, ENV.relayStateTable, ['PutItem']);
  }

  const relayEnvironment = {
    [ENV.logLevel]: config.logLevel,
    // Set only when the stage sets it: otherwise the legacy gateway's imported RetryTimes decides (docs/relay.md).
    ...(config.relay.maxAttempts !== undefined ? { [ENV.relayMaxAttempts]: String(config.relay.maxAttempts) } : {}),
    [ENV.relayAllowedHosts]: config.relay.allowedHosts.join(','),
    [ENV.relayFirstByteTimeoutMs]: String(config.relay.firstByteTimeoutMs),
    [ENV.usageRetentionDays]: String(config.relay.usageRetentionDays),
  };
  const relay = new AppFunction(scope, 'Relay', {
    name: 'relay',
    description: 'POST /v1/chat/completions, /v1/embeddings, GET /v1/models: relays to the channels (streaming)',
    // Streams pass through chunk by chunk; the memory is for the channel snapshot (10,000 channels) and the CPU.
    memorySize: 1024,
    // As long as API Gateway keeps a streaming integration open: a long completion is never cut by the function.
    timeout: STREAMING_INTEGRATION_TIMEOUT,
    environment: relayEnvironment,
    ...common,
  });
  // Scan builds the routing snapshot (refreshed in the background); UpdateItem marks a channel auto-disabled,
  // conditionally, after repeated invalid-key answers (shared/relay/health.ts).
  relay.useTable(channels, ENV.channelsTable, ['Scan', 'UpdateItem']);
  // One Query reads every channel's health; UpdateItem counts failures; DeleteItem forgets them at a success.
  relay.useTable(relayState, ENV.relayStateTable, ['Query', 'UpdateItem', 'DeleteItem']);
  // BatchWriteItem writes the usage records, those of concurrent requests together (shared/relay/usage-store.ts).
  relay.useTable(usage, ENV.usageTable, ['BatchWriteItem']);
  // Quotas (docs/relay.md, "Quotas"): one Query of the byId index finds a limited key's item (once per instance), and
  // conditional UpdateItems (ADD) reserve and settle its quota. No GetItem, so no key lookup by hash.
  relay.useTable(relayKeys, ENV.relayKeysTable, ['UpdateItem']);
  relay.useIndex(relayKeys, RELAY_KEYS_BY_ID.name, ['Query']);

  const testChannel = new AppFunction(scope, 'TestChannel', {
    name: 'test-channel',
    description: 'POST /api/channel/{id}/test: one minimal request through one channel',
    memorySize: 256,
    // Below API Gateway's 29 s: the upstream's first-byte timeout is capped to fit (docs/relay.md).
    timeout: Duration.seconds(28),
    environment: {
      ...relayEnvironment,
      [ENV.relayFirstByteTimeoutMs]: String(Math.min(config.relay.firstByteTimeoutMs, 25_000)),
    },
    ...common,
  });
  // GetItem reads the channel with its key; the test sends nothing else, records no health and writes no usage.
  testChannel.useTable(channels, ENV.channelsTable, ['GetItem']);
  // The routing core's configuration names these tables; the test makes no call on them.
  testChannel.setEnvironment(ENV.relayStateTable, relayState.table.tableName);
  testChannel.setEnvironment(ENV.usageTable, usage.table.tableName);

  const usageApi = new AppFunction(scope, 'Usage', {
    name: 'usage',
    description: 'GET /api/usage: relayed requests, tokens, errors and failovers for a period',
    memorySize: 512,
    timeout: Duration.seconds(28),
    environment: { [ENV.logLevel]: config.logLevel },
    ...common,
  });
  // One Query per day of the period; BatchGetItem of the channels' names, granted for that projection only, so the
  // usage API can never read a channel's key.
  usageApi.useTable(usage, ENV.usageTable, ['Query']);
  usageApi.useProjected(channels, ENV.channelsTable, ['BatchGetItem'], LABEL_ATTRIBUTES);

  const retest = new AppFunction(scope, 'RetestChannels', {
    name: 'retest-channels',
    description: 'Schedule: tests every auto-disabled channel and re-enables those that pass',
    memorySize: 256,
    // Channels are tested four at a time, each bounded by the upstream's first-byte timeout (capped here).
    timeout: Duration.minutes(5),
    environment: {
      ...relayEnvironment,
      [ENV.relayFirstByteTimeoutMs]: String(Math.min(config.relay.firstByteTimeoutMs, 25_000)),
    },
    ...common,
  });
  // Scan (filtered on status) finds the auto-disabled channels with their keys; UpdateItem re-enables one, or records
  // its failed re-test, only while it is still auto-disabled.
  retest.useTable(channels, ENV.channelsTable, ['Scan', 'UpdateItem']);
  // DeleteItem forgets a re-enabled channel's failure counts; nothing else on the health table.
  retest.useTable(relayState, ENV.relayStateTable, ['DeleteItem']);
  // The routing core's configuration names the usage table; the re-test writes no usage.
  retest.setEnvironment(ENV.usageTable, usage.table.tableName);
  if (config.relay.retestIntervalMinutes > 0) {
    new Rule(scope, 'RetestChannelsSchedule', {
      description: 'Re-tests auto-disabled channels (docs/relay.md, "Re-test")',
      schedule: Schedule.rate(Duration.minutes(config.relay.retestIntervalMinutes)),
      targets: [new LambdaFunction(retest.function, { retryAttempts: 0 })],
    });
  }

  // Bedrock channels without a key sign with these functions' roles: the configured models and regions only.
  grantBedrock([relay, testChannel, retest], config.relay.bedrock);

  // The key API (docs/channel-review-api.md, "Keys"): one small function per call, each granted exactly its calls on
  // the relay keys table; only the create reads the channel-id key (it hashes the new key), none reads channels.
  const keyFunction = (id: string, name: KeyFunction, description: string) =>
    new AppFunction(scope, id, {
      name,
      description,
      memorySize: 256,
      timeout: Duration.seconds(10),
      environment: { [ENV.logLevel]: config.logLevel },
      ...common,
    });
  const listKeys = keyFunction('ListKeys', 'list-keys', 'GET /api/keys: every relay key, masked');
  // Scan: a management listing of one item per key (no key material in the table).
  listKeys.useTable(relayKeys, ENV.relayKeysTable, ['Scan']);
  const createKey = keyFunction('CreateKey', 'create-key', 'POST /api/keys: a new relay key, shown once');
  // One conditional PutItem of the new key's keyed hash; the channel-id key is the HMAC's key.
  createKey.useTable(relayKeys, ENV.relayKeysTable, ['PutItem']);
  createKey.readSecret(props.channelIdKey, ENV.channelIdKeySecretId);
  const getKey = keyFunction('GetKey', 'get-key', 'GET /api/key/{id}: one relay key, masked');
  // One Query of the byId index; no item action on the table itself.
  getKey.setEnvironment(ENV.relayKeysTable, relayKeys.table.tableName);
  getKey.useIndex(relayKeys, RELAY_KEYS_BY_ID.name, ['Query']);
  const updateKey = keyFunction('UpdateKey', 'update-key', 'PUT /api/key/{id}: change a relay key');
  // Query finds the item by id; one conditional UpdateItem changes it.
  updateKey.useTable(relayKeys, ENV.relayKeysTable, ['UpdateItem']);
  updateKey.useIndex(relayKeys, RELAY_KEYS_BY_ID.name, ['Query']);
  const deleteKey = keyFunction('DeleteKey', 'delete-key', 'DELETE /api/key/{id}: delete a relay key');
  // Query finds the item by id; one conditional DeleteItem removes it.
  deleteKey.useTable(relayKeys, ENV.relayKeysTable, ['DeleteItem']);
  deleteKey.useIndex(relayKeys, RELAY_KEYS_BY_ID.name, ['Query']);

  return {
    tables: { relayKeys, relayState, usage },
    functions: {
      relay,
      'test-channel': testChannel,
      usage: usageApi,
      'retest-channels': retest,
      'list-keys': listKeys,
      'create-key': createKey,
      'get-key': getKey,
      'update-key': updateKey,
      'delete-key': deleteKey,
    },
  };
}
