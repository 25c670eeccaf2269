import { ProxyApiError } from '#shared/errors';
import { type ChannelSettings, SETTINGS_FIELDS, type SettingsField } from '#shared/schemas/channel-settings';
import {
  looksMaskedSecret,
  pathName,
  replaceAt,
  type SecretPath,
  secretParts,
  valueAt,
} from '#shared/settings-secrets';
import { CONTROL_CHARACTER, wellFormed, withinChars } from '#shared/text';
import * as z from '#shared/zod';

/*
 * The `settings` of an update (docs/channel-review-api.md, "Settings"): a partial object whose fields replace the
 * stored fields, `null` removing one; the fields not named stay as they are. Each field is validated on its own
 * and a failure names it (`settings.weight must be ...`), never its value: a setting may hold a secret.
 */

export const MAX_SETTING_TEXT_CHARS = 256;
export const MAX_SYSTEM_PROMPT_CHARS = 32_768;
export const MAX_PROXY_URL_CHARS = 2_048;
export const MAX_MAP_ENTRIES = 1_000;
export const MAX_HEADERS = 100;
export const MAX_HEADER_VALUE_CHARS = 8_192;
export const MAX_GROUPS = 100;
export const MAX_GROUP_CHARS = 64;
/** A JSON setting (`paramOverride`, `extra`), as JSON text, in bytes: the import's limit of one settings column. */
export const MAX_JSON_SETTING_BYTES = 65_536;
/** Deepest nesting of a JSON setting (the secret rule walks it; DynamoDB stores at most 32 levels). */
export const MAX_JSON_DEPTH = 30;

const noControl = (s: string) => !CONTROL_CHARACTER.test(s);
// A system prompt may hold line breaks and tabs; other control characters are refused.
const noControlButLines = (s: string) => !/[^\P{Cc}\t\n\r]/u.test(s);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const STATUS_CODE = /^[1-5]\d\d$/;

/** A one-line text setting: trimmed, 1..256 characters, no control characters. */
const line = (field: string, max = MAX_SETTING_TEXT_CHARS) =>
  z
    .string({ error: `settings.${field} must be a string` })
    .check(
      z.trim(),
      z.minLength(1, `settings.${field} must not be blank (send null to remove it)`),
      z.refine(withinChars(max), `settings.${field} must be at most ${max} characters`),
      z.refine(noControl, `settings.${field} must not contain control characters`),
      z.refine(wellFormed, `settings.${field} must be valid Unicode text`),
    );

/** A map of names to text: at most `maxEntries` entries, names and values checked by `name` and `value`. */
function textMap(
  field: string,
  maxEntries: number,
  name: (s: string) => boolean,
  value: (s: string) => boolean,
  rule: string,
) {
  return z
    .record(z.string(), z.string({ error: `settings.${field} values must be strings` }), {
      error: `settings.${field} must be an object`,
    })
    .check(
      z.refine(
        (map) => Object.keys(map).length <= maxEntries,
        `settings.${field} must have at most ${maxEntries} entries`,
      ),
      z.refine((map) => Object.entries(map).every(([k, v]) => name(k) && value(v)), `settings.${field}: ${rule}`),
    );
}

const modelName = (s: string) =>
  s.trim() !== '' && withinChars(MAX_SETTING_TEXT_CHARS)(s) && noControl(s) && wellFormed(s);

/** An http(s) or SOCKS proxy URL, as the gateways accept one. */
function isProxyUrl(s: string): boolean {
  if (!noControl(s) || /\s/.test(s) || !URL.canParse(s)) return false;
  const url = new URL(s);
  return ['http:', 'https:', 'socks5:', 'socks5h:'].includes(url.protocol) && url.hostname !== '';
}

/** True when a JSON value can be stored as it is: well-formed text, named properties, numbers DynamoDB holds. */
function storableJson(value: unknown, depth = 0): boolean {
  if (depth > MAX_JSON_DEPTH) return false;
  if (typeof value === 'string') return wellFormed(value);
  if (typeof value === 'number') {
    const size = Math.abs(value);
    return Number.isFinite(value) && size <= 1e125 && (size === 0 || size >= 1e-129);
  }
  if (typeof value === 'boolean' || value === null) return true;
  if (Array.isArray(value)) return value.every((item) => storableJson(item, depth + 1));
  if (typeof value !== 'object') return false;
  return Object.entries(value).every(([k, v]) => k !== '' && wellFormed(k) && storableJson(v, depth + 1));
}

const jsonObject = (field: string) =>
  z.record(z.string(), z.unknown(), { error: `settings.${field} must be an object` }).check(
    z.refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_JSON_SETTING_BYTES,
      `settings.${field} must be at most ${MAX_JSON_SETTING_BYTES} bytes as JSON`,
    ),
    z.refine(
      (value) => storableJson(value),
      `settings.${field} must hold named properties, valid Unicode text and numbers within ±1e125, nested at most ${MAX_JSON_DEPTH} deep`,
    ),
  );

const nullable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/** The `settings` of an update body; every field optional, `null` removing it. */
export const settingsUpdateSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.strictObject(
    {
      modelMapping: nullable(
        textMap(
          'modelMapping',
          MAX_MAP_ENTRIES,
          modelName,
          modelName,
          `each requested and upstream model name must be 1-${MAX_SETTING_TEXT_CHARS} characters without control characters`,
        ),
      ),
      priority: nullable(z.int({ error: 'settings.priority must be a whole number' })),
      weight: nullable(
        z
          .int({ error: 'settings.weight must be a whole number' })
          .check(z.minimum(0, 'settings.weight must be 0 or more')),
      ),
      groups: nullable(
        z.pipe(
          z
            .array(
              z.string({ error: 'settings.groups must hold only strings' }).check(
                z.trim(),
                z.minLength(1, 'settings.groups must not hold a blank group'),
                z.refine(
                  withinChars(MAX_GROUP_CHARS),
                  `settings.groups: each group must be at most ${MAX_GROUP_CHARS} characters`,
                ),
                z.refine(
                  (s) => noControl(s) && !s.includes(','),
                  'settings.groups must not hold a comma or control characters',
                ),
                z.refine(wellFormed, 'settings.groups must be valid Unicode text'),
              ),
              { error: 'settings.groups must be an array of strings' },
            )
            .check(
              z.minLength(1, 'settings.groups must name at least one group (send null to remove it)'),
              z.maxLength(MAX_GROUPS, `settings.groups must name at most ${MAX_GROUPS} groups`),
            ),
          z.transform((groups) => [...new Set(groups)]),
        ),
      ),
      tag: nullable(line('tag')),
      organization: nullable(line('organization')),
      systemPrompt: nullable(
        z
          .string({ error: 'settings.systemPrompt must be a string' })
          .check(
            z.minLength(1, 'settings.systemPrompt must not be empty (send null to remove it)'),
            z.refine(
              withinChars(MAX_SYSTEM_PROMPT_CHARS),
              `settings.systemPrompt must be at most ${MAX_SYSTEM_PROMPT_CHARS} characters`,
            ),
            z.refine(
              noControlButLines,
              'settings.systemPrompt must not contain control characters other than line breaks and tabs',
            ),
            z.refine(wellFormed, 'settings.systemPrompt must be valid Unicode text'),
          ),
      ),
      testModel: nullable(line('testModel')),
      apiVersion: nullable(line('apiVersion')),
      region: nullable(line('region')),
      projectId: nullable(line('projectId')),
      accountId: nullable(line('accountId')),
      userId: nullable(line('userId')),
      proxyUrl: nullable(
        z
          .string({ error: 'settings.proxyUrl must be a string' })
          .check(
            z.trim(),
            z.refine(
              withinChars(MAX_PROXY_URL_CHARS),
              `settings.proxyUrl must be at most ${MAX_PROXY_URL_CHARS} characters`,
            ),
            z.refine(isProxyUrl, 'settings.proxyUrl must be an http, https, socks5 or socks5h URL with a host'),
          ),
      ),
      headerOverride: nullable(
        textMap(
          'headerOverride',
          MAX_HEADERS,
          (name) => HEADER_NAME.test(name),
          (value) => withinChars(MAX_HEADER_VALUE_CHARS)(value) && !/[^\P{Cc}\t]/u.test(value) && wellFormed(value),
          `each header name must be an HTTP token of at most 256 characters and each value at most ${MAX_HEADER_VALUE_CHARS} characters without line breaks or control characters`,
        ),
      ),
      paramOverride: nullable(jsonObject('paramOverride')),
      statusCodeMapping: nullable(
        textMap(
          'statusCodeMapping',
          MAX_MAP_ENTRIES,
          (code) => STATUS_CODE.test(code),
          (code) => STATUS_CODE.test(code),
          'each upstream and returned status code must be three digits from 100 to 599, as text',
        ),
      ),
      extra: nullable(jsonObject('extra')),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? unknownSettings(issue.keys) : 'settings must be an object',
    },
  ),
);

function unknownSettings(keys: readonly string[]): string {
  const named = keys
    .slice(0, 3)
    .map((k) => JSON.stringify(k.slice(0, 40)))
    .join(', ');
  return `settings has no field ${named}; the fields are ${SETTINGS_FIELDS.join(', ')}`;
}

export type SettingsUpdate = z.output<typeof settingsUpdateSchema>;

/**
 * The field `field` as sent, with each secret part that equals its current masked form replaced by the current
 * secret (a client saving back what it read). Any other secret part that looks masked is a 400 naming it: a mask
 * is never stored in place of a secret.
 */
function keepSecrets(field: SettingsField, current: ChannelSettings, sent: unknown): unknown {
  let wrapped: unknown = { [field]: sent };
  const kept = new Set<string>();
  const currentParts = secretParts({ [field]: current[field] } as ChannelSettings);
  for (const part of currentParts) {
    if (valueAt(wrapped, part.path) === part.masked) {
      wrapped = replaceAt(wrapped, part.path, part.value);
      kept.add(JSON.stringify(part.path));
    }
  }
  const suspects: SecretPath[] = [
    ...secretParts(wrapped as ChannelSettings).map((part) => part.path),
    ...currentParts.map((part) => part.path),
  ];
  for (const path of suspects) {
    if (kept.has(JSON.stringify(path))) continue;
    if (looksMaskedSecret(valueAt(wrapped, path))) {
      throw new ProxyApiError(400, `${pathName(path)} looks masked; send the whole value or leave it out`);
    }
  }
  return (wrapped as Record<string, unknown>)[field];
}

/** The settings after `update`: its fields replace the stored ones, `null` removes one, the rest stay. */
export function mergeSettings(current: ChannelSettings | undefined, update: SettingsUpdate): ChannelSettings {
  const base: ChannelSettings = current ?? {};
  const merged: Record<string, unknown> = { ...base };
  for (const field of SETTINGS_FIELDS) {
    const value = update[field];
    if (value === undefined) continue;
    if (value === null) delete merged[field];
    else merged[field] = keepSecrets(field, base, value);
  }
  return merged as ChannelSettings;
}
