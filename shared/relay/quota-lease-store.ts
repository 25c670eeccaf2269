import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keyByIdQuery } from '../repositories/relay-keys.ts';

/*
 * The lease calls on the relay keys table (docs/relay.md, "Quotas", and docs/performance.md, "Quotas: the lease"). A
 * lease is a block of a key's quota taken by one instance: it moves from `remainQuota` to `usedQuota` exactly as a
 * per-request reservation does (so `remainQuota + usedQuota` stays the key's total), and is recorded on the key's item
 * as `quotaLeases.<leaseId> = {held, expiresAt}`. `held` is what the block still stands for: it shrinks by each
 * request's cost as the instance charges it, and what is left goes back to `remainQuota` when the lease ends, by its
 * instance or, once `expiresAt` is past, by any instance.
 */

/** One lease as the key's item records it. */
export interface LeaseRecord {
  readonly leaseId: string;
  /** Quota the block still holds (moved from `remainQuota` to `usedQuota`, not yet charged to a request). */
  readonly held: number;
  /** Epoch milliseconds after which the block is no longer admitted from, and may be returned by anyone. */
  readonly expiresAt: number;
}

/** What taking a block answered. */
export type LeaseTaken =
  | { readonly outcome: 'leased'; readonly remain: number; readonly others: readonly LeaseRecord[] }
  | { readonly outcome: 'insufficient' | 'unindexed' };

/** The lease calls a QuotaLeases makes (DynamoLeaseStore on the keys table; a fake in unit tests). */
export interface LeaseStore {
  /** Takes a new block of `amount` when the key's remainder is at least `minRemain` (≥ amount). */
  take(keyId: string, lease: LeaseRecord, minRemain: number): Promise<LeaseTaken>;
  /** Adds `amount` to a live block when the remainder is at least `minRemain`; false when it is not, or the lease is gone. */
  refill(keyId: string, leaseId: string, amount: number, minRemain: number, expiresAt: number): Promise<boolean>;
  /** Charges `cost` (0: only renews) to a live block and moves its expiry; false when the lease is gone (ended). */
  charge(keyId: string, leaseId: string, cost: number, expiresAt: number): Promise<boolean>;
  /**
   * Ends a lease, returning what it holds to `remainQuota`; with `expiredBefore`, only if its expiry is earlier (a dead
   * instance's block). False when it was already gone or not expired.
   */
  end(keyId: string, leaseId: string, expiredBefore?: number): Promise<boolean>;
  /** The key's leases as its item records them (read through the `byId` index, so possibly a moment old). */
  leases(keyId: string): Promise<readonly LeaseRecord[]>;
}

/** Finds a key's hash by its id (DynamoQuotaStore does, once per instance). */
export interface KeyHashes {
  keyHash(keyId: string): Promise<string | undefined>;
}

/** The leases on a key item's `quotaLeases` map, skipping anything malformed. */
export function leaseRecords(item: Record<string, unknown> | undefined): LeaseRecord[] {
  const map = item?.quotaLeases;
  if (typeof map !== 'object' || map === null) return [];
  const records: LeaseRecord[] = [];
  for (const [leaseId, value] of Object.entries(map as Record<string, unknown>)) {
    const { held, expiresAt } = (value ?? {}) as { held?: unknown; expiresAt?: unknown };
    if (typeof held === 'number' && typeof expiresAt === 'number') records.push({ leaseId, held, expiresAt });
  }
  return records;
}

/** The lease calls on DynamoDB: every change one conditional UpdateItem on the key's item. */
export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly hashes: KeyHashes,
  ) {}

  /** One conditional update; false when its condition failed. */
  private async update(
    keyHash: string,
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>,
  ) {
    try {
      return await this.client.send(new UpdateCommand({ TableName: this.tableName, Key: { keyHash }, ...input }));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  async take(keyId: string, lease: LeaseRecord, minRemain: number): Promise<LeaseTaken> {
    const keyHash = await this.hashes.keyHash(keyId);
    if (keyHash === undefined) return { outcome: 'unindexed' };
    const input = {
      UpdateExpression: 'ADD remainQuota :minus, usedQuota :plus SET quotaLeases.#lease = :lease',
      // Only a limited key, and only quota that exists: the block is never more than the remainder.
      ConditionExpression: '#id = :id AND unlimitedQuota = :false AND remainQuota >= :min',
      ExpressionAttributeNames: { '#id': 'id', '#lease': lease.leaseId },
      ExpressionAttributeValues: {
        ':id': keyId,
        ':false': false,
        ':min': Math.max(minRemain, lease.held),
        ':minus': -lease.held,
        ':plus': lease.held,
        ':lease': { held: lease.held, expiresAt: lease.expiresAt },
      },
      ReturnValues: 'ALL_NEW' as const,
    };
    let result: Awaited<ReturnType<DynamoLeaseStore['update']>>;
    try {
      result = await this.update(keyHash, input);
    } catch (error) {
      // The key's first lease: `quotaLeases` does not exist yet, and a nested path can only be set inside a map.
      if (!(error instanceof Error && error.name === 'ValidationException')) throw error;
      await this.update(keyHash, {
        UpdateExpression: 'SET quotaLeases = :empty',
        ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(quotaLeases)',
        ExpressionAttributeValues: { ':empty': {} },
      });
      result = await this.update(keyHash, input);
    }
    if (!result) return { outcome: 'insufficient' };
    const item = result.Attributes;
    return {
      outcome: 'leased',
      remain: typeof item?.remainQuota === 'number' ? item.remainQuota : 0,
      others: leaseRecords(item).filter((other) => other.leaseId !== lease.leaseId),
    };
  }

  async refill(keyId: string, leaseId: string, amount: number, minRemain: number, expiresAt: number) {
    const keyHash = await this.hashes.keyHash(keyId);
    if (keyHash === undefined) return false;
    const result = await this.update(keyHash, {
      UpdateExpression:
        'ADD remainQuota :minus, usedQuota :plus SET quotaLeases.#lease.held = quotaLeases.#lease.held + :plus, ' +
        'quotaLeases.#lease.expiresAt = :until',
      ConditionExpression: 'attribute_exists(quotaLeases.#lease) AND unlimitedQuota = :false AND remainQuota >= :min',
      ExpressionAttributeNames: { '#lease': leaseId },
      ExpressionAttributeValues: {
        ':false': false,
        ':min': Math.max(minRemain, amount),
        ':minus': -amount,
        ':plus': amount,
        ':until': expiresAt,
      },
    });
    return result !== undefined;
  }

  async charge(keyId: string, leaseId: string, cost: number, expiresAt: number) {
    const keyHash = await this.hashes.keyHash(keyId);
    if (keyHash === undefined) return false;
    const result = await this.update(keyHash, {
      UpdateExpression:
        'SET quotaLeases.#lease.held = quotaLeases.#lease.held - :cost, quotaLeases.#lease.expiresAt = :until',
      ConditionExpression: 'attribute_exists(quotaLeases.#lease)',
      ExpressionAttributeNames: { '#lease': leaseId },
      ExpressionAttributeValues: { ':cost': cost, ':until': expiresAt },
    });
    return result !== undefined;
  }

  async end(keyId: string, leaseId: string, expiredBefore?: number) {
    const keyHash = await this.hashes.keyHash(keyId);
    if (keyHash === undefined) return false;
    // What the block still holds goes back whole, read by the write itself: no charge can slip between a read and it.
    const result = await this.update(keyHash, {
      UpdateExpression:
        'SET remainQuota = remainQuota + quotaLeases.#lease.held, usedQuota = usedQuota - quotaLeases.#lease.held ' +
        'REMOVE quotaLeases.#lease',
      ConditionExpression:
        expiredBefore === undefined
          ? 'attribute_exists(quotaLeases.#lease)'
          : 'attribute_exists(quotaLeases.#lease) AND quotaLeases.#lease.expiresAt < :before',
      ExpressionAttributeNames: { '#lease': leaseId },
      ...(expiredBefore === undefined ? {} : { ExpressionAttributeValues: { ':before': expiredBefore } }),
    });
    return result !== undefined;
  }

  async leases(keyId: string): Promise<readonly LeaseRecord[]> {
    const { Items } = await this.client.send(new QueryCommand(keyByIdQuery(this.tableName, keyId)));
    return leaseRecords(Items?.[0]);
  }
}
