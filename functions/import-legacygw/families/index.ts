import type { Family } from './family.ts';
import { NEWAPI } from './newapi.ts';
import { ONEAPI } from './oneapi.ts';

/**
 * Every family the import knows; exactly one must match a table (docs/channel-import.md, "Families").
 * One Hub and Done Hub (families/onehub.ts, donehub.ts) join this list when they land.
 */
export const FAMILIES: readonly Family[] = [ONEAPI, NEWAPI];
