import { ProxyApiError } from './errors.ts';
import type { StoredChannel } from './repositories/channels.ts';
import { type ChannelView, channelIdSchema } from './schemas/channels.ts';

/** Shortest key whose ends may be shown; a shorter one shows nothing of itself. */
const MIN_KEY_SHOWN = 12;
const ELLIPSIS = '\u2026';
/** The masked form of a key too short to show any of it. */
export const HIDDEN_KEY = '****';

export type { ChannelView };

/**
 * The key as a response may show it: the first 3 and last 4 characters around `…` when it has at least 12
 * characters (so at least 5 stay hidden), else `****`. Counted in code points, so a split never halves one.
 */
export function maskKey(key: string): string {
  const chars = [...key];
  if (chars.length < MIN_KEY_SHOWN) return HIDDEN_KEY;
  return `${chars.slice(0, 3).join('')}${ELLIPSIS}${chars.slice(-4).join('')}`;
}

/** True when `key` looks like a masked key rather than a real one (it holds `…` or is `****`). */
export function looksMasked(key: string): boolean {
  return key.includes(ELLIPSIS) || key === HIDDEN_KEY;
}

/** The response form of a stored channel; the only place a stored channel becomes a response. */
export function toChannelView(channel: StoredChannel): ChannelView {
  return {
    id: channel.id,
    provider: channel.provider,
    legacyType: channel.legacyType,
    name: channel.name,
    baseUrl: channel.baseUrl,
    models: [...(channel.models ?? [])],
    key: maskKey(typeof channel.key === 'string' ? channel.key : ''),
    status: channel.status,
    source: { legacyId: channel.source?.legacyId, host: channel.source?.host, database: channel.source?.database },
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
    editedAt: channel.editedAt ?? null,
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
