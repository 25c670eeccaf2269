import type { Logger } from '@aws-lambda-powertools/logger';
import { channelNotFound, maskKey, parseChannelId } from '#shared/channel-view';
import { toRelayChannel } from '#shared/relay/channel-source';
import type { ChannelTestResult, RelayChannel } from '#shared/relay/contract';
import { isServableProvider } from '#shared/relay/servable';
import type { ChannelReviewStore, StoredChannel } from '#shared/repositories/channels';

/** Sends one minimal request through a channel (relay-core's `createRelay(...).testChannel`). */
export type ChannelTester = (channel: RelayChannel) => Promise<ChannelTestResult>;

export interface TestChannelDeps {
  repo: Pick<ChannelReviewStore, 'get'>;
  tester: ChannelTester;
  logger: Pick<Logger, 'info'>;
}

/** The model a test sends: the channel's `testModel`, else its first model (docs/channel-review-api.md, "Channel test"). */
export function testModelOf(channel: Pick<StoredChannel, 'models' | 'settings'>): string | undefined {
  return channel.settings?.testModel ?? channel.models?.[0];
}

/** `text` with every occurrence of the channel's key replaced by its masked form (a message must never carry it). */
function withoutKey(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join(maskKey(key)) : text;
}

/**
 * Tests the channel of the `{id}` of its path, whatever its status (an operator tests a disabled channel before
 * enabling it): 404 when there is none. A provider the relay cannot serve, or a channel without a model, answers
 * `ok: false` with the reason and sends nothing. The answer is rebuilt field by field: never the key.
 */
export async function testChannel(idParameter: unknown, deps: TestChannelDeps): Promise<ChannelTestResult> {
  const id = parseChannelId(idParameter, 'id');
  const channel = await deps.repo.get(id);
  if (channel === undefined) throw channelNotFound();
  const model = testModelOf(channel) ?? '';
  const servable = isServableProvider(channel.provider);
  let result: ChannelTestResult;
  if (!servable.servable) result = { ok: false, status: 0, latencyMs: 0, model, message: servable.reason };
  else if (model === '') result = { ok: false, status: 0, latencyMs: 0, model, message: 'The channel has no model' };
  else {
    const tested = await deps.tester(toRelayChannel(channel));
    result = {
      ok: tested.ok === true,
      status: Number.isInteger(tested.status) ? tested.status : 0,
      latencyMs: Number.isFinite(tested.latencyMs) ? Math.max(0, Math.round(tested.latencyMs)) : 0,
      model: typeof tested.model === 'string' ? tested.model : model,
      ...(typeof tested.message === 'string' && tested.message !== ''
        ? { message: withoutKey(tested.message, channel.key).slice(0, 1_000) }
        : {}),
    };
  }
  deps.logger.info('Channel tested', { id, ok: result.ok, status: result.status, latencyMs: result.latencyMs });
  return result;
}
