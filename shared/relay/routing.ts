import type { RelayChannel } from './contract.ts';

/*
 * Channel selection (docs/relay.md, "Routing"). A snapshot of the channels is indexed once, when it is built:
 * group -> model -> priority tiers (highest first), each tier with its channels and cumulative weights, so a request
 * costs a map lookup, a binary search for its first pick and a linear walk only when it fails over.
 *
 * Weights follow New API's `model/channel_cache.go` (QuantumNous/new-api, read at the `main` of 2026-11; the
 * `smoothingFactor` of 10): a channel's share is `weight + 10`, so absent or 0 everywhere gives equal shares and a 0
 * beside positive weights still gets a (smaller) share. One API (songquanpeng/one-api 8df4a26, `model/cache.go`
 * `CacheGetRandomSatisfiedChannel`) picks uniformly within the top priority; New API is the fork that reads `weight`.
 */

/** New API's smoothing: every channel's effective weight is its weight plus this. */
export const WEIGHT_SMOOTHING = 10;

/** A priority tier of one (group, model): its channels and their cumulative effective weights. */
export interface Tier {
  readonly priority: number;
  readonly channels: readonly RelayChannel[];
  /** cumulative[i] = sum of effective weights of channels[0..i]. */
  readonly cumulative: readonly number[];
  readonly weights: readonly number[];
}

/** Why no channel serves a (group, model), for the 503's message. */
export type NoChannelReason = 'none' | 'all-disabled' | 'none-servable' | 'all-failing';

interface Excluded {
  disabled: boolean;
  unservable: boolean;
}

/** The channels at one moment, indexed for selection. Immutable once built. */
export interface ChannelSnapshot {
  readonly channels: readonly RelayChannel[];
  readonly byId: ReadonlyMap<string, RelayChannel>;
  /** group -> model -> tiers, highest priority first; only enabled, servable channels. */
  readonly index: ReadonlyMap<string, ReadonlyMap<string, readonly Tier[]>>;
  /** group -> model -> whether disabled or unservable channels would have served it (for the reason). */
  readonly excluded: ReadonlyMap<string, ReadonlyMap<string, Readonly<Excluded>>>;
}

/** The groups a channel serves: `settings.groups`, absent or empty = ["default"]. */
export function channelGroups(channel: RelayChannel): readonly string[] {
  const groups = channel.settings.groups;
  return groups !== undefined && groups.length > 0 ? groups : ['default'];
}

/** The model names a channel answers to: its models and its mapping's keys, each once. */
export function channelModels(channel: RelayChannel): readonly string[] {
  const mapping = channel.settings.modelMapping;
  if (mapping === undefined) return channel.models;
  return [...new Set([...channel.models, ...Object.keys(mapping)])];
}

/** The model name sent upstream: the channel's mapping of `model`, one hop (a mapping never chains). */
export function upstreamModel(channel: RelayChannel, model: string): string {
  const mapping = channel.settings.modelMapping;
  // Own keys only: a model named "constructor" must not find Object.prototype's.
  const mapped = mapping !== undefined && Object.hasOwn(mapping, model) ? mapping[model] : undefined;
  return typeof mapped === 'string' && mapped !== '' ? mapped : model;
}

/** A channel's effective weight: max(weight, 0) + 10 (New API's smoothing). */
export function effectiveWeight(channel: RelayChannel): number {
  return Math.max(channel.settings.weight ?? 0, 0) + WEIGHT_SMOOTHING;
}

function nested<V>(map: Map<string, Map<string, V>>, a: string, b: string, make: () => V): V {
  let inner = map.get(a);
  if (inner === undefined) {
    inner = new Map();
    map.set(a, inner);
  }
  let value = inner.get(b);
  if (value === undefined) {
    value = make();
    inner.set(b, value);
  }
  return value;
}

/** Indexes `channels` for selection; `servable` says whether an adapter can serve a provider. */
export function buildSnapshot(
  channels: readonly RelayChannel[],
  servable: (provider: string) => boolean,
): ChannelSnapshot {
  const byId = new Map<string, RelayChannel>();
  const lists = new Map<string, Map<string, RelayChannel[]>>();
  const excluded = new Map<string, Map<string, Excluded>>();
  for (const channel of channels) {
    byId.set(channel.id, channel);
    const enabled = channel.status === 'enabled';
    const canServe = servable(channel.provider);
    for (const group of channelGroups(channel)) {
      for (const model of channelModels(channel)) {
        if (enabled && canServe) {
          nested(lists, group, model, () => []).push(channel);
        } else {
          const flags = nested(excluded, group, model, () => ({ disabled: false, unservable: false }));
          if (!enabled) flags.disabled = true;
          else flags.unservable = true;
        }
      }
    }
  }
  const index = new Map<string, Map<string, readonly Tier[]>>();
  for (const [group, models] of lists) {
    const byModel = new Map<string, readonly Tier[]>();
    for (const [model, list] of models) byModel.set(model, tiersOf(list));
    index.set(group, byModel);
  }
  return { channels, byId, index, excluded };
}

function tiersOf(list: readonly RelayChannel[]): Tier[] {
  const byPriority = new Map<number, RelayChannel[]>();
  for (const channel of list) {
    const priority = channel.settings.priority ?? 0;
    const tier = byPriority.get(priority);
    if (tier) tier.push(channel);
    else byPriority.set(priority, [channel]);
  }
  return [...byPriority.entries()]
    .sort(([a], [b]) => b - a)
    .map(([priority, members]) => {
      const weights = members.map(effectiveWeight);
      let sum = 0;
      const cumulative = weights.map((w) => {
        sum += w;
        return sum;
      });
      return { priority, channels: members, weights, cumulative };
    });
}

/** The (group, tiers) a request uses: the first of the caller's groups that has any candidate for the model. */
export function resolveGroup(
  snapshot: ChannelSnapshot,
  groups: readonly string[],
  model: string,
): { group: string; tiers: readonly Tier[] } | undefined {
  for (const group of groups) {
    const tiers = snapshot.index.get(group)?.get(model);
    if (tiers !== undefined && tiers.length > 0) return { group, tiers };
  }
  return undefined;
}

/** Why none of the caller's groups has a candidate for the model. */
export function noCandidateReason(
  snapshot: ChannelSnapshot,
  groups: readonly string[],
  model: string,
): NoChannelReason {
  let disabled = false;
  let unservable = false;
  for (const group of groups) {
    const flags = snapshot.excluded.get(group)?.get(model);
    if (flags?.unservable) unservable = true;
    if (flags?.disabled) disabled = true;
  }
  if (unservable) return 'none-servable';
  if (disabled) return 'all-disabled';
  return 'none';
}

/**
 * Walks the tiers of one request: each call to `next` returns a channel not returned before, by weighted random
 * within the highest tier that has one left, skipping channels `usable` refuses (cooling down); undefined when none is
 * left. `random` returns a number in [0, 1).
 */
export class ChannelPicker {
  private tierIndex = 0;
  private readonly taken = new Set<string>();
  /** Weight of the current tier's channels already taken (picked or skipped). */
  private removedWeight = 0;
  /** Channels skipped because `usable` refused them (for the 503's reason). */
  skipped = 0;

  constructor(
    private readonly tiers: readonly Tier[],
    private readonly random: () => number,
    private readonly usable: (channel: RelayChannel) => boolean = () => true,
  ) {}

  next(): RelayChannel | undefined {
    while (this.tierIndex < this.tiers.length) {
      const picked = this.pickIn(this.tiers[this.tierIndex] as Tier);
      if (picked !== undefined) return picked;
      this.tierIndex++;
      this.removedWeight = 0;
    }
    return undefined;
  }

  private pickIn(tier: Tier): RelayChannel | undefined {
    const total = tier.cumulative[tier.cumulative.length - 1] ?? 0;
    for (;;) {
      const remaining = total - this.removedWeight;
      if (remaining <= 0) return undefined;
      const target = this.random() * remaining;
      // Nothing taken yet in this tier (the common case): a binary search over the precomputed sums.
      const at = this.removedWeight === 0 ? firstAbove(tier.cumulative, target) : this.walk(tier, target);
      const channel = tier.channels[at];
      if (channel === undefined) return undefined;
      this.taken.add(channel.id);
      this.removedWeight += tier.weights[at] ?? 0;
      if (this.usable(channel)) return channel;
      this.skipped++;
    }
  }

  /** The index whose share contains `target` among the channels not yet taken. */
  private walk(tier: Tier, target: number): number {
    let rest = target;
    let last = -1;
    for (let i = 0; i < tier.channels.length; i++) {
      if (this.taken.has((tier.channels[i] as RelayChannel).id)) continue;
      last = i;
      rest -= tier.weights[i] ?? 0;
      if (rest < 0) return i;
    }
    return last;
  }
}

/** The first index whose cumulative weight exceeds `target` (binary search). */
function firstAbove(cumulative: readonly number[], target: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cumulative[mid] as number) > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
