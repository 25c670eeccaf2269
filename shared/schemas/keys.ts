import { RELAY_KEY_STATUS_REASONS } from '#shared/relay-keys';
import * as z from '#shared/zod';

/**
 * The key API's response shape (`/api/keys`, `/api/key/{id}`; shared/key-view.ts builds values of it). `key` is
 * `sk-…<id>` everywhere but in the answer of `POST /api/keys`, which holds the whole key once.
 */
export const keyViewSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    status: z.enum(['enabled', 'disabled']),
    statusReason: z.optional(z.enum(RELAY_KEY_STATUS_REASONS)),
    expired: z.boolean(),
    groups: z.array(z.string()),
    models: z.nullable(z.array(z.string())),
    ips: z.nullable(z.array(z.string())),
    expiresAt: z.nullable(z.string()),
    unlimitedQuota: z.boolean(),
    remainQuota: z.nullable(z.number()),
    usedQuota: z.number(),
    createdAt: z.string(),
    lastUsedAt: z.nullable(z.string()),
    editedAt: z.nullable(z.string()),
    usage: z.string(),
  }),
);
