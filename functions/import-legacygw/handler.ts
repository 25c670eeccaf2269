import { CHANNEL_ID_KEY_FILE_ENV, channelIdKeySource } from '#shared/channel-id-key';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, importEnvSchema, loadConfig } from '#shared/config';
import { adminHandler, proxyBody } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';
import { DynamoRatioWriter } from '#shared/relay/quota';
import { DynamoRoutingOptionsWriter } from '#shared/relay/routing-options';
import { ChannelRepository } from '#shared/repositories/channels';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { FAMILIES } from './families/index.ts';
import { type ImportDeps, importLegacyGw } from './import-legacygw.ts';
import { importRows, parseRowsBody, type RowsImportDeps } from './import-rows.ts';
import { measureImport } from './metrics.ts';
import { importBodySchema } from './schema.ts';
import { sourceOpener } from './sources.ts';

const config = loadConfig(importEnvSchema);
const logger = createLogger('import-legacygw', config.LOG_LEVEL);
const metrics = createMetrics();
const relayKeysTable = config[ENV.relayKeysTable];
const relayStateTable = config[ENV.relayStateTable];
const deps: ImportDeps & RowsImportDeps = {
  openSource: sourceOpener({ extraCas: config[ENV.legacygwCaBundle] }),
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  families: FAMILIES,
  channelIdKey: channelIdKeySource({
    secretId: config[ENV.channelIdKeySecretId],
    credentialsFile: process.env[CHANNEL_ID_KEY_FILE_ENV],
  }),
  config: {
    maxRows: config.LEGACYGW_MAX_ROWS,
    deadlineMs: config.LEGACYGW_DEADLINE_MS,
    allowedHosts: config.LEGACYGW_ALLOWED_HOSTS,
  },
  now: () => new Date(),
  logger,
  // The token import (docs/relay.md, "Keys"): relay keys by keyed hash, and the imported ratios where the relay reads them.
  ...(relayKeysTable && relayStateTable
    ? {
        tokens: {
          store: new RelayKeysRepository(documentClient, relayKeysTable),
          ratios: new DynamoRatioWriter(documentClient, relayStateTable),
          routing: new DynamoRoutingOptionsWriter(documentClient, relayStateTable),
        },
      }
    : {}),
};

/** The path of the rows route; every other route of this function is the DSN import's. */
export const ROWS_RESOURCE = '/api/channels/import/rows';

/**
 * POST /api/channels/import/legacygw and POST /api/channels/import/rows behind the authorizer: one function, one
 * import core, two sources (docs/channel-import.md, "Rows sent by a client").
 */
export const handler = adminHandler(
  logger,
  (event) => {
    if (event.resource === ROWS_RESOURCE) {
      const body = parseRowsBody(event);
      const input = {
        table: body,
        dryRun: body.dryRun ?? false,
        family: body.family,
        file: body.file,
        ...(body.tokens === undefined ? {} : { tokens: body.tokens }),
      };
      return measureImport(metrics, input.dryRun, () => importRows(input, deps));
    }
    const body = proxyBody(event, importBodySchema);
    const input = { dsn: body.dsn, dryRun: body.dryRun ?? false, family: body.family, tokens: body.tokens ?? false };
    return measureImport(metrics, input.dryRun, () => importLegacyGw(input, deps));
  },
  { metrics },
);
