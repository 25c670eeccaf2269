import { type ChannelView, channelNotFound, parseChannelId, toChannelView } from '#shared/channel-view';
import type { ChannelReviewStore } from '#shared/repositories/channels';

export interface GetChannelDeps {
  repo: Pick<ChannelReviewStore, 'get'>;
}

/** One channel by the `{id}` of its path, key masked; 404 when there is none. */
export async function getChannel(idParameter: unknown, deps: GetChannelDeps): Promise<ChannelView> {
  const id = parseChannelId(idParameter, 'id');
  const channel = await deps.repo.get(id);
  if (channel === undefined) throw channelNotFound();
  return toChannelView(channel);
}
