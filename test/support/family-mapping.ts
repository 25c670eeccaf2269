import type { Family, RowValues } from '#functions/import-legacygw/families/family';
import { type ChannelSettings, channelSettingsSchema } from '#shared/schemas/channel-settings';
import type { RoutableChannel } from './family-routing.ts';

/*
 * A minimal mapping around a family, of the tests' own (docs/channel-import.md, "Mapping rules"): the family's type
 * table, keys and settings, with the base URL default, status and models rules. It lets the family oracles run on
 * real engines and on generated rows without the import core; identity and collapsing are the core's.
 */

export interface FamilyOutcome {
  readonly channels: (RoutableChannel & { readonly legacyId: number })[];
  /** Skipped rows and why, by legacy id. */
  readonly skips: Record<number, string>;
  readonly settings: Record<number, ChannelSettings>;
  readonly warnings: Record<number, readonly string[]>;
  /** Every row's models, skipped or not. */
  readonly models: Record<number, readonly string[]>;
}

const split = (text: string | null | undefined, separator: RegExp | string) => [
  ...new Set(
    (text ?? '')
      .split(separator)
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  ),
];

/** The family's reading of every row: channels (one per key), skips, settings and warnings. */
export function mapRows(family: Family, rows: readonly RowValues[]): FamilyOutcome {
  const outcome: FamilyOutcome = { channels: [], skips: {}, settings: {}, warnings: {}, models: {} };
  for (const row of rows) {
    const id = Number(row.id);
    const typeNumber = Number(row.type);
    const models = split(row.models, ',');
    outcome.models[id] = models;
    // GORM's soft delete (One Hub, Done Hub): the gateway never loads such a row, and the core skips it.
    if (row.deleted_at !== null && row.deleted_at !== undefined) {
      outcome.skips[id] = 'deleted in the legacy gateway';
      continue;
    }
    const entry = family.types.get(typeNumber);
    if (entry === undefined) {
      outcome.skips[id] = `unknown legacy channel type ${row.type}`;
      continue;
    }
    const type = { type: typeNumber, entry };
    const keys = family.keys(row, type);
    if ('skip' in keys) {
      outcome.skips[id] = keys.skip;
      continue;
    }
    if (keys.keys.length === 0) {
      outcome.skips[id] = 'no API key';
      continue;
    }
    const { settings, warnings } = family.settings(row, type);
    // What a family carries must be storable as a channel's settings.
    channelSettingsSchema.parse(settings);
    outcome.settings[id] = settings;
    if (warnings.length > 0) outcome.warnings[id] = warnings;
    const trimmed = (row.base_url ?? '').trim();
    const baseUrl = (trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed) || entry.defaultBaseUrl || '';
    keys.keys.forEach((key, index) => {
      const enabled = row.status === '1' && !(keys.disabled ?? []).includes(index);
      outcome.channels.push({
        legacyId: id,
        provider: entry.provider,
        baseUrl,
        key,
        status: enabled ? 'enabled' : 'disabled',
        models,
        settings,
      });
    });
  }
  return outcome;
}
