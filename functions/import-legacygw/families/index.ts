import type { Family } from './family.ts';
import { INTERIM_FAMILIES } from './interim.ts';

/** Every family the import recognises; exactly one must match a table (docs/channel-import.md, "Families"). */
export const FAMILIES: readonly Family[] = INTERIM_FAMILIES;
