import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { expiresAtSchema } from './access-tokens.ts';
import * as z from './zod.ts';

/*
 * Relay keys (docs/authorization.md, "Relay keys"): the third credential kind, which opens the relay API
 * (`/v1`) only. One API's format (`sk-` + 48 letters and digits), so SDK configuration carried over from a legacy
 * gateway keeps working. A key is stored only as a keyed hash: HMAC-SHA-256 under the deployment's channel-id key
 * (shared/channel-id-key.ts), so a dump of the table reveals no key, no prefix of one, and nothing that can be tested
 * against a guess without that key. Never log a key.
 */

/** What every generated relay key starts with; a presented key may omit it (One API's `TokenAuth` strips it). */
export const RELAY_KEY_PREFIX = 'sk-';
/** Characters after the prefix (One API's `char(48)` key column). */
export const RELAY_KEY_LENGTH = 48;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// One API's and New API's keys (48 letters and digits), or One Hub's and Done Hub's since they sign their keys
// (common/user-token.go: a sqids payload of at least 15 characters, `_`, and the 43-character base64url HMAC-SHA-256;
// the `key` column is varchar(59)). Both are accepted so that keys imported from any family keep working.
const KEY_BODY = /^(?:[A-Za-z0-9]{48}|[A-Za-z0-9]{15,32}_[A-Za-z0-9_-]{43})$/;

/** A new random relay key: `sk-` and 48 characters drawn uniformly from [A-Za-z0-9] (about 285 bits). */
export function newRelayKey(): string {
  let body = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < RELAY_KEY_LENGTH; i += 1) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${RELAY_KEY_PREFIX}${body}`;
}

/**
 * The characters that identify a relay key (48, or a Hub-signed key's 59 or so), from a presented bearer token with or
 * without `sk-`; undefined when the token cannot be a relay key (any other shape: an admin key, an access token, junk).
 */
export function relayKeyBody(token: string): string | undefined {
  const body = token.startsWith(RELAY_KEY_PREFIX) ? token.slice(RELAY_KEY_PREFIX.length) : token;
  return KEY_BODY.test(body) ? body : undefined;
}

// Domain separation: the channel-id key also makes channel ids, and no relay key hash may equal any of them.
const HASH_LABEL = 'relay-key\0';

/**
 * The stored form of a relay key: lowercase hex HMAC-SHA-256 under the deployment's channel-id key of a label and the
 * key's body (relayKeyBody), so `sk-abc…` and `abc…` hash alike. Throws for a string that is not a relay key.
 */
export function relayKeyHash(hmacKey: Buffer, key: string): string {
  const body = relayKeyBody(key);
  if (body === undefined) throw new Error('not a relay key');
  return createHmac('sha256', hmacKey).update(HASH_LABEL, 'utf8').update(body, 'utf8').digest('hex');
}

/** A new key id: 24 random hex characters (nothing of the key). */
export function newRelayKeyId(): string {
  return randomBytes(12).toString('hex');
}

/**
 * How a key is shown anywhere (tools, later the console and `GET /api/keys`): `sk-…` and its id. A mask such as `sk-abc…wxyz`
 * (first 3 and last 4 characters) would need characters of the key stored in clear; the table holds none.
 */
export function relayKeyLabel(id: string): string {
  return `${RELAY_KEY_PREFIX}…${id}`;
}

/** A group or model name: 1..200 characters after trimming. */
const nameSchema = () => z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(200, 'is too long'));

/** True for an IP address or a CIDR (IPv4 or IPv6), as the relay key's IP allow-list accepts it. */
export function isIpOrCidr(entry: string): boolean {
  const slash = entry.indexOf('/');
  const address = slash >= 0 ? entry.slice(0, slash) : entry;
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return false;
  if (slash < 0) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** What a relay key may do: its groups, models, IPs and expiry (created by the tool, later by `POST /api/keys`). */
export const relayKeyLimitsSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    /** Ordered: the first group that can serve the model is used. */
    groups: z._default(z.array(nameSchema()).check(z.minLength(1, 'must name at least one group')), ['default']),
    /** The model allow-list; absent = every model. */
    models: z.optional(z.array(nameSchema()).check(z.minLength(1, 'must name at least one model when given'))),
    /** IP addresses and CIDRs the key may be used from; absent = anywhere. */
    ips: z.optional(
      z
        .array(z.string().check(z.trim(), z.refine(isIpOrCidr, 'must be an IP address or a CIDR')))
        .check(z.minLength(1, 'must name at least one address when given')),
    ),
    /** ISO 8601; absent or null = never. */
    expiresAt: z.nullish(expiresAtSchema),
  }),
);
export type RelayKeyLimits = z.infer<typeof relayKeyLimitsSchema>;

/** Why a key is disabled: revoked by an operator, or (section 23's import) expired or exhausted at the source. */
export const RELAY_KEY_STATUS_REASONS = ['revoked', 'expired', 'exhausted', 'disabled-at-source'] as const;

/**
 * One item of the `relayKeys` table. Holds no key and no part of one. Built on its first parse (`z.lazy`): the relay
 * reads a record only after a response (the key's `lastUsedAt`), so its cold start does not build it.
 */
export const relayKeyRecordSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.lazy(() =>
    z.looseObject({
      /** Partition key: relayKeyHash of the key. */
      keyHash: z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')),
      id: z.string().check(z.regex(/^[0-9a-f]{24}$/, 'must be 24 lowercase hex characters')),
      name: z.string(),
      groups: z.array(z.string()).check(z.minLength(1)),
      models: z.optional(z.array(z.string())),
      ips: z.optional(z.array(z.string())),
      expiresAt: z.optional(z.nullable(z.string())),
      status: z.enum(['enabled', 'disabled']),
      statusReason: z.optional(z.enum(RELAY_KEY_STATUS_REASONS)),
      statusChangedAt: z.optional(z.string()),
      createdAt: z.string(),
      lastUsedAt: z.optional(z.string()),
      // Section 23 (quotas): remaining and used quota in the source family's units; unlimited keys are never metered.
      remainQuota: z.optional(z.number()),
      usedQuota: z.optional(z.number()),
      unlimitedQuota: z.optional(z.boolean()),
      /** An imported key: the source's remaining and used quota at the last import (a re-import applies what changed there). */
      legacyQuota: z.optional(z.object({ remain: z.number(), used: z.number() })),
      /** Set when an operator changes the key through the API (`PUT /api/key/{id}`): a re-import leaves it alone. */
      editedAt: z.optional(z.string()),
    }),
  ),
);
export type RelayKeyRecord = z.infer<typeof relayKeyRecordSchema>;

/** True when the record has an expiry at or before `now` (or one that does not parse: fail closed). */
export function relayKeyExpired(record: Pick<RelayKeyRecord, 'expiresAt'>, now: Date): boolean {
  const { expiresAt } = record;
  return expiresAt !== undefined && expiresAt !== null && !(Date.parse(expiresAt) > now.getTime());
}

/** Whether a key may be used now: enabled and not expired (the relay checks its IPs and models per request). */
export function relayKeyUsable(record: RelayKeyRecord, now: Date): boolean {
  return record.status === 'enabled' && !relayKeyExpired(record, now);
}

/**
 * What the authorizer hands the relay in its context (API Gateway allows only strings, numbers and booleans): lists
 * as JSON text, an absent list or expiry as ''. Never the key or its hash.
 */
export interface RelayAuthorizerContext {
  readonly scope: 'relay';
  readonly keyId: string;
  readonly groups: string;
  readonly models: string;
  readonly ips: string;
  readonly expiresAt: string;
  /** `limited` for a key with a limited quota (the relay meters it); absent for an unlimited key. */
  readonly quota?: 'limited';
}

/** True when a record's quota is limited (metered): `unlimitedQuota: false`; a record without quota fields is unlimited. */
export function relayKeyQuotaLimited(record: Pick<RelayKeyRecord, 'unlimitedQuota'>): boolean {
  return record.unlimitedQuota === false;
}

/** The authorizer context of a key record. */
export function relayAuthorizerContext(record: RelayKeyRecord): RelayAuthorizerContext {
  return {
    scope: 'relay',
    keyId: record.id,
    groups: JSON.stringify(record.groups),
    models: record.models === undefined ? '' : JSON.stringify(record.models),
    ips: record.ips === undefined ? '' : JSON.stringify(record.ips),
    expiresAt: record.expiresAt ?? '',
    ...(relayKeyQuotaLimited(record) ? { quota: 'limited' as const } : {}),
  };
}

/** The caller as the relay reads it back from `requestContext.authorizer` (the handler checks it again per request). */
export interface RelayKeyCaller {
  readonly keyId: string;
  readonly groups: readonly string[];
  /** undefined = every model. */
  readonly models?: readonly string[];
  /** undefined = any source address. */
  readonly ips?: readonly string[];
  /** ISO 8601, or null for never. */
  readonly expiresAt: string | null;
  /** True for a key with a limited quota: the relay admits and meters it (docs/relay.md, "Quotas"). */
  readonly limitedQuota?: true;
}

const stringList = /* @__PURE__ */ z.moduleSchema(() => z.array(z.string()));
function listOf(text: unknown): string[] | undefined {
  if (text === '' || text === undefined) return undefined;
  if (typeof text !== 'string') throw new Error('not a list');
  const parsed = z.safeParse(stringList, JSON.parse(text));
  if (!parsed.success) throw new Error('not a list of strings');
  return parsed.data;
}

/**
 * Reads the relay's caller from an authorizer context; undefined when the context is not a relay key's (another scope,
 * a missing or malformed field): the relay then answers 401, whatever the gateway did (defence in depth).
 */
export function relayCallerFromContext(
  context: Readonly<Record<string, unknown>> | null | undefined,
): RelayKeyCaller | undefined {
  if (context?.scope !== 'relay' || typeof context.keyId !== 'string' || context.keyId === '') return undefined;
  try {
    const groups = listOf(context.groups);
    if (groups === undefined || groups.length === 0) return undefined;
    const models = listOf(context.models);
    const ips = listOf(context.ips);
    const expiresAt = typeof context.expiresAt === 'string' && context.expiresAt !== '' ? context.expiresAt : null;
    return {
      keyId: context.keyId,
      groups,
      expiresAt,
      ...(models ? { models } : {}),
      ...(ips ? { ips } : {}),
      ...(context.quota === 'limited' ? { limitedQuota: true as const } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether `sourceIp` may use a key with this IP allow-list (undefined = anywhere). An IPv4-mapped IPv6 source matches
 * its IPv4 entries. Entries that do not parse match nothing (fail closed).
 */
export function relayKeyIpAllowed(ips: readonly string[] | undefined, sourceIp: string): boolean {
  if (ips === undefined) return true;
  const family = isIP(sourceIp);
  if (family === 0) return false;
  const list = new BlockList();
  for (const entry of ips) {
    if (!isIpOrCidr(entry)) continue;
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list.check(sourceIp, family === 4 ? 'ipv4' : 'ipv6');
}
