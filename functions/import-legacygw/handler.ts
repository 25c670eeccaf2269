import * as z from 'zod';
import { documentClient } from '#shared/clients/dynamodb';
import { importEnvSchema, loadConfig } from '#shared/config';
import { adminHandler } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { BODY_PROBLEMS, parseJsonObjectBody } from '#shared/http';
import { createLogger } from '#shared/logger';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ImportDeps, importLegacyGw } from './import-legacygw.ts';
import { openLegacySource } from './legacy-source.ts';

const config = loadConfig(importEnvSchema);
const logger = createLogger('import-legacygw', config.LOG_LEVEL);
const deps: ImportDeps = {
  openSource: openLegacySource,
  repo: new ChannelRepository(documentClient, config.CHANNELS_TABLE),
  config: {
    maxRows: config.LEGACYGW_MAX_ROWS,
    deadlineMs: config.LEGACYGW_DEADLINE_MS,
    allowedHosts: config.LEGACYGW_ALLOWED_HOSTS,
  },
  now: () => new Date(),
  logger,
};

// Unknown fields are ignored (zod strips them); a wrong type is a 400, never a 500.
const bodySchema = z.object({
  dsn: z.string({ error: 'dsn is required and must be a string' }),
  dryRun: z.boolean({ error: 'dryRun must be true or false' }).optional(),
});

/** POST /api/channels/import/legacygw behind the authorizer. */
export const handler = adminHandler(logger, async (event) => {
  const body = parseJsonObjectBody(event);
  if (!body.ok) throw new ProxyApiError(400, BODY_PROBLEMS[body.reason]);
  const parsed = bodySchema.safeParse(body.value);
  if (!parsed.success) throw new ProxyApiError(400, parsed.error.issues.map((i) => i.message).join('; '));
  return importLegacyGw({ dsn: parsed.data.dsn, dryRun: parsed.data.dryRun ?? false }, deps);
});
