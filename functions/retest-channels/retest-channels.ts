import type { Logger } from '@aws-lambda-powertools/logger';
import { toRelayChannel } from '#shared/relay/channel-source';
import type { ChannelTestResult, RelayChannel } from '#shared/relay/contract';
import { isServableProvider } from '#shared/relay/servable';
import type { StoredChannel } from '#shared/repositories/channels';

/*
 * The re-test schedule (docs/relay.md, "Re-test"): every auto-disabled channel is tested with the relay's own channel
 * test (the same adapter, settings and checked address as a relayed request); one that passes is enabled again, its
 * `statusReason` dropped, `statusChangedAt` stamped and an entry added to its `statusHistory`; one that fails stays
 * disabled, with the outcome in `lastRetest`. Deployed, an EventBridge schedule invokes it; `npm start` runs it on a
 * timer.
 */

/** One status change as the channel's history keeps it (newest last, at most STATUS_HISTORY_LIMIT). */
export interface StatusHistoryEntry {
  readonly at: string;
  readonly status: 'enabled';
  readonly by: 'retest';
  readonly note: string;
}

/** The last re-test of a channel, pass or fail. Never the key (the message is scrubbed by the relay's test). */
export interface LastRetest {
  readonly at: string;
  readonly ok: boolean;
  readonly status: number;
  readonly message?: string;
}

export const STATUS_HISTORY_LIMIT = 10;

/** The channels table as the re-test uses it. */
export interface RetestStore {
  /** Every channel whose status is `auto-disabled`. */
  autoDisabled(): Promise<StoredChannel[]>;
  /** Sets `enabled` only while the channel is still auto-disabled; false when it no longer was. */
  reEnable(id: string, at: string, history: readonly StatusHistoryEntry[], retest: LastRetest): Promise<boolean>;
  /** Records the failed re-test, only while the channel is still auto-disabled. */
  recordFailure(id: string, retest: LastRetest): Promise<void>;
}

export interface RetestDeps {
  readonly store: RetestStore;
  readonly tester: (channel: RelayChannel) => Promise<ChannelTestResult>;
  /** Forgets the channel's failure counts, so a re-enabled channel starts afresh (the relay's health store). */
  readonly resetHealth: (channelId: string) => Promise<void>;
  readonly now: () => Date;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** Channels tested at once (default 4). */
  readonly concurrency?: number;
}

export interface RetestReport {
  readonly tested: number;
  readonly reEnabled: string[];
  readonly stillFailing: string[];
  readonly skipped: string[];
}

/** Tests every auto-disabled channel and re-enables those that pass. */
export async function retestChannels(deps: RetestDeps): Promise<RetestReport> {
  const channels = await deps.store.autoDisabled();
  const report: RetestReport = { tested: 0, reEnabled: [], stillFailing: [], skipped: [] };
  const queue = [...channels];
  const worker = async () => {
    for (let channel = queue.shift(); channel !== undefined; channel = queue.shift()) {
      await retestOne(channel, deps, report);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency ?? 4) }, worker));
  deps.logger.info('Re-tested auto-disabled channels', {
    tested: report.tested,
    reEnabled: report.reEnabled.length,
    stillFailing: report.stillFailing.length,
    skipped: report.skipped.length,
  });
  return report;
}

async function retestOne(channel: StoredChannel, deps: RetestDeps, report: RetestReport): Promise<void> {
  const model = channel.settings?.testModel ?? channel.models?.[0];
  if (!isServableProvider(channel.provider).servable || model === undefined) {
    // Nothing to send: an operator decides (the review API says why it is not servable).
    report.skipped.push(channel.id);
    return;
  }
  (report as { tested: number }).tested++;
  let result: ChannelTestResult;
  try {
    result = await deps.tester(toRelayChannel(channel));
  } catch {
    result = { ok: false, status: 0, latencyMs: 0, model, message: 'the test could not be run' };
  }
  const at = deps.now().toISOString();
  const retest: LastRetest = {
    at,
    ok: result.ok,
    status: result.status,
    ...(result.message ? { message: result.message.slice(0, 300) } : {}),
  };
  if (!result.ok) {
    report.stillFailing.push(channel.id);
    await deps.store.recordFailure(channel.id, retest);
    deps.logger.info('Channel still fails its re-test', { channelId: channel.id, status: result.status });
    return;
  }
  const entry: StatusHistoryEntry = {
    at,
    status: 'enabled',
    by: 'retest',
    note: `re-enabled by the re-test schedule: ${model} answered ${result.status} in ${Math.round(result.latencyMs)} ms (was: ${channel.statusReason ?? 'auto-disabled'})`.slice(
      0,
      300,
    ),
  };
  const history = [...(Array.isArray(channel.statusHistory) ? channel.statusHistory : []), entry].slice(
    -STATUS_HISTORY_LIMIT,
  );
  if (await deps.store.reEnable(channel.id, at, history, retest)) {
    report.reEnabled.push(channel.id);
    await deps.resetHealth(channel.id).catch((error: unknown) => {
      deps.logger.warn('Could not reset the health of a re-enabled channel', {
        channelId: channel.id,
        error: String(error),
      });
    });
    deps.logger.info('Channel re-enabled by its re-test', { channelId: channel.id, status: result.status });
  }
}
