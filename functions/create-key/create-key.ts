import type { Logger } from '@aws-lambda-powertools/logger';
import { type KeyCreate, type KeyView, normalizedExpiry, quotaFields, toKeyView } from '#shared/key-view';
import { type RelayKeyRecord, relayKeyHash } from '#shared/relay-keys';
import type { RelayKeysRepository } from '#shared/repositories/relay-keys';

export interface CreateKeyDeps {
  repo: Pick<RelayKeysRepository, 'create'>;
  /** The deployment's channel-id key, under which relay keys are hashed. */
  hmacKey: () => Promise<Buffer>;
  newKey: () => string;
  newId: () => string;
  now: () => Date;
  logger: Pick<Logger, 'info'>;
}

/** The answer of a create: the key's view with `key` the whole key, shown this once. */
export type CreatedKey = KeyView;

/** Creates a relay key and answers it whole, once; the table keeps only its keyed hash. */
export async function createKey(body: KeyCreate, deps: CreateKeyDeps): Promise<CreatedKey> {
  const now = deps.now();
  const expiresAt = normalizedExpiry(body.expiresAt, now);
  const quota = quotaFields(body);
  const hmacKey = await deps.hmacKey();
  // A hash collision of two random 285-bit keys does not happen; a few tries cover a broken generator in tests.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const key = deps.newKey();
    const record: RelayKeyRecord = {
      keyHash: relayKeyHash(hmacKey, key),
      id: deps.newId(),
      name: body.name,
      groups: body.groups ?? ['default'],
      ...(body.models ? { models: body.models } : {}),
      ...(body.ips ? { ips: body.ips } : {}),
      expiresAt,
      status: 'enabled',
      createdAt: now.toISOString(),
      usedQuota: 0,
      ...quota,
    };
    if (await deps.repo.create(record)) {
      deps.logger.info('Relay key created', { id: record.id });
      return { ...toKeyView(record, now), key };
    }
  }
  throw new Error('could not store a new relay key');
}
