import type { StoredChannel } from '#shared/repositories/channels';
import type { ChannelSettings } from '#shared/schemas/channel-settings';
import type { Family, RowValues, SourceRow } from './families/family.ts';
import { channelId, channelRoutingDigests, rowRoutingText } from './identity.ts';
import { LIMITS } from './limits.ts';

/** A legacy row's id: a number for an integer in 1..2^53−1, else the id's text (docs/channel-import.md, "Identity"). */
export type LegacyId = number | string;

/** A channel as the import stores it (docs/channel-import.md), before `source` and timestamps are added. */
export type MappedChannel = Omit<StoredChannel, 'source' | 'createdAt' | 'updatedAt'> & {
  legacyId: LegacyId;
};

/** What a legacy row means for routing: the report's routes are counted from it (docs/channel-import.md, "Routes"). */
export interface RowRoutes {
  /** The row's `group` column as read (comma-separated groups), or null. */
  readonly group: string | null;
  readonly models: readonly string[];
  /** Enabled in the legacy gateway (status 1, not deleted). */
  readonly enabled: boolean;
}

/** What became of one legacy row. Warnings and reasons name fields, never values. */
export type RowOutcome =
  | {
      legacyId: LegacyId;
      outcome: 'imported';
      channels: MappedChannel[];
      warnings: string[];
      routes: RowRoutes;
    }
  | {
      legacyId: LegacyId;
      outcome: 'skipped';
      reason: string;
      warnings: string[];
      routes: RowRoutes;
      /** Set when the row adds nothing to an earlier row's channels: the legacy id of that row. */
      identicalTo?: LegacyId;
    };

/** Longest channel name, in code points (docs/channel-import.md). */
export const MAX_NAME_LENGTH = LIMITS.nameChars;

/** What one import run maps with: the table's family and the deployment's channel-id key. */
export interface MapperOptions {
  family: Family;
  idKey: Buffer;
  /** Columns no version of the family has (a fork's), read when the operator chose the family (families/detect.ts). */
  foreign?: readonly string[];
}

/**
 * A mapper for one import run (docs/channel-import.md, "Mapping"). Every row with a usable key becomes its own
 * channels, one per key. It remembers the routing digest of every channel it produced, so a later row that adds no
 * route (same provider, base URL, key, models, status and settings; only the name may differ) is skipped as
 * `identical to legacy channel N`; a row where only some keys repeat imports the others and says how many repeated.
 */
export function createRowMapper({ family, idKey, foreign = [] }: MapperOptions): {
  map(row: SourceRow): RowOutcome;
  /** The fork's columns that held a value in at least one row so far (what the import did not read). */
  foreignInUse(): string[];
} {
  const seen = new Map<string, LegacyId>();
  const inUse = new Set<string>();

  function map({ values, oversize }: SourceRow): RowOutcome {
    const legacyIdText = trimOrEmpty(values.id);
    const legacyId = toLegacyId(legacyIdText);
    const models = splitModels(values.models ?? null);
    const status = values.status?.trim() === '1' && isNull(values.deleted_at) ? 'enabled' : 'disabled';
    const routes: RowRoutes = { group: values.group ?? null, models, enabled: status === 'enabled' };

    if (legacyIdText === '') return skipped(legacyId, routes, 'no legacy id');
    if (!isNull(values.deleted_at)) return skipped(legacyId, routes, 'deleted in the legacy gateway');
    const over = oversize[0];
    if (over !== undefined) return skipped(legacyId, routes, overLimitReason(over));

    const typeText = trimOrEmpty(values.type);
    const type = /^-?\d{1,15}$/.test(typeText) ? Number(typeText) : undefined;
    const entry = type === undefined ? undefined : family.types.get(type);
    if (type === undefined || entry === undefined) {
      return skipped(
        legacyId,
        routes,
        `unknown legacy channel type ${typeText === '' ? 'NULL' : typeText.slice(0, 20)}`,
      );
    }
    const rowType = { type, entry };

    const modelsProblem = checkModels(models);
    if (modelsProblem !== undefined) return skipped(legacyId, routes, modelsProblem);

    const keyResult = family.keys(values, rowType);
    if ('skip' in keyResult) return skipped(legacyId, routes, keyResult.skip);
    const keys = keyResult.keys;
    if (keys.length === 0) return skipped(legacyId, routes, 'no API key');
    if (keys.length > LIMITS.keysPerRow) {
      return skipped(legacyId, routes, `more than ${LIMITS.keysPerRow.toLocaleString('en')} keys`);
    }
    if (keys.some((k) => Buffer.byteLength(k) > LIMITS.keyBytes)) {
      return skipped(legacyId, routes, 'a key over 16 KiB');
    }
    // Keys the family itself no longer uses (New API's per-key status) become disabled channels: no route is added.
    // A set: a row may list up to LIMITS.keysPerRow keys and as many disabled positions, each looked up twice.
    const unused = keyResult.disabled?.length ? new Set(keyResult.disabled) : undefined;
    const statusOf = (index: number) => (unused?.has(index) ? 'disabled' : status);

    const warnings: string[] = [];
    const baseUrl = mapBaseUrl(values.base_url ?? null, entry.defaultBaseUrl);
    if (baseUrl.credentialsRemoved) warnings.push('credentials removed from base URL');
    if (baseUrl.value === '') warnings.push('no base URL');
    if (models.length === 0) warnings.push('no models');
    const { settings, warnings: settingsWarnings } = family.settings(values, rowType);

    const rowText = rowRoutingText(entry.provider, baseUrl.value, models, settings);
    const digests = channelRoutingDigests(rowText, keys, (index) => statusOf(index) === 'enabled');
    const earlier = digests.map((d) => seen.get(d));
    const firstEarlier = earlier[0];
    if (firstEarlier !== undefined && earlier.every((e) => e !== undefined)) {
      return skipped(legacyId, routes, `identical to legacy channel ${firstEarlier}`, firstEarlier);
    }

    // The source fetched one code point more than is kept: a name longer than that, even by a space, was cut.
    const fetchedName = (values.name ?? '').trimStart();
    const cut = fetchedName.length > MAX_NAME_LENGTH && [...fetchedName].length > MAX_NAME_LENGTH;
    const baseName = fetchedName.trimEnd() || `legacy-${legacyIdText}`;
    const channels: MappedChannel[] = [];
    let truncated = false;
    let repeated = false;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      if (earlier[index] !== undefined) {
        repeated = true;
        continue;
      }
      const name = channelName(baseName, index);
      truncated ||= cut || name.truncated;
      channels.push({
        id: channelId(idKey, legacyIdText, key),
        provider: entry.provider,
        legacyType: type,
        name: name.value,
        baseUrl: baseUrl.value,
        models: [...models],
        key,
        status: statusOf(index),
        settings,
        legacyId,
      });
      seen.set(digests[index] as string, legacyId);
    }
    if (truncated) warnings.push('name truncated');

    if (repeated) {
      const identicalTo = [...new Set(earlier.filter((e) => e !== undefined))];
      const count = keys.length - channels.length;
      warnings.push(
        `${count} ${count === 1 ? 'key' : 'keys'} skipped as identical to legacy ${identicalTo.length === 1 ? 'channel' : 'channels'} ${identicalTo.join(', ')}`,
      );
    }
    for (const warning of settingsWarnings) warnings.push(warning);
    const unread = foreignWithValues(values, foreign);
    if (unread.length > 0) warnings.push(`not read (columns no version of ${family.name} has): ${unread.join(', ')}`);
    // A fork may list several keys in one row separated by commas (Veloera does); the family read it as one key.
    if (foreign.length > 0 && keys.some((key) => key.includes(',') && !key.trimStart().startsWith('{'))) {
      warnings.push(`key holds commas: ${family.name} reads it as one key, a fork may mean several`);
    }
    return { legacyId, outcome: 'imported', channels, warnings, routes };
  }

  return {
    map(row) {
      // Every row counts, imported or not: the routes report says which columns decided something unread.
      for (const column of foreignWithValues(row.values, foreign)) inUse.add(column);
      return map(row);
    },
    foreignInUse: () => [...inUse].sort(),
  };
}

// A fork's column holds a value unless it is NULL, empty, zero, false or an empty JSON object or array: what a
// GORM default leaves (docs/channel-import.md, "Forks").
const NO_VALUE = /^(?:|0+(?:\.0*)?|false|null|\{\s*\}|\[\s*\])$/i;

function foreignWithValues(values: RowValues, foreign: readonly string[]): string[] {
  return foreign.filter((column) => {
    const value = values[column];
    return value !== null && value !== undefined && !NO_VALUE.test(value.trim());
  });
}

function skipped(legacyId: LegacyId, routes: RowRoutes, reason: string, identicalTo?: LegacyId): RowOutcome {
  const outcome: RowOutcome = { legacyId, outcome: 'skipped', reason, warnings: [], routes };
  if (identicalTo !== undefined) outcome.identicalTo = identicalTo;
  return outcome;
}

/** The legacy id as the report and the stored channel carry it. */
export function toLegacyId(text: string): LegacyId {
  // Compared as text too: above 2^53 a number rounds, and two ids would read as one.
  const n = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(n) && String(n) === text ? n : text;
}

// The reason names the column and its limit, never the value.
function overLimitReason(column: string): string {
  const limits: Record<string, string> = {
    key: 'key over 1 MiB',
    base_url: 'base_url over 2 KiB',
    models: 'models over 32 KiB',
  };
  return limits[column] ?? `${column} over 64 KiB`;
}

function checkModels(models: readonly string[]): string | undefined {
  if (models.length > LIMITS.modelsPerRow) return `more than ${LIMITS.modelsPerRow.toLocaleString('en')} models`;
  // A name's UTF-16 length bounds its code points from above: only a long one is counted.
  if (models.some((m) => m.length > LIMITS.modelNameChars && [...m].length > LIMITS.modelNameChars)) {
    return `a model name over ${LIMITS.modelNameChars} characters`;
  }
  return undefined;
}

function isNull(value: string | null | undefined): boolean {
  return value === null || value === undefined;
}

/** Trimmed text, '' for NULL or an absent column. */
export function trimOrEmpty(value: string | null | undefined): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** Splits on commas: trimmed, empties dropped, first occurrence kept (case-sensitive). */
export function splitModels(raw: string | null): string[] {
  return unique(trimOrEmpty(raw).split(','));
}

/** Splits a key column on line breaks: trimmed, empties dropped, first occurrence kept. */
export function splitLines(raw: string | null | undefined): string[] {
  return unique(trimOrEmpty(raw).split(/\r?\n/));
}

/** Trimmed, empties dropped, first occurrence kept (case-sensitive). */
export function unique(parts: readonly string[]): string[] {
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ''))];
}

// A user:password@ in a base URL is a credential: it is never stored (docs/channel-import.md, "Base URL").
const USER_INFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/;

// The slash is removed before the default is considered, so a bare "/" falls back to the default too.
function mapBaseUrl(raw: string | null, defaultBaseUrl: string | null): { value: string; credentialsRemoved: boolean } {
  const trimmed = trimOrEmpty(raw);
  const withoutSlash = trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
  const credentialsRemoved = USER_INFO.test(withoutSlash);
  const url = credentialsRemoved ? withoutSlash.replace(USER_INFO, '$1') : withoutSlash;
  return { value: url || defaultBaseUrl || '', credentialsRemoved };
}

// Counted in code points so a name is never cut inside a surrogate pair.
function channelName(baseName: string, index: number): { value: string; truncated: boolean } {
  const suffix = index === 0 ? '' : ` #${index + 1}`;
  const room = MAX_NAME_LENGTH - suffix.length;
  if (baseName.length <= room) return { value: baseName + suffix, truncated: false };
  const codePoints = [...baseName];
  if (codePoints.length <= room) return { value: baseName + suffix, truncated: false };
  return { value: codePoints.slice(0, room).join('').trimEnd() + suffix, truncated: true };
}

/** Settings equal in content, whatever the order of their keys (what equal `canonicalJson` texts mean). */
export function sameSettings(a: ChannelSettings | undefined, b: ChannelSettings | undefined): boolean {
  return sameJson(a ?? {}, b ?? {});
}

// Equal as JSON: an undefined property counts as absent, as JSON.stringify drops it. Compared in place: a re-import
// compares every channel it reads back, and building two texts for each was most of its work.
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item ?? null, b[i] ?? null));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let defined = 0;
  for (const key in left) {
    const value = left[key];
    if (value === undefined) continue;
    defined += 1;
    if (!Object.hasOwn(right, key) || !sameJson(value, right[key])) return false;
  }
  for (const key in right) if (right[key] !== undefined) defined -= 1;
  return defined === 0;
}

/** Values of optional columns the family reads, as the families' helpers expect them. */
export type { RowValues };
