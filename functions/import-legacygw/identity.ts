import * as crypto from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

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
const sha256: (input: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (input) => crypto.hash('sha256', input, 'buffer')
    : (input) => crypto.createHash('sha256').update(input).digest();

/**
 * The id an import before the keyed ids gave the same channel: sha256 of provider, base URL and key. Read only to
 * move such a channel to its keyed id (docs/channel-import.md, "Moving to keyed ids"); never written.
 */
export function unkeyedChannelId(provider: string, baseUrl: string, key: string): string {
  return sha256(framed(provider, baseUrl, key)).toString('hex');
}

/**
 * What makes the channels of one legacy row interchangeable for routing, but for their keys and statuses: provider,
 * base URL, models and settings, as canonical JSON (unambiguous, the same whatever order the settings' keys were
 * built in). In memory only, never stored or shown.
 */
export function rowRoutingText(
  provider: string,
  baseUrl: string,
  models: readonly string[],
  settings: object | undefined,
): string {
  return canonicalJson([provider, baseUrl, models, settings ?? {}]);
}

/**
 * The routing digest of each channel of a row: sha256 of the row's routing text (a whole JSON value, so it ends where
 * its text ends), the channel's status and its key. A row of one key is hashed in one call; the row's part of a row
 * of several keys (models and settings can be tens of KiB) is hashed once and continued for each key. The mapper
 * holds one digest per channel until the import ends, so each is its first 128 bits as a 16-character string: no two
 * channels of any table share one by chance, and making two share one would take about 2^64 hashes.
 */
export function channelRoutingDigests(
  rowText: string,
  keys: readonly string[],
  enabled: (index: number) => boolean,
): string[] {
  const tail = (index: number) => `${enabled(index) ? 'e' : 'd'}${keys[index]}`;
  if (keys.length === 1) return [held(sha256(rowText + tail(0)))];
  const row = crypto.createHash('sha256').update(rowText);
  return keys.map((_, index) => held(row.copy().update(tail(index)).digest()));
}

// A fresh 16-character one-byte string of the digest's first 16 bytes (a slice of a longer string would keep it alive).
function held(digest: Buffer): string {
  return digest.toString('latin1', 0, ROUTING_DIGEST_BYTES);
}
const ROUTING_DIGEST_BYTES = 16;
