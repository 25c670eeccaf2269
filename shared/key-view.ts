import { ProxyApiError } from './errors.ts';
import type { KeyView } from './key-view-shape.ts';
import { isIpOrCidr, type RelayKeyRecord, relayKeyExpired, relayKeyLabel } from './relay-keys.ts';
import * as z from './zod.ts';

export type { KeyView } from './key-view-shape.ts';

/*
 * Relay keys as the operator sees them on the channel proxy API (`/api/keys`, `/api/key/{id}`; docs/relay.md, "Keys").
 * The table holds no key material (only its keyed hash), so every read shows `sk-…<id>`; the whole key appears once,
 * in the answer of `POST /api/keys`, and nowhere else.
 */

/** A key id: 24 lowercase hex characters (shared/relay-keys.ts, newRelayKeyId). */
export const keyIdSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.string().check(z.regex(/^[0-9a-f]{24}$/, 'must be 24 lowercase hexadecimal characters')),
);

/** The `{id}` of a key path, or the API's 400. */
export function parseKeyId(value: unknown): string {
  const parsed = z.safeParse(keyIdSchema, value);
  if (!parsed.success) throw new ProxyApiError(400, 'id must be a key id (24 lowercase hexadecimal characters)');
  return parsed.data;
}

/** The 404 of an id that names no key. */
export function keyNotFound(): ProxyApiError {
  return new ProxyApiError(404, 'No key has this id');
}

/** The view of a stored record at `now`. */
export function toKeyView(record: RelayKeyRecord, now: Date): KeyView {
  const unlimited = record.unlimitedQuota ?? record.remainQuota === undefined;
  return {
    id: record.id,
    key: relayKeyLabel(record.id),
    name: record.name,
    status: record.status,
    ...(record.statusReason === undefined ? {} : { statusReason: record.statusReason }),
    expired: relayKeyExpired(record, now),
    groups: record.groups,
    models: record.models ?? null,
    ips: record.ips ?? null,
    expiresAt: record.expiresAt ?? null,
    unlimitedQuota: unlimited,
    remainQuota: record.remainQuota ?? null,
    usedQuota: record.usedQuota ?? 0,
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt ?? null,
    editedAt: record.editedAt ?? null,
    usage: `/api/usage?keyId=${record.id}`,
  };
}

const nameField = () =>
  z
    .string({ error: 'name is required: a string of 1 to 200 characters' })
    .check(z.trim(), z.minLength(1, 'name is required'), z.maxLength(200, 'name must be at most 200 characters'));
const entry = (field: string) =>
  z
    .string({ error: `${field} must be a list of names` })
    .check(
      z.trim(),
      z.minLength(1, `${field} must not hold an empty name`),
      z.maxLength(200, `${field} entries must be at most 200 characters`),
    );
const list = (field: string, item: z.core.$ZodType<string, string>) =>
  z
    .array(item, { error: `${field} must be a list` })
    .check(z.minLength(1, `${field} must name at least one entry, or be null`), z.maxLength(1000));
const ipEntry = () =>
  z
    .string({ error: 'ips must hold IP addresses or CIDRs' })
    .check(z.trim(), z.refine(isIpOrCidr, 'ips must hold IP addresses or CIDRs'));
// One API's quota is an integer of its own units (500,000 per US dollar by default); negative remains are its own
// state after an overspend, so an operator may set any integer.
const quotaField = () =>
  z
    .number({ error: 'remainQuota must be a whole number' })
    .check(
      z.int('remainQuota must be a whole number'),
      z.gte(-Number.MAX_SAFE_INTEGER),
      z.lte(Number.MAX_SAFE_INTEGER),
    );

const expiryField = () =>
  z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: 'expiresAt must be an ISO 8601 date-time with a time zone (e.g. 2030-01-31T00:00:00Z), a date, or null',
  });

/** The limits a create and an update both take, each optional; null clears a limit. */
const limitFields = () => ({
  groups: z.optional(list('groups', entry('groups'))),
  models: z.optional(z.nullable(list('models', entry('models')))),
  ips: z.optional(z.nullable(list('ips', ipEntry()))),
  expiresAt: z.optional(z.nullable(expiryField())),
  remainQuota: z.optional(quotaField()),
  unlimitedQuota: z.optional(z.boolean({ error: 'unlimitedQuota must be true or false' })),
});

/** The editable fields of a key: the body of `PUT /api/key/{id}`, every field optional; null clears a limit. */
export const keyUpdateBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    name: z.optional(nameField()),
    status: z.optional(z.enum(['enabled', 'disabled'], { error: 'status must be "enabled" or "disabled"' })),
    ...limitFields(),
  }),
);
export type KeyUpdate = z.infer<typeof keyUpdateBodySchema>;

/** The body of `POST /api/keys`: a name, and the limits (groups default to `default`; no quota = unlimited). */
export const keyCreateBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    name: nameField(),
    ...limitFields(),
  }),
);
export type KeyCreate = z.infer<typeof keyCreateBodySchema>;

/** An expiry as stored (ISO 8601 in UTC), or null; the API's 400 for one already past at `now`. */
export function normalizedExpiry(expiresAt: string | null | undefined, now: Date): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const time = Date.parse(expiresAt);
  if (!(time > now.getTime())) throw new ProxyApiError(400, 'expiresAt must be in the future');
  return new Date(time).toISOString();
}

/** The quota fields of a create or an update that names them: a limited key needs a remaining quota. */
export function quotaFields(
  body: Pick<KeyCreate, 'remainQuota' | 'unlimitedQuota'>,
  current?: Pick<RelayKeyRecord, 'remainQuota' | 'unlimitedQuota'>,
): { unlimitedQuota: boolean; remainQuota?: number } {
  const unlimitedQuota =
    body.unlimitedQuota ??
    (body.remainQuota !== undefined ? false : (current?.unlimitedQuota ?? current?.remainQuota === undefined));
  const remainQuota = body.remainQuota ?? current?.remainQuota;
  if (!unlimitedQuota && remainQuota === undefined) {
    throw new ProxyApiError(400, 'remainQuota is required for a key whose quota is not unlimited');
  }
  return { unlimitedQuota, ...(remainQuota === undefined ? {} : { remainQuota }) };
}
