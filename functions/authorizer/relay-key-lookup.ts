import { type RelayKeyRecord, relayKeyHash, relayKeyUsable } from '#shared/relay-keys';

/** Where relay key records are read by hash (the `relayKeys` table, shared/repositories/relay-keys.ts). */
export interface RelayKeyStore {
  /** A consistent read of one item, or undefined. */
  findByHash(keyHash: string): Promise<RelayKeyRecord | undefined>;
}

/** How the authorizer finds a presented relay key. */
export interface RelayKeyLookup {
  /** The record of a key (with or without `sk-`), or undefined; throws when the store or the HMAC key fails. */
  find(key: string, now: Date): Promise<RelayKeyRecord | undefined>;
  /** Forgets every cached record (tests; a new execution environment starts empty). */
  clear(): void;
}

export interface RelayKeyLookupOptions {
  readonly store: RelayKeyStore;
  /** The deployment's channel-id key, under which keys are hashed (shared/channel-id-key.ts). */
  readonly hmacKey: () => Promise<Buffer>;
  /** How long a found, usable record is reused before the table is read again (the revocation bound adds it). */
  readonly maxAgeMs: number;
  /** Records held at most; the least recently used is dropped first. */
  readonly maxEntries?: number;
  readonly clock?: () => number;
}

/**
 * Relay key lookups through a small in-memory cache, keyed by the key's hash (the cache holds no key). Only a record
 * that allows is cached: a key not found, disabled or expired is read again, consistently, on every lookup, so a key
 * created a moment ago is never denied (a Deny API Gateway would then cache), and a re-enabled key works at once. A
 * revoked key may still be allowed for `maxAgeMs` by an instance that cached it (docs/authorization.md, "Relay keys").
 */
export function cachedRelayKeyLookup(options: RelayKeyLookupOptions): RelayKeyLookup {
  const { store, hmacKey, maxAgeMs, maxEntries = 10_000, clock = () => Date.now() } = options;
  const cache = new Map<string, { record: RelayKeyRecord; at: number }>();
  return {
    async find(key, now) {
      const keyHash = relayKeyHash(await hmacKey(), key);
      const cached = cache.get(keyHash);
      const t = clock();
      if (cached && t - cached.at < maxAgeMs && relayKeyUsable(cached.record, now)) {
        // Refreshes its place in the Map's order: the oldest entry is the least recently used.
        cache.delete(keyHash);
        cache.set(keyHash, cached);
        return cached.record;
      }
      cache.delete(keyHash);
      const record = await store.findByHash(keyHash);
      if (record && relayKeyUsable(record, now)) {
        cache.set(keyHash, { record, at: t });
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return record;
    },
    clear: () => cache.clear(),
  };
}
