/*
 * What a gateway routes, as the oracle of the family tests compares it (docs/channel-import.md, "Families"): for
 * every model, the set of enabled channels serving it, each as provider, base URL and key. Expected routings are
 * written by hand from each family's Go source (test/integration/<family>-fixture.expected.ts); `routingOf`
 * computes the same from imported channels, so a wrong type table, default, key format or status shows as a
 * difference.
 */

/** One route target: provider, base URL and key joined by spaces (compared as a whole, never split). */
export type RouteTarget = string;

/** Model -> the sorted, de-duplicated targets serving it. Models no enabled channel serves are absent. */
export type Routing = Readonly<Record<string, readonly RouteTarget[]>>;

/** What `routingOf` reads of a channel (a StoredChannel or a mapped one has these). */
export interface RoutableChannel {
  readonly provider: string;
  readonly baseUrl: string;
  readonly key: string;
  readonly status: string;
  readonly models: readonly string[];
  readonly settings?: { readonly groups?: readonly string[] };
}

export function target(provider: string, baseUrl: string, key: string): RouteTarget {
  return `${provider} ${baseUrl} ${key}`;
}

/**
 * The routing of imported channels: every enabled channel serves each of its models, unless its groups are known to
 * be none (a gateway routes a channel with an empty group list to no caller).
 */
export function routingOf(channels: readonly RoutableChannel[]): Routing {
  const byModel = new Map<string, Set<RouteTarget>>();
  for (const channel of channels) {
    if (channel.status !== 'enabled') continue;
    if (channel.settings?.groups !== undefined && channel.settings.groups.length === 0) continue;
    for (const model of channel.models) {
      const targets = byModel.get(model) ?? new Set<RouteTarget>();
      targets.add(target(channel.provider, channel.baseUrl, channel.key));
      byModel.set(model, targets);
    }
  }
  return normalised(Object.fromEntries([...byModel].map(([model, targets]) => [model, [...targets]])));
}

/** A routing with sorted models and targets, for equality checks of hand-written ones. */
export function normalised(routing: Routing): Routing {
  return Object.fromEntries(
    Object.keys(routing)
      .sort()
      .map((model) => [model, [...new Set(routing[model])].sort()]),
  );
}
