import type { FamilyKind, SourceRow } from '#functions/import-legacygw/families/family';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { createRowMapper, type MappedChannel, type RowOutcome } from '#functions/import-legacygw/mapping';
import { TEST_CHANNEL_ID_KEY } from './channel-ids.ts';

/**
 * The row mapper as the mapping tests see it: rows written as the driver used to hand them over (numbers as numbers,
 * absent columns left out), outcomes without the routing details the route tests check on their own
 * (test/unit/routes.test.ts), and channels without the id they would have had before keyed ids.
 */

/** A legacy row as a test writes it. */
export type TestRow = { id: number | string } & Record<string, string | number | null | undefined>;

/** A mapped channel as the mapping tests compare it. */
export type TestChannel = MappedChannel;

/** An outcome as the mapping tests compare it. */
export type TestOutcome =
  | { legacyId: number | string; outcome: 'imported'; channels: TestChannel[]; warnings: string[] }
  | { legacyId: number | string; outcome: 'skipped'; reason: string; warnings: string[] };

/** The row as a source hands it to the core: every present column as text or null. */
export function sourceRow(row: TestRow, oversize: readonly string[] = []): SourceRow {
  const values: Record<string, string | null> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value !== undefined) values[column] = value === null ? null : String(value);
  }
  return { values, oversize };
}

/** The family of `kind` among the import's families. */
export function familyOf(kind: FamilyKind) {
  const family = FAMILIES.find((f) => f.kind === kind);
  if (family === undefined) throw new Error(`no family ${kind}`);
  return family;
}

/** A mapper for one run over the family of `kind` (One API by default), with the tests' channel-id key. */
export function testMapper(kind: FamilyKind = 'oneapi'): {
  map(row: TestRow): TestOutcome;
  raw(row: TestRow): RowOutcome;
} {
  const mapper = createRowMapper({ family: familyOf(kind), idKey: TEST_CHANNEL_ID_KEY });
  return {
    raw: (row) => mapper.map(sourceRow(row)),
    map: (row) => simplify(mapper.map(sourceRow(row))),
  };
}

function simplify(outcome: RowOutcome): TestOutcome {
  if (outcome.outcome === 'skipped') {
    const { legacyId, reason, warnings } = outcome;
    return { legacyId, outcome: 'skipped', reason, warnings };
  }
  const { legacyId, channels, warnings } = outcome;
  return {
    legacyId,
    outcome: 'imported',
    warnings,
    channels,
  };
}
