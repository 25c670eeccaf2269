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
    status: z.enum(['enabled', 'disabled']),
    source: z.strictObject({ legacyId: z.int(), host: z.string(), database: z.string() }),
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
