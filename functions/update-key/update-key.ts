import type { Logger } from '@aws-lambda-powertools/logger';
import {
  type KeyUpdate,
  type KeyView,
  keyNotFound,
  normalizedExpiry,
  parseKeyId,
  quotaFields,
  toKeyView,
} from '#shared/key-view';
import type { RelayKeyRecord } from '#shared/relay-keys';
import type { RelayKeyFieldChanges, RelayKeysRepository } from '#shared/repositories/relay-keys';

export interface UpdateKeyDeps {
  repo: Pick<RelayKeysRepository, 'update'>;
  now: () => Date;
  logger: Pick<Logger, 'info'>;
}

/** The stored changes of a valid body against the current record (status reasons and quota rules applied). */
export function keyChanges(body: KeyUpdate, current: RelayKeyRecord, now: Date): RelayKeyFieldChanges {
  const changes: RelayKeyFieldChanges = { editedAt: now.toISOString() };
  if (body.name !== undefined) changes.name = body.name;
  if (body.groups !== undefined) changes.groups = body.groups;
  if (body.models !== undefined) changes.models = body.models ?? undefined;
  if (body.ips !== undefined) changes.ips = body.ips ?? undefined;
  if (body.expiresAt !== undefined) changes.expiresAt = normalizedExpiry(body.expiresAt, now) ?? undefined;
  if (body.status !== undefined && body.status !== current.status) {
    changes.status = body.status;
    // Enabling clears any reason (expired or exhausted at the source too: the operator decided); disabling is a revoke.
    changes.statusReason = body.status === 'disabled' ? 'revoked' : undefined;
    changes.statusChangedAt = now.toISOString();
  }
  if (body.remainQuota !== undefined || body.unlimitedQuota !== undefined) {
    const quota = quotaFields(body, current);
    changes.unlimitedQuota = quota.unlimitedQuota;
    if (quota.remainQuota !== undefined) changes.remainQuota = quota.remainQuota;
  }
  return changes;
}

/** Changes the fields a body names on the key of the `{id}` of its path; 404 when there is none. */
export async function updateKey(idParameter: unknown, body: KeyUpdate, deps: UpdateKeyDeps): Promise<KeyView> {
  const id = parseKeyId(idParameter);
  const now = deps.now();
  const updated = await deps.repo.update(id, (current) => keyChanges(body, current, now));
  if (updated === undefined) throw keyNotFound();
  deps.logger.info('Relay key updated', { id, fields: Object.keys(body) });
  return toKeyView(updated, now);
}
