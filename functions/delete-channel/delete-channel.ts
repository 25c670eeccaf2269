import type { Logger } from '@aws-lambda-powertools/logger';
import { channelNotFound, parseChannelId } from '#shared/channel-view';
import type { ChannelReviewStore } from '#shared/repositories/channels';

export interface DeleteChannelDeps {
  repo: Pick<ChannelReviewStore, 'delete'>;
  logger: Pick<Logger, 'info'>;
}

/** Deletes the channel of the `{id}` of its path; 404 when there is none. The next import that maps to it creates it again. */
export async function deleteChannel(idParameter: unknown, deps: DeleteChannelDeps): Promise<null> {
  const id = parseChannelId(idParameter, 'id');
  if (!(await deps.repo.delete(id))) throw channelNotFound();
  deps.logger.info('Channel deleted', { id });
  return null;
}
