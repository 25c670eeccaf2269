import { DONEHUB } from './donehub.ts';
import type { Family } from './family.ts';
import { NEWAPI } from './newapi.ts';
import { ONEAPI } from './oneapi.ts';
import { ONEHUB } from './onehub.ts';

/** Every family the import knows; exactly one must match a table (docs/channel-import.md, "Families"). */
export const FAMILIES: readonly Family[] = [ONEAPI, NEWAPI, ONEHUB, DONEHUB];
