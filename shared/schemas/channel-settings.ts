import * as z from 'zod';

/*
 * A channel's settings (docs/channel-import.md, "Settings"): what a relay needs besides base URL, models and keys,
 * carried field by field from the source row by its family. Every field is optional: absent means the family's
 * default (nothing to carry). Secret parts (see shared/settings-secrets.ts) are masked in every read like keys.
 */

const text = z.string();
const stringMap = z.record(z.string(), z.string());

export const channelSettingsSchema = z.strictObject({
  /** Requested model name -> the name sent upstream. */
  modelMapping: stringMap.optional(),
  priority: z.int().optional(),
  weight: z.int().optional(),
  /** The caller groups the channel serves; the source's `group` column, comma-separated there. */
  groups: z.array(text).optional(),
  tag: text.optional(),
  organization: text.optional(),
  systemPrompt: text.optional(),
  testModel: text.optional(),
  apiVersion: text.optional(),
  region: text.optional(),
  projectId: text.optional(),
  accountId: text.optional(),
  userId: text.optional(),
  proxyUrl: text.optional(),
  /** Header name -> value sent upstream; a credential header's value is a secret part. */
  headerOverride: stringMap.optional(),
  /** Request parameters set or overridden upstream (JSON values). */
  paramOverride: z.record(z.string(), z.unknown()).optional(),
  /** Upstream status code -> the status code returned to the caller (both as text). */
  statusCodeMapping: stringMap.optional(),
  /** The remaining non-default values of the family's own columns, under the family's own names. */
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
