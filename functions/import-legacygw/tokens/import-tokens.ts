import { createHmac } from 'node:crypto';
import type { RatioConfig } from '#shared/relay/quota';
import type { RoutingOptions } from '#shared/relay/routing-options';
import { type RelayKeyRecord, relayKeyHash } from '#shared/relay-keys';
import type { RelayKeysRepository } from '#shared/repositories/relay-keys';
import type { FamilyKind, RowValues } from '../families/family.ts';
import { type LegacyToken, readLegacyOptions, readLegacyToken, type SkippedToken, usersOf } from './token-families.ts';

/*
 * The token import (docs/relay.md, "Keys"): each legacy token becomes a relay key that accepts the same secret,
 * stored only as its keyed hash. The hash is the item's key, so a re-import finds the same item; its id is derived from
 * the hash (nothing of the key), so it is stable too. Keys an operator edited here are left alone; a dry run reads and
 * compares but writes nothing. No key is ever in the report, a log line or an error.
 */

export interface TokensReport {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  edited: number;
  skipped: number;
  /** The skipped tokens and why (at most 1,000). */
  items: SkippedToken[];
  /** The `options` read, each imported or ignored (ratios, RetryTimes). */
  options: { imported: string[]; ignored: string[] };
}

export interface TokenImportDeps {
  store: Pick<RelayKeysRepository, 'findByHash' | 'create' | 'replaceUnlessEdited'>;
  /** Stores the imported ratios where the relay reads them (`relayState`, `pk = "config"`, `sk = "ratios"`). */
  ratios: { write(config: RatioConfig): Promise<void> };
  /** Stores the imported routing options where the relay reads them (`relayState`, `pk = "config"`, `sk = "routing"`). */
  routing?: { write(options: RoutingOptions): Promise<void> };
  hmacKey: () => Promise<Buffer>;
  now: () => Date;
}

export interface TokenImportInput {
  family: FamilyKind;
  tokens: readonly RowValues[];
  users: readonly RowValues[];
  options: readonly RowValues[];
  /** Whether a users table was read, even if none of its rows is a token's owner (default: `users` is not empty). */
  usersKnown?: boolean;
  /** Tokens the source already left out (a value over its limit), counted as read and skipped. */
  skipped?: readonly SkippedToken[];
  dryRun: boolean;
}

const MAX_ITEMS = 1000;
/** Store calls in flight at once (each token is a GetItem and at most one PutItem). */
const STORE_CONCURRENCY = 16;

/** The id of an imported key: a keyed hash of its keyed hash, 24 hex characters (stable, and nothing of the key). */
export function importedKeyId(hmacKey: Buffer, keyHash: string): string {
  return createHmac('sha256', hmacKey)
    .update('relay-key-id\0', 'utf8')
    .update(keyHash, 'utf8')
    .digest('hex')
    .slice(0, 24);
}

/** The fields an import carries, to compare a stored record with the legacy token. */
const CARRIED = [
  'name',
  'status',
  'statusReason',
  'expiresAt',
  'models',
  'ips',
  'groups',
  'remainQuota',
  'usedQuota',
  'unlimitedQuota',
  'legacyQuota',
] as const;

function sameCarried(stored: RelayKeyRecord, next: RelayKeyRecord): boolean {
  return CARRIED.every((field) => JSON.stringify(stored[field] ?? null) === JSON.stringify(next[field] ?? null));
}

function recordOf(token: LegacyToken, keyHash: string, id: string, createdAt: string): RelayKeyRecord {
  return {
    keyHash,
    id,
    name: token.name,
    groups: token.groups,
    ...(token.models ? { models: token.models } : {}),
    ...(token.ips ? { ips: token.ips } : {}),
    expiresAt: token.expiresAt,
    status: token.status,
    ...(token.statusReason ? { statusReason: token.statusReason } : {}),
    createdAt,
    remainQuota: token.remainQuota,
    usedQuota: token.usedQuota,
    unlimitedQuota: token.unlimitedQuota,
    legacyQuota: { remain: token.remainQuota, used: token.usedQuota },
  };
}

/**
 * A re-imported key's quota (docs/relay.md, "Re-importing keys"): the relay's own remainder moved by what changed at the
 * source since the last import (a top-up there, or what the legacy gateway still metered), so that neither side's
 * spending is lost and a re-import of an unchanged gateway changes nothing. A key stored before `legacyQuota` was
 * recorded takes the source's values.
 */
function mergedQuota(stored: RelayKeyRecord, next: RelayKeyRecord): RelayKeyRecord {
  const seen = stored.legacyQuota;
  if (seen === undefined || next.legacyQuota === undefined) return next;
  return {
    ...next,
    remainQuota: (stored.remainQuota ?? 0) + (next.legacyQuota.remain - seen.remain),
    usedQuota: (stored.usedQuota ?? 0) + (next.legacyQuota.used - seen.used),
  };
}

/** Imports the legacy gateway's tokens (and its ratios) as relay keys; the report's `tokens`. */
export async function importTokens(input: TokenImportInput, deps: TokenImportDeps): Promise<TokensReport> {
  const report: TokensReport = {
    read: input.tokens.length + (input.skipped?.length ?? 0),
    created: 0,
    updated: 0,
    unchanged: 0,
    edited: 0,
    skipped: 0,
    items: [],
    options: { imported: [], ignored: [] },
  };
  const skip = (item: SkippedToken) => {
    report.skipped += 1;
    if (report.items.length < MAX_ITEMS) report.items.push(item);
  };
  for (const item of input.skipped ?? []) skip(item);
  const options = readLegacyOptions(input.options);
  report.options = options.names;
  const users = usersOf(input.users, input.usersKnown ?? input.users.length > 0);
  const hmacKey = await deps.hmacKey();
  const now = deps.now().toISOString();
  // First every row is read and deduplicated (in order, so the skipped items keep the table's order); then the store
  // calls run a few at a time: thousands of tokens one after another would outlast the function.
  const seen = new Set<string>();
  const work: { token: LegacyToken; keyHash: string }[] = [];
  for (const row of input.tokens) {
    const token = readLegacyToken(input.family, row, users);
    if (!('secret' in token)) {
      skip(token);
      continue;
    }
    const keyHash = relayKeyHash(hmacKey, token.secret);
    if (seen.has(keyHash)) {
      skip({ legacyId: token.legacyId, reason: 'the same key as an earlier token of this run' });
      continue;
    }
    seen.add(keyHash);
    work.push({ token, keyHash });
  }
  const one = async ({ token, keyHash }: { token: LegacyToken; keyHash: string }) => {
    const stored = await deps.store.findByHash(keyHash);
    const fresh = recordOf(token, keyHash, stored?.id ?? importedKeyId(hmacKey, keyHash), stored?.createdAt ?? now);
    const next = stored === undefined ? fresh : mergedQuota(stored, fresh);
    if (stored === undefined) {
      if (!input.dryRun && !(await deps.store.create(next))) report.edited += 1;
      else report.created += 1;
    } else if (stored.editedAt !== undefined) {
      report.edited += 1;
    } else if (sameCarried(stored, next)) {
      report.unchanged += 1;
    } else {
      const keep = stored.lastUsedAt === undefined ? next : { ...next, lastUsedAt: stored.lastUsedAt };
      if (!input.dryRun && !(await deps.store.replaceUnlessEdited(keep))) report.edited += 1;
      else report.updated += 1;
    }
  };
  let next = 0;
  const lane = async () => {
    while (next < work.length) {
      const item = work[next] as (typeof work)[number];
      next += 1;
      await one(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(STORE_CONCURRENCY, work.length) }, lane));
  if (!input.dryRun && options.names.imported.some((name) => name.endsWith('Ratio'))) {
    await deps.ratios.write({
      family: input.family,
      modelRatio: options.modelRatio,
      completionRatio: options.completionRatio,
      groupRatio: options.groupRatio,
    });
  }
  if (!input.dryRun && deps.routing && (options.retryTimes !== undefined || options.autoDisable !== undefined)) {
    await deps.routing.write({
      family: input.family,
      ...(options.retryTimes !== undefined ? { maxAttempts: options.retryTimes + 1 } : {}),
      ...(options.autoDisable !== undefined ? { autoDisable: options.autoDisable } : {}),
    });
  }
  return report;
}
