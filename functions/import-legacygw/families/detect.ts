import { ProxyApiError } from '#shared/errors';
import { CORE_COLUMNS, REQUIRED_COLUMNS } from '../limits.ts';
import type { ColumnSpec, Family } from './family.ts';

/** The family a table belongs to, the columns that decided it, and the columns to select (those the table has). */
export interface DetectedFamily {
  readonly family: Family;
  readonly evidence: readonly string[];
  readonly select: readonly ColumnSpec[];
}

/**
 * Decides whose `channels` table this is from its lower-case column names (docs/channel-import.md, "Families"):
 * exactly one family must match. No table, a missing required column, no match or several matches are a 400 whose
 * message names the columns that decided it; nothing is ever guessed.
 */
export function detectFamily(
  columns: ReadonlySet<string>,
  families: readonly Family[],
  database: string,
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
  const matches = families.flatMap((family) => {
    const evidence = family.match(columns);
    return evidence === undefined ? [] : [{ family, evidence }];
  });
  const [only, ...others] = matches;
  if (only === undefined) {
    throw new ProxyApiError(
      400,
      `The channels table matches no gateway this import knows (${families.map((f) => f.name).join(', ')}); ` +
        `its columns: ${[...columns].sort().join(', ')}`,
    );
  }
  if (others.length > 0) {
    throw new ProxyApiError(
      400,
      `The channels table matches more than one gateway, so its channel types cannot be read safely: ${matches
        .map((m) => `${m.family.name} (${m.evidence.join(', ')})`)
        .join('; ')}`,
    );
  }
  const wanted = [...CORE_COLUMNS, ...only.family.columns];
  const seen = new Set<string>();
  const select = wanted.filter((c) => columns.has(c.name) && !seen.has(c.name) && seen.add(c.name));
  return { family: only.family, evidence: only.evidence, select };
}
