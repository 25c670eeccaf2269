import { CHANNEL_ID_KEY_FILE_ENV, channelIdKeySource } from '#shared/channel-id-key';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, importEnvSchema, loadConfig } from '#shared/config';
import { adminHandler, proxyBody } from '#shared/envelopes/proxy';
import { createLogger } from '#shared/logger';
import { createMetrics } from '#shared/metrics';
import { ChannelRepository } from '#shared/repositories/channels';
import { FAMILIES } from './families/index.ts';
import { type ImportDeps, importLegacyGw } from './import-legacygw.ts';
import { measureImport } from './metrics.ts';
import { importBodySchema } from './schema.ts';
import { sourceOpener } from './sources.ts';

const config = loadConfig(importEnvSchema);
const logger = createLogger('import-legacygw', config.LOG_LEVEL);
const metrics = createMetrics();
const deps: ImportDeps = {
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
};

/** POST /api/channels/import/legacygw behind the authorizer. */
export const handler = adminHandler(
  logger,
  (event) => {
    const body = proxyBody(event, importBodySchema);
    const input = { dsn: body.dsn, dryRun: body.dryRun ?? false };
    return measureImport(metrics, input.dryRun, () => importLegacyGw(input, deps));
  },
  { metrics },
);
