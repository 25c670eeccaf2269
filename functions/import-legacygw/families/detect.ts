import { ProxyApiError } from '#shared/errors';
import { CORE_COLUMNS, LIMITS, REQUIRED_COLUMNS } from '../limits.ts';
import type { ColumnSpec, Family, FamilyKind } from './family.ts';

/** The family a table belongs to, the columns that decided it, and the columns to select (those the table has). */
export interface DetectedFamily {
  readonly family: Family;
  readonly evidence: readonly string[];
  readonly select: readonly ColumnSpec[];
  /**
   * Columns no version of the family has (a fork's), read only when the operator chose the family: each row's
   * warnings name those holding a value (docs/channel-import.md, "Forks"). Empty for a detected family.
   */
  readonly foreign: readonly string[];
}

/**
 * Decides whose `channels` table this is from its lower-case column names (docs/channel-import.md, "Families"):
 * exactly one family must match, and the table must have no column that no version of it has. No table, a missing
 * required column, no match, several matches or a fork's columns are a 400 whose message names the columns that
 * decided it; nothing is ever guessed. `chosen`: the family the operator named, read whatever the columns say
 * (its foreign columns are then selected, bounded like settings columns, so rows can be warned about them).
 */
export function detectFamily(
  columns: ReadonlySet<string>,
  families: readonly Family[],
  database: string,
  chosen?: FamilyKind,
): DetectedFamily {
  if (columns.size === 0) {
    throw new ProxyApiError(
      400,
      `The database ${JSON.stringify(database)} has no channels table (or the database user may not read it)`,
    );
  }
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.has(c));
  if (missing.length > 0) {
    throw new ProxyApiError(400, `The channels table lacks required column(s): ${missing.join(', ')}`);
  }
  if (chosen !== undefined) {
    const family = families.find((f) => f.kind === chosen);
    if (family === undefined) throw new ProxyApiError(400, `family must be one of ${kinds(families)}`);
    const foreign = foreignColumns(columns, family);
    const select = [...selection(columns, family), ...foreign.map(foreignColumn)];
    return { family, evidence: ['family chosen by the operator'], select, foreign };
  }
  // Columns no family has ever had are a fork's: they decide nothing here, and are named below.
  const known = new Set(families.flatMap((f) => [...f.schemaColumns]));
  const knownColumns = new Set([...columns].filter((c) => known.has(c)));
  const matches = families.flatMap((family) => {
    const evidence = family.match(knownColumns);
    return evidence === undefined ? [] : [{ family, evidence }];
  });
  const [only, ...others] = matches;
  if (only === undefined) {
    // Named: the columns beyond those every family's table has, i.e. what failed to decide one.
    const shared = families.reduce<string[] | undefined>(
      (common, f) => (common === undefined ? [...f.schemaColumns] : common.filter((c) => f.schemaColumns.has(c))),
      undefined,
    );
    const beyond = [...columns].filter((c) => !(shared ?? []).includes(c)).sort();
    throw new ProxyApiError(
      400,
      `The channels table matches no gateway this import knows (${families.map((f) => f.name).join(', ')}); ` +
        `its columns beyond those every one of them has: ${beyond.join(', ') || 'none'}. ${chooseHint(families)}`,
    );
  }
  if (others.length > 0) {
    throw new ProxyApiError(
      400,
      `The channels table matches more than one gateway, so its channel types cannot be read safely: ${matches
        .map((m) => `${m.family.name} (${m.evidence.join(', ')})`)
        .join('; ')}. ${chooseHint(families)}`,
    );
  }
  const foreign = foreignColumns(columns, only.family);
  if (foreign.length > 0) {
    throw new ProxyApiError(
      400,
      `The channels table looks like ${only.family.name}'s, but no version of ${only.family.name} has column(s) ` +
        `${foreign.join(', ')}: it may be a fork, whose own settings this import would not read. To import it as ` +
        `${only.family.name} anyway, send "family": "${only.family.kind}"; each row's warnings then name those ` +
        'columns where they hold a value.',
    );
  }
  return { family: only.family, evidence: only.evidence, select: selection(columns, only.family), foreign: [] };
}

function kinds(families: readonly Family[]): string {
  return families.map((f) => `"${f.kind}"`).join(', ');
}

function chooseHint(families: readonly Family[]): string {
  return `If you know which gateway wrote it, send "family" (${kinds(families)}) to read it as that one.`;
}

/** The table's columns that no version of the family has, besides the core's. */
function foreignColumns(columns: ReadonlySet<string>, family: Family): string[] {
  const core = new Set(CORE_COLUMNS.map((c) => c.name));
  return [...columns].filter((c) => !family.schemaColumns.has(c) && !core.has(c)).sort();
}

function selection(columns: ReadonlySet<string>, family: Family): ColumnSpec[] {
  const wanted = [...CORE_COLUMNS, ...family.columns];
  const seen = new Set<string>();
  return wanted.filter((c) => columns.has(c.name) && !seen.has(c.name) && seen.add(c.name));
}

// A fork's column is read only to tell whether it holds a value: bounded like a settings column, never stored.
function foreignColumn(name: string): ColumnSpec {
  return { name, kind: 'text', maxBytes: LIMITS.settingsColumnBytes };
}
