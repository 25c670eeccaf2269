/**
 * How an import's channels compare with the stored ones (docs/channel-import.md): each chunk's channels counted as
 * created, updated, unchanged or edited with what to write, and at the end the stored channels no row produced.
 */

import type { ChannelStore, ComparedChannel, StoredChannel } from '#shared/repositories/channels';
import type { StaleItem, StaleReport } from '#shared/schemas/import-report';
import { unkeyedChannelId } from './identity.ts';
import { type LegacyId, type MappedChannel, sameSettings } from './mapping.ts';
import { MAX_REPORT_ITEMS } from './report.ts';

/** What one import classifies its chunks against, and the counts it adds to. */
export interface Classification {
  readonly repo: Pick<ChannelStore, 'getCompared' | 'getMany'>;
  readonly origin: { host: string; database: string };
  /** The import's one timestamp: `updatedAt` of every write, `createdAt` of every new channel. */
  readonly timestamp: string;
  readonly signal: AbortSignal;
  /** The report's channel counts. */
  readonly counts: { created: number; updated: number; unchanged: number; edited: number };
  /** Every id a row of this run produces; the unkeyed ids channels move from are added (they are not stale). */
  readonly produced: Set<string>;
}

/** One chunk's writes: the channels to put, the old ids to delete, and whether each channel is enabled after. */
export interface ChunkChanges {
  readonly changes: StoredChannel[];
  readonly moved: string[];
  readonly enabledAfter: Map<string, boolean>;
}

/**
 * docs/channel-import.md, "An import into an empty table": every id is then new (the mapper never hands the same id
 * over twice), so there is nothing to compare and no edit to protect, and the reads are skipped.
 */
export function classifyAsNew(channels: readonly MappedChannel[], c: Classification): ChunkChanges {
  const changes = channels.map((channel) => toStored(channel, c.origin, c.timestamp, c.timestamp));
  c.counts.created += channels.length;
  return { changes, moved: [], enabledAfter: new Map(channels.map((ch) => [ch.id, ch.status === 'enabled'])) };
}

/** Reads what is stored under the channels' ids, counts each channel and lists what to write. */
export async function classifyChannels(channels: readonly MappedChannel[], c: Classification): Promise<ChunkChanges> {
  const { counts, origin, timestamp, signal } = c;
  const changes: StoredChannel[] = [];
  const moved: string[] = [];
  const existing = await c.repo.getCompared(
    channels.map((ch) => ch.id),
    { signal },
  );
  // docs/channel-import.md, "Moving to keyed ids": a channel not found under its id may be stored under the id an
  // import before keyed ids gave it; it moves to its keyed id with everything an operator edited.
  const missing = channels.filter((ch) => !existing.has(ch.id));
  const unkeyed =
    missing.length === 0
      ? new Map<string, StoredChannel>()
      : await c.repo.getMany(
          missing.map((ch) => unkeyedIdOf(ch)),
          { signal },
        );
  const enabledAfter = new Map<string, boolean>();
  for (const channel of channels) {
    const before = existing.get(channel.id);
    const old = before === undefined && unkeyed.size > 0 ? unkeyed.get(unkeyedIdOf(channel)) : undefined;
    if (before === undefined && old !== undefined && sameLegacyId(old.source?.legacyId, channel.legacyId)) {
      unkeyed.delete(unkeyedIdOf(channel));
      moved.push(old.id);
      c.produced.add(old.id);
      const keep = operatorOwned(old);
      if (keep) counts.edited += 1;
      else if (differs(old, channel)) counts.updated += 1;
      else counts.unchanged += 1;
      const stored = keep
        ? { ...old, id: channel.id }
        : toStored(channel, origin, old.createdAt ?? timestamp, timestamp);
      changes.push(stored);
      enabledAfter.set(channel.id, stored.status === 'enabled');
    } else if (before === undefined) {
      counts.created += 1;
      changes.push(toStored(channel, origin, timestamp, timestamp));
      enabledAfter.set(channel.id, channel.status === 'enabled');
    } else if (operatorOwned(before)) {
      // An operator corrected it through the review API, or the relay disabled it: that wins over the legacy row.
      counts.edited += 1;
      enabledAfter.set(channel.id, before.status === 'enabled');
    } else if (differs(before, channel)) {
      counts.updated += 1;
      changes.push(toStored(channel, origin, before.createdAt ?? timestamp, timestamp));
      enabledAfter.set(channel.id, channel.status === 'enabled');
    } else {
      counts.unchanged += 1;
      enabledAfter.set(channel.id, channel.status === 'enabled');
    }
  }
  return { changes, moved, enabledAfter };
}

/**
 * The stored channels no row of this run produces (docs/channel-import.md, "Stale channels"): every id is scanned
 * (the import may scan ids only), and the first MAX_REPORT_ITEMS by id are read for the report, enabled ones listed
 * first. Undefined when there is none. Nothing is changed: an operator decides.
 */
export async function staleChannels(
  repo: ChannelStore,
  produced: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<StaleReport | undefined> {
  const ids = (await repo.scanIds({ signal })).filter((id) => !produced.has(id)).sort();
  if (ids.length === 0) return undefined;
  const listed = ids.slice(0, MAX_REPORT_ITEMS);
  const found = await repo.getSummaries(listed, { signal });
  const items = listed.flatMap((id): StaleItem[] => {
    const channel = found.get(id);
    if (channel === undefined) return [];
    const legacyId = channel.source?.legacyId;
    return [
      {
        id,
        name: channel.name,
        provider: channel.provider,
        status: channel.status,
        ...(legacyId === undefined ? {} : { legacyId }),
      },
    ];
  });
  items.sort((a, b) => Number(b.status === 'enabled') - Number(a.status === 'enabled'));
  return { count: ids.length, items, itemsTruncated: ids.length > listed.length };
}

function sameLegacyId(stored: number | string | undefined, legacyId: LegacyId): boolean {
  return stored !== undefined && String(stored) === String(legacyId);
}

// docs/channel-import.md: an existing channel counts `updated` when anything the legacy row decides differs. The key
// and the legacy id make the id, so they cannot.
/**
 * An edited channel, or one the relay disabled (`auto-disabled`: a re-import must never re-enable it silently), is
 * left as it is and counted in `channels.edited` (docs/channel-review-api.md, "Auto-disabled channels").
 */
const operatorOwned = (channel: Pick<ComparedChannel, 'editedAt' | 'status'>): boolean =>
  channel.editedAt !== undefined || channel.status === 'auto-disabled';

function differs(before: ComparedChannel, channel: MappedChannel): boolean {
  return (
    before.provider !== channel.provider ||
    before.legacyType !== channel.legacyType ||
    before.baseUrl !== channel.baseUrl ||
    before.name !== channel.name ||
    before.status !== channel.status ||
    !Array.isArray(before.models) ||
    before.models.length !== channel.models.length ||
    before.models.some((m, i) => m !== channel.models[i]) ||
    !sameSettings(before.settings, channel.settings)
  );
}

function toStored(
  channel: MappedChannel,
  origin: { host: string; database: string },
  createdAt: string,
  updatedAt: string,
): StoredChannel {
  // The mapped channel is the stored one but for where it came from and when (spelled out: once per channel).
  return {
    id: channel.id,
    provider: channel.provider,
    legacyType: channel.legacyType,
    name: channel.name,
    baseUrl: channel.baseUrl,
    // The mapper gave each channel a list of its own.
    models: channel.models,
    key: channel.key,
    status: channel.status,
    ...(channel.settings !== undefined ? { settings: channel.settings } : {}),
    source: { legacyId: channel.legacyId, host: origin.host, database: origin.database },
    createdAt,
    updatedAt,
  };
}

/** The id an import before keyed ids gave this channel: worked out only for a channel not found under its own. */
function unkeyedIdOf(channel: MappedChannel): string {
  return unkeyedChannelId(channel.provider, channel.baseUrl, channel.key);
}
