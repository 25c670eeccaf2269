/*
 * A relay key's `lastUsedAt` (docs/relay.md, "Keys"): written after a response, at most once a minute per key and
 * execution environment, so a busy key is not a write per request. The table's own condition
 * (RelayKeysRepository.markUsed) keeps instances from writing more often than that between them.
 */

/** What the marker needs of the relay keys table. */
export interface LastUsedStore {
  markUsed(id: string, at: Date, minIntervalMs?: number): Promise<boolean>;
}

/** Keys remembered per instance before the oldest are forgotten (a forgotten key is at most written once more). */
const MAX_REMEMBERED = 10_000;

/** `(keyId) => Promise<void>`: records the key's use now unless this instance did within `minIntervalMs`. */
export function lastUsedMarker(
  store: LastUsedStore,
  now: () => Date = () => new Date(),
  minIntervalMs = 60_000,
): (keyId: string) => Promise<void> {
  const marked = new Map<string, number>();
  return async (keyId) => {
    const at = now();
    const last = marked.get(keyId);
    if (last !== undefined && at.getTime() - last < minIntervalMs) return;
    marked.delete(keyId);
    marked.set(keyId, at.getTime());
    if (marked.size > MAX_REMEMBERED) marked.delete(marked.keys().next().value as string);
    await store.markUsed(keyId, at, minIntervalMs);
  };
}
