import * as z from '#shared/zod';
import { channelSettingsSchema } from './channel-settings.ts';

/**
 * The review API's channel shapes, written once: the functions build values of these types and the OpenAPI
 * document describes them from these schemas.
 */

/** A channel id in a request: sha256 hex (64 characters), either case; compared in lower case. */
export const channelIdSchema = z
  .pipe(
    z.string().check(z.regex(/^[0-9a-fA-F]{64}$/)),
    z.transform((id: string) => id.toLowerCase()),
  )
  .register(z.globalRegistry, {
    description: 'Channel id: the sha256 (hex) of provider, base URL and key at import time',
  });

/** A channel as the review API shows it: every stored field, the key masked, `editedAt` null until an update. */
export const channelViewSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    id: z.string(),
    provider: z.string(),
    legacyType: z.int(),
    name: z.string(),
    baseUrl: z.string(),
    models: z.array(z.string()),
    key: z.string().register(z.globalRegistry, {
      description: 'Masked: first 3 and last 4 characters around "…" (24 or more), else "****"',
    }),
    status: z.enum(['enabled', 'disabled', 'auto-disabled']).register(z.globalRegistry, {
      description:
        '`auto-disabled`: the relay disabled it after repeated authentication failures (see `statusReason`); an update with `status: "enabled"` re-enables it',
    }),
    statusReason: z.optional(
      z.string().register(z.globalRegistry, { description: 'Why the relay disabled the channel (auto-disabled only)' }),
    ),
    statusChangedAt: z.optional(
      z.string().register(z.globalRegistry, { description: 'When the status last changed (ISO 8601), when known' }),
    ),
    statusHistory: z.optional(
      z
        .array(
          z.strictObject({
            at: z.string(),
            status: z.literal('enabled'),
            by: z.literal('retest'),
            note: z.string(),
          }),
        )
        .register(z.globalRegistry, {
          description:
            'Re-enables by the re-test schedule, newest last, at most 10 (docs/relay.md, "Re-test"); absent when none',
        }),
    ),
    lastRetest: z.optional(
      z
        .strictObject({ at: z.string(), ok: z.boolean(), status: z.int(), message: z.optional(z.string()) })
        .register(z.globalRegistry, {
          description:
            "The last re-test of this channel by the schedule while it was auto-disabled: when, whether it passed, the upstream's status and error message (never the key)",
        }),
    ),
    servable: z.boolean().register(z.globalRegistry, {
      description: 'Whether the relay has an adapter for this provider (a channel it cannot serve carries no traffic)',
    }),
    servableReason: z.optional(
      z
        .string()
        .register(z.globalRegistry, { description: 'Why the relay cannot serve it (when `servable` is false)' }),
    ),
    source: z.strictObject({ legacyId: z.union([z.int(), z.string()]), host: z.string(), database: z.string() }),
    createdAt: z.string(),
    updatedAt: z.string(),
    editedAt: z.nullable(z.string()),
    settings: channelSettingsSchema.register(z.globalRegistry, {
      description: 'What a relay needs besides base URL, models and key; secret parts masked like the key',
    }),
    abbreviated: z.optional(
      z.array(z.enum(['baseUrl', 'models', 'settings'])).register(z.globalRegistry, {
        description:
          'List items only, when the page would be too large: the fields shortened in this item (the detail has them whole)',
      }),
    ),
  }),
);
export type ChannelView = z.infer<typeof channelViewSchema>;

/** The `data` of a list. */
export const channelPageSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    channels: z.array(channelViewSchema),
    total: z.int().check(z.minimum(0)),
  }),
);

/** The `data` of a batch delete. */
export const batchDeleteResultSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({ deleted: z.int().check(z.minimum(0)) }),
);

/** The `data` of a channel test (shared/relay/contract.ts, ChannelTestResult). Never the key. */
export const channelTestResultSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject({
    ok: z.boolean(),
    status: z.int().register(z.globalRegistry, {
      description: "The upstream's HTTP status, or 0 when none was received (or nothing was sent)",
    }),
    latencyMs: z.number().check(z.minimum(0)),
    model: z
      .string()
      .register(z.globalRegistry, { description: 'The model tested: `testModel`, else the first model' }),
    message: z.optional(
      z.string().register(z.globalRegistry, {
        description: "Why it failed: the upstream's error message (scrubbed of the key), or why nothing was sent",
      }),
    ),
  }),
);
