import type { Family } from './family.ts';
import { DONEHUB_SCHEMA_EXTRA } from './fingerprints.ts';
import {
  DONEHUB_EXTRA_COLUMNS,
  type HubTableRow,
  hubFamily,
  hubTypeTable,
  matchDoneHub,
  ONEHUB_COLUMNS,
} from './hub.ts';
import { ONEAPI_SCHEMA_COLUMNS } from './oneapi.ts';
import { ONEHUB_TABLE } from './onehub.ts';

/**
 * The Done Hub source its own types, defaults and columns were read from: deanxv/done-hub at this commit
 * (common/config/constants.go, providers/providers.go, providers/<name>/base.go, model/channel.go). Types 1-56 are
 * One Hub's, unchanged there (same numbers, same defaults).
 */
export const DONEHUB_COMMIT = '42841b35bf3f687ef8b92dae7633b95384ca0c0b';

/** Done Hub's own types, above One Hub's. */
export const DONEHUB_OWN_TABLE: readonly HubTableRow[] = [
  // Google's Code Assist endpoint with OAuth credentials (JSON) as the key; `other` is the project id.
  [57, 'gemini-cli', 'https://cloudcode-pa.googleapis.com'],
  // An access token or OAuth credentials (JSON) of a Claude subscription.
  [58, 'claude-code', 'https://api.anthropic.com'],
  [59, 'codex', 'https://chatgpt.com'],
  [60, 'antigravity', 'https://daily-cloudcode-pa.googleapis.com'],
  // An API key; Done Hub builds the URL from `other` (Region|ProjectID or a project id).
  [61, 'vertex-ai-express', null],
  // Keys as Bedrock's (32); the URL is built from the region.
  [62, 'bedrock-messages', null],
];

export const DONEHUB_NEWEST_TYPE = 62;

export const DONEHUB: Family = hubFamily({
  kind: 'donehub',
  name: 'Done Hub',
  upstream: { repository: 'deanxv/done-hub', commit: DONEHUB_COMMIT },
  match: matchDoneHub,
  schemaColumns: new Set([...ONEAPI_SCHEMA_COLUMNS, ...DONEHUB_SCHEMA_EXTRA]),
  types: hubTypeTable([...ONEHUB_TABLE, ...DONEHUB_OWN_TABLE]),
  columns: [...ONEHUB_COLUMNS, ...DONEHUB_EXTRA_COLUMNS],
});
