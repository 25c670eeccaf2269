import * as z from '#shared/zod';

/*
 * A channel's settings (docs/channel-import.md, "Settings"): what a relay needs besides base URL, models and keys,
 * carried field by field from the source row by its family. Every field is optional: absent means the family's
 * default (nothing to carry). Secret parts (see shared/settings-secrets.ts) are masked in every read like keys.
 *
 * zod/mini behind a pure module schema (shared/zod.ts), so a function that only needs the type loads nothing.
 */

/** The settings' field names, in the order the review API and the console show them. */
export const SETTINGS_FIELDS = [
  'modelMapping',
  'priority',
  'weight',
  'groups',
  'tag',
  'organization',
  'systemPrompt',
  'testModel',
  'apiVersion',
  'region',
  'projectId',
  'accountId',
  'userId',
  'proxyUrl',
  'headerOverride',
  'paramOverride',
  'statusCodeMapping',
  'extra',
] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

const described = <T extends z.ZodMiniType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

export const channelSettingsSchema = /* @__PURE__ */ z.moduleSchema(() => {
  const text = z.optional(z.string());
  const stringMap = () => z.record(z.string(), z.string());
  return z.strictObject({
    modelMapping: z.optional(described(stringMap(), 'Requested model name -> the name sent upstream')),
    priority: z.optional(z.int()),
    weight: z.optional(z.int()),
    groups: z.optional(
      described(z.array(z.string()), "The caller groups the channel serves (the source's `group` column)"),
    ),
    tag: text,
    organization: text,
    systemPrompt: text,
    testModel: text,
    apiVersion: text,
    region: text,
    projectId: text,
    accountId: text,
    userId: text,
    proxyUrl: z.optional(described(z.string(), 'In a read, a user name and password in it are masked')),
    headerOverride: z.optional(
      described(stringMap(), 'Header name -> value sent upstream; a credential header is masked in a read'),
    ),
    paramOverride: z.optional(
      described(
        z.record(z.string(), z.unknown()),
        'Request parameters set upstream (JSON values); secret-named ones masked in a read',
      ),
    ),
    statusCodeMapping: z.optional(
      described(stringMap(), 'Upstream status code -> the status code returned to the caller (both as text)'),
    ),
    extra: z.optional(
      described(
        z.record(z.string(), z.unknown()),
        "The family's remaining non-default values under its own names; secret parts masked in a read",
      ),
    ),
  });
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
