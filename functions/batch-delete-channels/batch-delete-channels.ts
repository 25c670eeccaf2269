import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PROXY_REQUEST_ERRORS, proxyBody } from '#shared/envelopes/proxy';
import { ProxyApiError } from '#shared/errors';
import type { ChannelReviewStore } from '#shared/repositories/channels';
import { channelIdSchema } from '#shared/schemas/channels';
import * as z from '#shared/zod';

/** Most ids one call may name. */
export const MAX_BATCH_IDS = 1_000;
/** Room for MAX_BATCH_IDS ids with generous whitespace; above the API's usual 64 KiB, which 1,000 ids exceed. */
export const MAX_BATCH_BODY_BYTES = 256 * 1024;

export interface BatchDeleteDeps {
  repo: Pick<ChannelReviewStore, 'deleteMany'>;
  logger: Pick<Logger, 'info'>;
}

/** A batch delete body: a JSON array of at most MAX_BATCH_IDS channel ids. */
export const batchDeleteBodySchema = z.array(channelIdSchema).check(z.maxLength(MAX_BATCH_IDS));

/** The ids of a batch delete body; anything else is a 400 naming the bad item or the count. */
export function parseBatchIds(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>): string[] {
  return proxyBody(event, batchDeleteBodySchema, { shape: 'array', maxBytes: MAX_BATCH_BODY_BYTES }, BATCH_ERRORS);
}

const BATCH_ERRORS = {
  malformed: PROXY_REQUEST_ERRORS.malformed,
  invalid: (error: z.core.$ZodError, ids: unknown) => {
    if (error.issues.some((i) => i.code === 'too_big')) {
      return new ProxyApiError(
        400,
        `The body may name at most ${MAX_BATCH_IDS} ids; it names ${(ids as unknown[]).length}`,
      );
    }
    const issue = error.issues[0];
    return new ProxyApiError(400, `ids[${String(issue?.path[0])}] must be a channel id (64 hexadecimal characters)`);
  },
};

/** Deletes every named channel that exists (an id named twice counts once); `deleted` counts those that existed. */
export async function batchDeleteChannels(ids: readonly string[], deps: BatchDeleteDeps): Promise<{ deleted: number }> {
  const unique = [...new Set(ids)];
  const deleted = unique.length > 0 ? await deps.repo.deleteMany(unique) : 0;
  deps.logger.info('Channels deleted', { requested: unique.length, deleted });
  return { deleted };
}
