import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { documentClient } from '#shared/clients/dynamodb';
import { ENV, importEnvSchema, loadConfig } from '#shared/config';
import { proxyBody, proxyErrorResponse, proxySuccess } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import { callerFrom } from '#shared/http';
import { createLogger, withLambdaContext } from '#shared/logger';
import { createMetrics, flushMetrics } from '#shared/metrics';
import { ChannelRepository } from '#shared/repositories/channels';
import { type ImportDeps, importLegacyGw } from './import-legacygw.ts';
import { legacySourceOpener } from './legacy-source.ts';
import { measureImport } from './metrics.ts';
import { importBodySchema } from './schema.ts';

const config = loadConfig(importEnvSchema);
const logger = createLogger('import-legacygw', config.LOG_LEVEL);
const metrics = createMetrics();
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
export const handler = withLambdaContext(
  logger,
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    try {
      // The authorizer's policy already keeps access tokens out; checked again in case a policy is ever wrong.
      if (callerFrom(event)?.scope !== 'admin') throw new ProxyApiError(401, 'The admin key is required for this API');
      const body = proxyBody(event, importBodySchema);
      const input = { dsn: body.dsn, dryRun: body.dryRun ?? false };
      const report = await measureImport(metrics, input.dryRun, () => importLegacyGw(input, deps));
      return proxySuccess(report);
    } catch (error) {
      return proxyErrorResponse(error, logger);
    } finally {
      flushMetrics(metrics);
    }
  },
);
