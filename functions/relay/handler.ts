import { documentClient } from '#shared/clients/dynamodb';
import { ENV, loadConfig, relayEnvSchema } from '#shared/config';
import { streamifyResponse } from '#shared/lambda-streaming';
import { deferredLogger } from '#shared/logger';
import { deferredMetrics } from '#shared/metrics';
import { lastUsedMarker } from '#shared/relay/last-used';
import { recordRelayMetrics } from '#shared/relay/metrics';
import { quotaOnDynamo, relayOnDynamo } from '#shared/relay/runtime';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { internalErrorReply, type RelayReply, serveRelay } from './relay-http.ts';
import { writeReply } from './stream-reply.ts';

/*
 * The `/v1` routes (docs/relay.md): one streaming function, so the three routes share one channel snapshot, one health
 * cache and one keep-alive pool per execution environment. The handler only turns the event into a reply and writes it;
 * the usage record, the per-channel metrics and the key's `lastUsedAt` (at most once a minute) are written after the
 * response has ended (`done`), so they never delay a byte. The Logger and Metrics are made on their first line, not at
 * cold start: a request logs nothing on its way to the first byte unless something fails, and metrics are written after
 * the response (docs/performance.md, "The relay's module load").
 */
const config = loadConfig(relayEnvSchema);
const logger = deferredLogger('relay', config.LOG_LEVEL);
const quota = quotaOnDynamo(documentClient, config, logger);
const relay = relayOnDynamo(documentClient, config, logger, quota);
const metrics = deferredMetrics();
const relayKeysTable = config[ENV.relayKeysTable];
const markUsed = relayKeysTable
  ? lastUsedMarker(new RelayKeysRepository(documentClient, relayKeysTable))
  : async () => {};

export const handler = streamifyResponse(async (event, responseStream, context) => {
  if (context) logger.addContext(context);
  const requestId = event.requestContext?.requestId ?? context?.awsRequestId ?? 'unknown';
  const abort = new AbortController();
  let reply: RelayReply;
  try {
    reply = await serveRelay(event, { core: relay, requestId, signal: abort.signal, ...(quota ? { quota } : {}) });
  } catch (error) {
    logger.error('Unexpected error in the relay', { error: error instanceof Error ? error.name : typeof error });
    reply = internalErrorReply(requestId);
  }
  await writeReply(responseStream, reply, () => abort.abort());
  try {
    const record = await reply.done;
    if (record) {
      recordRelayMetrics(metrics(), record);
      await markUsed(record.keyId);
    }
  } catch (error) {
    logger.warn('Could not finish the request after its response', { error: String(error) });
  }
});
