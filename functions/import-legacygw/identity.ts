import * as crypto from 'node:crypto';

/*
 * Channel ids (docs/channel-import.md, "Identity"). An id is an HMAC-SHA-256, keyed by the deployment's channel-id
 * key, of the legacy row's id and one of its keys: stable across re-imports of the same row whatever else changes in
 * it, independent of where or from which engine the database is read, and useless for confirming a guessed key
 * without the deployment key (an unkeyed hash of a short key can be brute-forced from the id and its mask).
 */

/** Bytes of a channel-id key; generated once per deployment and never rotated (every id depends on it). */
export const CHANNEL_ID_KEY_BYTES = 32;

// Each part length-prefixed, so no two (legacy id, key) pairs share an input.
function framed(...parts: string[]): string {
  return parts.map((p) => `${Buffer.byteLength(p)}:${p}`).join('');
}

/** The id of the channel that legacy row `legacyId` gives for `key`. */
export function channelId(idKey: Buffer, legacyId: string, key: string): string {
  // framed(legacyId, key), spelled out: this runs once per channel.
  const input = `${Buffer.byteLength(legacyId)}:${legacyId}${Buffer.byteLength(key)}:${key}`;
  return crypto.createHmac('sha256', idKey).update(input).digest('hex');
}

// crypto.hash (Node 20.12 and later) digests in one call; createHash stays for older versions. Same bytes.
const sha256Hex: (input: string) => string =
  typeof crypto.hash === 'function'
    ? (input) => crypto.hash('sha256', input, 'hex')
    : (input) => crypto.createHash('sha256').update(input).digest('hex');

/**
 * The id an import before the keyed ids gave the same channel: sha256 of provider, base URL and key. Read only to
 * move such a channel to its keyed id (docs/channel-import.md, "Moving to keyed ids"); never written.
 */
export function unkeyedChannelId(provider: string, baseUrl: string, key: string): string {
  return sha256Hex(framed(provider, baseUrl, key));
}

/**
 * A digest of what makes two channels interchangeable for routing; in memory only, never stored or shown. `row` is
 * the part every channel of a legacy row shares (JSON text: unambiguous, and spelled by the engine in one call).
 */
export function rowRoutingDigest(row: readonly unknown[]): string {
  return sha256Hex(JSON.stringify(row));
}

/** The routing digest of one channel of a row: its row's digest (fixed length), its status and its key. */
export function channelRoutingDigest(rowDigest: string, enabled: boolean, key: string): string {
  return sha256Hex(`${rowDigest}${enabled ? 'e' : 'd'}${key}`);
}
