import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type AccessTokenRecord,
  type CredentialSource,
  isExpired,
  SHORTEST_CREDENTIAL_LENGTH,
} from '#shared/access-tokens';
import { type RelayKeyRecord, relayKeyBody, relayKeyExpired } from '#shared/relay-keys';
import type { RelayKeyLookup } from './relay-key-lookup.ts';

/** What a presented `Authorization` header turned out to be. */
export type Verification =
  | { kind: 'malformed' }
  | { kind: 'unknown' }
  | { kind: 'expired'; record: AccessTokenRecord }
  | { kind: 'admin' }
  | { kind: 'access'; record: AccessTokenRecord }
  | { kind: 'relay'; record: RelayKeyRecord }
  | { kind: 'relay-denied'; record: RelayKeyRecord; reason: 'expired' | 'disabled' };

// RFC 7235 credentials: the scheme is case-insensitive and separated from the token by one or more
// spaces. The token is one run of visible ASCII (RFC 6750's b64token is narrower, but generated
// admin keys may contain punctuation); anything with inner whitespace is malformed.
const BEARER_HEADER = /^bearer +([\x21-\x7e]+)$/i;

/** The token of a `Bearer <token>` header (surrounding whitespace ignored), or undefined if malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  return BEARER_HEADER.exec(header.trim())?.[1];
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Identifies the token in `header`: the admin key, a live access token, an expired one, a relay key (looked up by its
 * keyed hash through `relayKeys` when the token has a relay key's shape and is neither of the others), or unknown.
 * An unknown token gets a second look at freshly read credentials when `mayReadFresh()` allows it
 * (the caller rate-limits it): the cached secret may predate a token created a moment ago, and a
 * Deny would then be cached by API Gateway. A token shorter than any credential the tools make never
 * asks (it cannot be one), so such junk does not even spend the rate limit. Junk of the right length
 * can spend it; a new token still never meets a spent limit, because the tokens tool shows it only
 * once the secret has held it for longer than the limit's interval (docs/authorization.md). Throws if
 * the source fails.
 */
export async function verifyToken(
  header: string | undefined,
  source: CredentialSource,
  now: Date,
  mayReadFresh: () => boolean = () => false,
  relayKeys?: RelayKeyLookup,
): Promise<Verification> {
  const token = bearerToken(header);
  if (token === undefined) return { kind: 'malformed' };
  const presented = digest(token);

  const verification = await identify(presented, source, now, false);
  if (verification.kind !== 'unknown') return verification;
  // The admin key and access tokens come first: an operator's admin key may happen to have a relay key's shape.
  if (relayKeys && relayKeyBody(token) !== undefined) {
    const record = await relayKeys.find(token, now);
    if (record) return relayVerdict(record, now);
  }
  if (token.length < SHORTEST_CREDENTIAL_LENGTH || !mayReadFresh()) return verification;
  return identify(presented, source, now, true);
}

/** A found relay key: usable, or why not (a disabled key is denied before its expiry is looked at). */
function relayVerdict(record: RelayKeyRecord, now: Date): Verification {
  if (record.status !== 'enabled') return { kind: 'relay-denied', record, reason: 'disabled' };
  if (relayKeyExpired(record, now)) return { kind: 'relay-denied', record, reason: 'expired' };
  return { kind: 'relay', record };
}

/**
 * Digests are compared in constant time, and every stored digest is compared, so neither the
 * position of a match nor the admin key's length shows in the timing.
 */
async function identify(
  presented: Buffer,
  source: CredentialSource,
  now: Date,
  fresh: boolean,
): Promise<Extract<Verification, { kind: 'unknown' | 'expired' | 'admin' | 'access' }>> {
  const [adminKey, records] = await Promise.all([source.adminKey({ fresh }), source.accessTokens({ fresh })]);
  // Both sides are 32-byte digests, so timingSafeEqual never throws on a length mismatch.
  const isAdmin = timingSafeEqual(presented, digest(adminKey));
  let match: AccessTokenRecord | undefined;
  for (const record of records) {
    const equal = timingSafeEqual(presented, Buffer.from(record.sha256, 'hex'));
    if (equal && match === undefined) match = record;
  }

  // The admin key wins if an operator ever also stored its digest as an access token.
  if (isAdmin) return { kind: 'admin' };
  if (match === undefined) return { kind: 'unknown' };
  if (isExpired(match, now)) return { kind: 'expired', record: match };
  return { kind: 'access', record: match };
}
