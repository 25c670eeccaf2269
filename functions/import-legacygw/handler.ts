import { documentClient } from '#shared/clients/dynamodb';
import { ENV, importEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { BODY_PROBLEMS, parseJsonObjectBody } from '#shared/http';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ImportDeps, importLegacyGw } from './import-legacygw.ts';
import { legacySourceOpener } from './legacy-source.ts';
import { importBodySchema } from './schema.ts';

const config = loadConfig(importEnvSchema);
const logger = createLogger('import-legacygw', config.LOG_LEVEL);
const deps: ImportDeps = {
  openSource: legacySourceOpener({ extraCas: config[ENV.legacygwCaBundle] }),
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  config: {
    maxRows: config.LEGACYGW_MAX_ROWS,
    deadlineMs: config.LEGACYGW_DEADLINE_MS,
    allowedHosts: config.LEGACYGW_ALLOWED_HOSTS,
  },
  now: () => new Date(),
  logger,
};

/** POST /api/channels/import/legacygw behind the authorizer. */
export const handler = adminHandler(logger, async (event) => {
  const body = parseJsonObjectBody(event);
  if (!body.ok) throw new ProxyApiError(400, BODY_PROBLEMS[body.reason]);
  const parsed = importBodySchema.safeParse(body.value);
  if (!parsed.success) throw new ProxyApiError(400, parsed.error.issues.map((i) => i.message).join('; '));
  return importLegacyGw({ dsn: parsed.data.dsn, dryRun: parsed.data.dryRun ?? false }, deps);
});
