import type { Logger } from '@aws-lambda-powertools/logger';
import {
  type ChannelView,
  channelNotFound,
  looksMasked,
  maskKey,
  parseChannelId,
  toChannelView,
} from '#shared/channel-view';
import { ProxyApiError } from '#shared/errors';
import { ChannelChangedError, type ChannelChanges, type ChannelReviewStore } from '#shared/repositories/channels';
import { CONTROL_CHARACTER, wellFormed, withinChars } from '#shared/text';
import * as z from '#shared/zod';
import { mergeSettings, type SettingsUpdate, settingsUpdateSchema } from './settings.ts';

export const UPDATABLE_FIELDS = ['name', 'baseUrl', 'models', 'status', 'key', 'settings'] as const;
export const MAX_NAME_CHARS = 64;
export const MAX_BASE_URL_CHARS = 2_048;
export const MAX_MODELS = 500;
export const MAX_MODEL_CHARS = 200;
export const MAX_KEY_CHARS = 4_096;
/**
 * Largest channel an update may leave, as JSON text: DynamoDB refuses an item over 400 KB, and an update that grew
 * one past it would otherwise fail as a 500. JSON text is longer than DynamoDB's own count, so this errs safe.
 */
export const MAX_CHANNEL_BYTES = 380_000;
/** Reads and conditional writes tried before an update that keeps losing races answers 409. */
const MAX_ATTEMPTS = 3;

const noControl = (s: string) => !CONTROL_CHARACTER.test(s);

/** `""`, or an absolute http(s) URL with a host and no user name or password (a URL must never carry a secret). */
function isBaseUrl(s: string): boolean {
  if (s === '') return true;
  if (!noControl(s) || /\s/.test(s) || !URL.canParse(s)) return false;
  const url = new URL(s);
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password
  );
}

// Every message names its field and never repeats the value: a body may hold a key.
export const updateChannelBodySchema = z.object({
  name: z.optional(
    z
      .string({ error: 'name must be a string' })
      .check(
        z.trim(),
        z.minLength(1, 'name must not be blank'),
        z.refine(withinChars(MAX_NAME_CHARS), `name must be at most ${MAX_NAME_CHARS} characters`),
        z.refine(noControl, 'name must not contain control characters'),
        z.refine(wellFormed, 'name must be valid Unicode text'),
      ),
  ),
  baseUrl: z.optional(
    z.pipe(
      z
        .string({ error: 'baseUrl must be a string' })
        .check(
          z.trim(),
          z.refine(withinChars(MAX_BASE_URL_CHARS), `baseUrl must be at most ${MAX_BASE_URL_CHARS} characters`),
          z.refine(isBaseUrl, 'baseUrl must be an http(s) URL without user name or password, or ""'),
        ),
      // Stored as the import stores it: one trailing slash removed, nothing appended.
      z.transform((s) => (s.endsWith('/') ? s.slice(0, -1) : s)),
    ),
  ),
  models: z.optional(
    z.pipe(
      z
        .array(
          z
            .string({ error: 'models must hold only strings' })
            .check(
              z.trim(),
              z.minLength(1, 'models must not hold a blank name'),
              z.refine(withinChars(MAX_MODEL_CHARS), `each model must be at most ${MAX_MODEL_CHARS} characters`),
              z.refine(noControl, 'models must not contain control characters'),
              z.refine(wellFormed, 'models must be valid Unicode text'),
            ),
          { error: 'models must be an array of strings' },
        )
        .check(
          z.minLength(1, 'models must name at least one model'),
          z.maxLength(MAX_MODELS, `models must name at most ${MAX_MODELS} models`),
        ),
      // As the import does: duplicates dropped (case-sensitively), first-seen order kept.
      z.transform((models) => [...new Set(models)]),
    ),
  ),
  status: z.optional(z.enum(['enabled', 'disabled'], { error: 'status must be "enabled" or "disabled"' })),
  key: z.optional(
    z
      .string({ error: 'key must be a string' })
      .check(
        z.minLength(1, 'key must not be empty'),
        z.refine(withinChars(MAX_KEY_CHARS), `key must be at most ${MAX_KEY_CHARS} characters`),
        z.refine(noControl, 'key must not contain control characters'),
        z.refine(wellFormed, 'key must be valid Unicode text'),
      ),
  ),
  settings: z.optional(settingsUpdateSchema),
});

export type UpdateChannelBody = z.output<typeof updateChannelBodySchema>;

/**
 * The changes a validated update body asks for. Fields other than the five updatable ones (what a client read
 * back: id, provider, source, timestamps...) are ignored; at least one updatable field must be present.
 */
export function channelChanges(body: UpdateChannelBody): ChannelUpdate {
  const changes: ChannelUpdate = {};
  for (const field of UPDATABLE_FIELDS) {
    if (body[field] !== undefined) Object.assign(changes, { [field]: body[field] });
  }
  if (changes.settings !== undefined && Object.keys(changes.settings).length === 0) delete changes.settings;
  if (Object.keys(changes).length === 0) {
    throw new ProxyApiError(400, `The body must set at least one of ${UPDATABLE_FIELDS.join(', ')}`);
  }
  return changes;
}

/** What an update asks for: fields that replace the stored ones, and settings fields to merge (`null` removes one). */
export type ChannelUpdate = Omit<ChannelChanges, 'settings'> & { settings?: SettingsUpdate };

export interface UpdateChannelDeps {
  repo: Pick<ChannelReviewStore, 'get' | 'update'>;
  now: () => Date;
  logger: Pick<Logger, 'info'>;
}

/**
 * Applies an update to the channel of the `{id}` of its path and stamps `editedAt`, so later imports leave it
 * alone. `key` and the secret parts of `settings` are write-only: their current masked form leaves them as they
 * are (a client saving back what it read); any other masked-looking value is refused. The id never changes.
 */
export async function updateChannel(
  idParameter: unknown,
  changes: ChannelUpdate,
  deps: UpdateChannelDeps,
): Promise<ChannelView> {
  const id = parseChannelId(idParameter, 'id');
  for (let attempt = 1; ; attempt++) {
    const current = await deps.repo.get(id);
    if (current === undefined) throw channelNotFound();
    const { settings, ...fields } = changes;
    const apply: ChannelChanges = { ...fields };
    if (settings !== undefined) apply.settings = mergeSettings(current.settings, settings);
    if (Buffer.byteLength(JSON.stringify({ ...current, ...apply })) > MAX_CHANNEL_BYTES) {
      throw new ProxyApiError(
        400,
        `The channel would be over ${MAX_CHANNEL_BYTES} bytes after this update; shorten or remove some settings`,
      );
    }
    // Re-enabling an auto-disabled channel (or any change of status) is stamped; the repository drops the
    // relay's reason with it. The same status again changes nothing.
    if (apply.status !== undefined && apply.status !== current.status) apply.statusChangedAt = deps.now().toISOString();
    else delete apply.status;
    if (apply.key !== undefined) {
      if (apply.key === maskKey(current.key)) delete apply.key;
      else if (looksMasked(apply.key))
        throw new ProxyApiError(400, 'key looks masked; send the whole key or leave it out');
    }
    try {
      const updated = await deps.repo.update(id, apply, deps.now().toISOString(), current.updatedAt);
      // Names only: a value may be a key or a secret setting.
      deps.logger.info('Channel updated', {
        id,
        fields: Object.keys(apply),
        ...(settings === undefined ? {} : { settings: Object.keys(settings) }),
      });
      return toChannelView(updated);
    } catch (error) {
      if (!(error instanceof ChannelChangedError)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new ProxyApiError(409, 'The channel kept changing while it was being updated; read it again and retry', {
          cause: error,
        });
      }
    }
  }
}
