import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { fromChannelItem, type StoredChannel } from '../repositories/channels.ts';
import type { ChannelStatus, RelayChannel } from './contract.ts';
import type { Clock } from './health.ts';
import { isServable } from './providers/index.ts';
import { buildSnapshot, type ChannelSnapshot } from './routing.ts';

/*
 * The channels as the relay sees them (docs/relay.md, "Freshness"): a Scan of the channels table (a projection,
 * paginated, decoded with fromChannelItem), indexed once per snapshot. A snapshot older than `maxAgeMs` (5 s) is
 * still served while a rescan runs in the background (stale-while-revalidate), so a warm request never waits on a
 * Scan; only the first request of an instance does. An import or an edit therefore reaches new requests within
 * maxAgeMs plus one Scan.
 */

export interface ChannelSource {
  snapshot(): Promise<ChannelSnapshot>;
}

/** A source over a fixed list (tests, and callers that hold channels already). */
export function staticChannelSource(
  channels: readonly RelayChannel[],
): ChannelSource & { set(c: readonly RelayChannel[]): void } {
  let snapshot = buildSnapshot(channels, isServable);
  return {
    snapshot: () => Promise.resolve(snapshot),
    set(next) {
      snapshot = buildSnapshot(next, isServable);
    },
  };
}

const PROJECTED = ['id', 'provider', 'name', 'baseUrl', 'key', 'models', 'status', 'settings'] as const;

/** A stored channel (as scanned) as the router sees it. */
export function toRelayChannel(item: Omit<Partial<StoredChannel>, 'status'> & { status?: string }): RelayChannel {
  const status: ChannelStatus = item.status === 'enabled' || item.status === 'auto-disabled' ? item.status : 'disabled';
  return {
    id: String(item.id),
    provider: String(item.provider ?? ''),
    name: String(item.name ?? ''),
    baseUrl: String(item.baseUrl ?? ''),
    key: String(item.key ?? ''),
    models: Array.isArray(item.models) ? item.models.map(String) : [],
    status,
    settings: item.settings ?? {},
  };
}

export interface DynamoChannelSourceOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly clock: Clock;
  /** Age after which a snapshot is refreshed in the background (default 5000 ms). */
  readonly maxAgeMs?: number;
  readonly onError?: (message: string, error: unknown) => void;
}

export class DynamoChannelSource implements ChannelSource {
  private current: { at: number; snapshot: ChannelSnapshot } | undefined;
  private refreshing: Promise<ChannelSnapshot> | undefined;
  private readonly maxAgeMs: number;
  /** Scans done (for tests and metrics). */
  scans = 0;

  constructor(private readonly options: DynamoChannelSourceOptions) {
    this.maxAgeMs = options.maxAgeMs ?? 5000;
  }

  snapshot(): Promise<ChannelSnapshot> {
    const now = this.options.clock.now();
    if (this.current === undefined) return this.refresh();
    if (now - this.current.at >= this.maxAgeMs && this.refreshing === undefined) {
      this.refresh().catch((error: unknown) =>
        this.options.onError?.('channel rescan failed; serving the last snapshot', error),
      );
    }
    return Promise.resolve(this.current.snapshot);
  }

  /** Waits for a background rescan, if one runs (tests). */
  settled(): Promise<unknown> {
    return this.refreshing?.catch(() => undefined) ?? Promise.resolve();
  }

  private refresh(): Promise<ChannelSnapshot> {
    this.refreshing ??= this.scan().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async scan(): Promise<ChannelSnapshot> {
    const startedAt = this.options.clock.now();
    const channels: RelayChannel[] = [];
    let start: Record<string, unknown> | undefined;
    this.scans++;
    do {
      const out = await this.options.client.send(
        new ScanCommand({
          TableName: this.options.tableName,
          ProjectionExpression: PROJECTED.map((_, i) => `#a${i}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(PROJECTED.map((name, i) => [`#a${i}`, name])),
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) channels.push(toRelayChannel(fromChannelItem(item)));
      start = out.LastEvaluatedKey;
    } while (start);
    const snapshot = buildSnapshot(channels, isServable);
    this.current = { at: startedAt, snapshot };
    return snapshot;
  }
}
