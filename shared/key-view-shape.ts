/*
 * The shape of a relay key on the channel proxy API, with no import: the console page (a browser bundle, type-checked
 * without Node's types) reads it as the server writes it (shared/key-view.ts).
 */

/** Why a key is disabled: revoked by an operator, or (section 23's import) expired or exhausted at the source. */
export const RELAY_KEY_STATUS_REASONS = ['revoked', 'expired', 'exhausted', 'disabled-at-source'] as const;

/** How a key reads on the API: its record without the hash, masked, with its usage link. */
export interface KeyView {
  id: string;
  /** `sk-…<id>`: the table keeps nothing of the key itself. */
  key: string;
  name: string;
  status: 'enabled' | 'disabled';
  statusReason?: (typeof RELAY_KEY_STATUS_REASONS)[number];
  /** True when the key has an expiry that has passed (it is refused whatever its status). */
  expired: boolean;
  groups: string[];
  models: string[] | null;
  ips: string[] | null;
  expiresAt: string | null;
  unlimitedQuota: boolean;
  remainQuota: number | null;
  usedQuota: number;
  createdAt: string;
  lastUsedAt: string | null;
  /** When an operator last changed it here (a re-import leaves such a key alone). */
  editedAt: string | null;
  /** The key's usage records: `GET /api/usage?keyId=<id>`. */
  usage: string;
}
