import type { ChannelStatus } from '../relay/contract.ts';
import type { ChannelSettings } from '../schemas/channel-settings.ts';

/*
 * A channel and its stored form in the `channels` table (docs/channel-import.md, "How a channel is stored"): the types
 * every reader of the table shares, and the one encoding and decoding of an item. The repository (channels.ts) and the
 * relay's channel snapshot (shared/relay/channel-source.ts) both read through `fromChannelItem`.
 */

/** A channel as stored in the `channels` table (docs/channel-import.md). Holds an API key: never log one. */
export interface StoredChannel {
  id: string;
  provider: string;
  legacyType: number;
  name: string;
  baseUrl: string;
  models: string[];
  key: string;
  /** `auto-disabled` is set by the relay after repeated authentication failures; an operator re-enables (docs/channel-review-api.md). */
  status: ChannelStatus;
  /** Why the relay disabled it (`auto-disabled` only); removed when the status is set again. */
  statusReason?: string;
  /** When the status last changed by the relay or by an update that changed it (ISO 8601). */
  statusChangedAt?: string;
  /** Re-enables by the re-test schedule, newest last, at most 10 (functions/retest-channels). */
  statusHistory?: { at: string; status: 'enabled'; by: 'retest'; note: string }[];
  /** The last re-test of an auto-disabled channel, pass or fail (functions/retest-channels). */
  lastRetest?: { at: string; ok: boolean; status: number; message?: string };
  /** Where the channel came from; never credentials. `legacyId` is text when the legacy id is not an integer up to 2^53. */
  source: { legacyId: number | string; host: string; database: string };
  createdAt: string;
  updatedAt: string;
  /** Set by the review API's update; an import leaves an edited channel untouched. */
  editedAt?: string;
  /** What a relay needs besides base URL, models and key; may hold secrets (shared/settings-secrets.ts). */
  settings?: ChannelSettings;
}

/**
 * What the import reads of an existing channel: what it compares (everything the legacy row decides but the key,
 * which is part of the id), whether an operator edited it, and `createdAt`, which it keeps. Never the key.
 */
export const COMPARED_ATTRIBUTES = [
  'id',
  'provider',
  'legacyType',
  'name',
  'baseUrl',
  'status',
  'models',
  'settings',
  'createdAt',
  'editedAt',
] as const;
export type ComparedChannel = Pick<StoredChannel, (typeof COMPARED_ATTRIBUTES)[number]>;

/**
 * The stored form of a channel (docs/channel-import.md, "How a channel is stored"): `settings` and `source` are JSON
 * text, every other attribute is itself. Tables written before this form hold both as maps; `fromChannelItem` reads
 * either, so no table needs migrating and a channel keeps its old form until it is next written.
 */
export type ChannelItem = Omit<StoredChannel, 'settings' | 'source'> & {
  settings?: string | ChannelSettings;
  source: string | StoredChannel['source'];
};

/** A channel as written: `settings` and `source` as JSON text, `source` with `legacyId` first (the list filters on it). */
export function toChannelItem(channel: StoredChannel): ChannelItem {
  const { legacyId, host, database } = channel.source;
  const item: ChannelItem = { ...channel, source: JSON.stringify({ legacyId, host, database }) };
  if (channel.settings !== undefined) item.settings = JSON.stringify(channel.settings);
  return item;
}

/** A channel (or a projection of one) as read, whichever form it was stored in; the item is decoded in place. */
export function fromChannelItem<T extends Partial<StoredChannel>>(stored: object): T {
  const item = stored as Record<string, unknown>;
  if (typeof item.settings === 'string') item.settings = parseStored(item, 'settings');
  if (typeof item.source === 'string') item.source = parseStored(item, 'source');
  return item as T;
}

/** JSON.parse's message quotes the text, which may hold a secret: a damaged attribute is named, never shown. */
function parseStored(item: Record<string, unknown>, attribute: 'settings' | 'source'): unknown {
  try {
    return JSON.parse(item[attribute] as string);
  } catch {
    throw new Error(`Channel ${String(item.id)}: its stored ${attribute} is not valid JSON`);
  }
}

/** What the usage report shows of a channel besides its id (a projection: the only attributes read). */
export const LABEL_ATTRIBUTES = ['id', 'name', 'provider'] as const;
export type ChannelLabel = Pick<StoredChannel, (typeof LABEL_ATTRIBUTES)[number]>;
/** A channel as a report lists it (never its key). */
export type ChannelSummary = Pick<StoredChannel, 'id' | 'name' | 'provider' | 'status' | 'source'>;

/** What the list needs of a channel to filter and order it (a projection; never the key). */
export interface ChannelListEntry {
  id: string;
  provider: string;
  name: string;
  /** Only read when a keyword filter asks for them. */
  baseUrl?: string;
  models?: string[];
  /** Only read when a group filter asks for it (its `groups`). */
  settings?: ChannelSettings;
}
