import { ProxyApiError } from './errors.ts';
import { maskKey } from './mask.ts';
import { isServableProvider } from './relay/servable.ts';
import type { StoredChannel } from './repositories/channels.ts';
import { type ChannelSettings, SETTINGS_FIELDS } from './schemas/channel-settings.ts';
import { type ChannelView, channelIdSchema } from './schemas/channels.ts';
import { maskSettings } from './settings-secrets.ts';

export { HIDDEN_KEY, looksMasked, maskKey } from './mask.ts';
export type { ChannelView };

/** The settings fields a response knows, by name: a field stored by a later version never leaks by accident. */
function knownSettings(settings: ChannelSettings | undefined): ChannelSettings {
  const known: Record<string, unknown> = {};
  if (typeof settings !== 'object' || settings === null) return known;
  for (const field of SETTINGS_FIELDS) {
    if (settings[field] !== undefined && settings[field] !== null) known[field] = settings[field];
  }
  return known as ChannelSettings;
}

/** Text with the channel's key masked wherever it occurs (a stored message must never show it). */
function withoutChannelKey(text: string, key: unknown): string {
  return typeof key === 'string' && key.length >= 4 ? text.split(key).join(maskKey(key)) : text;
}

/** The response form of a stored channel; the only place a stored channel becomes a response. */
export function toChannelView(channel: StoredChannel): ChannelView {
  const servable = isServableProvider(channel.provider);
  return {
    id: channel.id,
    provider: channel.provider,
    legacyType: channel.legacyType,
    name: channel.name,
    baseUrl: channel.baseUrl,
    models: [...(channel.models ?? [])],
    key: maskKey(typeof channel.key === 'string' ? channel.key : ''),
    status: channel.status,
    ...(typeof channel.statusReason === 'string' ? { statusReason: channel.statusReason } : {}),
    ...(typeof channel.statusChangedAt === 'string' ? { statusChangedAt: channel.statusChangedAt } : {}),
    ...(Array.isArray(channel.statusHistory)
      ? {
          statusHistory: channel.statusHistory.map(({ at, status, by, note }) => ({
            at: String(at),
            status,
            by,
            note: withoutChannelKey(String(note), channel.key),
          })),
        }
      : {}),
    ...(channel.lastRetest !== undefined && typeof channel.lastRetest === 'object'
      ? {
          lastRetest: {
            at: String(channel.lastRetest.at),
            ok: channel.lastRetest.ok === true,
            status: Number.isInteger(channel.lastRetest.status) ? channel.lastRetest.status : 0,
            ...(typeof channel.lastRetest.message === 'string'
              ? { message: withoutChannelKey(channel.lastRetest.message, channel.key) }
              : {}),
          },
        }
      : {}),
    servable: servable.servable,
    ...(servable.servable ? {} : { servableReason: servable.reason }),
    source: { legacyId: channel.source?.legacyId, host: channel.source?.host, database: channel.source?.database },
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
    editedAt: channel.editedAt ?? null,
    settings: maskSettings(knownSettings(channel.settings)),
  };
}

/**
 * A channel id from a request (path parameter or batch item), lower-cased: ids are sha256 hex (64 characters).
 * Anything else is a 400 naming `field`, so a client that sends an AI Proxy number learns what an id is here.
 */
export function parseChannelId(value: unknown, field: string): string {
  const parsed = channelIdSchema.safeParse(value);
  if (!parsed.success) throw new ProxyApiError(400, `${field} must be a channel id (64 hexadecimal characters)`);
  return parsed.data;
}

/** The 404 of an id that names no channel. */
export function channelNotFound(): ProxyApiError {
  return new ProxyApiError(404, 'No channel has this id');
}
