import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type RELAY_KEY_STATUS_REASONS, type RelayKeyRecord, relayKeyRecordSchema } from '../relay-keys.ts';
import { RELAY_KEYS_BY_ID } from '../tables.ts';
import * as z from '../zod.ts';

/** The query of the key with this id, on the by-id index. */
export function keyByIdQuery(tableName: string, id: string) {
  return {
    TableName: tableName,
    IndexName: RELAY_KEYS_BY_ID.name,
    KeyConditionExpression: '#id = :id',
    ExpressionAttributeNames: { '#id': 'id' },
    ExpressionAttributeValues: { ':id': id },
  };
}

/** A stored item that is not a relay key record (a damaged or foreign item): named by its id, never its content. */
export class RelayKeyRecordError extends Error {}

function record(item: Record<string, unknown>): RelayKeyRecord {
  const parsed = z.safeParse(relayKeyRecordSchema, item);
  if (!parsed.success) {
    const id = typeof item.id === 'string' ? item.id : '(no id)';
    throw new RelayKeyRecordError(`relay key record ${id} is malformed: ${parsed.error.issues[0]?.path.join('.')}`);
  }
  return parsed.data;
}

/** The `relayKeys` table (shared/tables.ts): items keyed by the key's HMAC, found by id through the `byId` index. */
export class RelayKeysRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The record of a key hash (a consistent read: a key created a moment ago is found), or undefined. */
  async findByHash(keyHash: string): Promise<RelayKeyRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { keyHash }, ConsistentRead: true }),
    );
    return Item ? record(Item) : undefined;
  }

  /** The record with this id, or undefined (the index is eventually consistent: a key created this instant may be missing). */
  async findById(id: string): Promise<RelayKeyRecord | undefined> {
    const { Items } = await this.client.send(new QueryCommand(keyByIdQuery(this.tableName, id)));
    const [item] = Items ?? [];
    return item ? record(item) : undefined;
  }

  /** Stores a new key; false when an item with this hash exists already (never overwritten). */
  async create(key: RelayKeyRecord): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: key,
          ConditionExpression: 'attribute_not_exists(keyHash)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * Replaces the record of an imported key unless an operator edited it here since (`editedAt`): false when it was
   * edited, deleted or holds another id meanwhile. Needs PutItem.
   */
  async replaceUnlessEdited(key: RelayKeyRecord): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: key,
          ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(editedAt) AND #id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': key.id },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Every key, page by page (a management listing: the table holds one item per key). */
  async list(): Promise<RelayKeyRecord[]> {
    const keys: RelayKeyRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey }));
      keys.push(...(page.Items ?? []).map(record));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return keys;
  }

  /**
   * Records that the key with this id was used at `at` (for the relay, which knows the key id from the authorizer's
   * context, never the key): at most one write per key and `minIntervalMs`, so a busy key is not a write per request.
   * Returns whether it wrote. Needs `dynamodb:Query` on the `byId` index and `dynamodb:UpdateItem` on the table.
   */
  async markUsed(id: string, at: Date, minIntervalMs = 60_000): Promise<boolean> {
    const found = await this.findById(id);
    if (!found) return false;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash: found.keyHash },
          UpdateExpression: 'SET lastUsedAt = :at',
          ConditionExpression:
            'attribute_exists(keyHash) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :before)',
          ExpressionAttributeValues: {
            ':at': at.toISOString(),
            ':before': new Date(at.getTime() - minIntervalMs).toISOString(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * Disables the key with this id, keeping its record (usage records name it; section 23 may re-enable it). Returns the
   * updated record, or undefined when no key has this id.
   */
  async disable(
    id: string,
    reason: (typeof RELAY_KEY_STATUS_REASONS)[number],
    now: Date,
  ): Promise<RelayKeyRecord | undefined> {
    const found = await this.findById(id);
    if (!found) return undefined;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash: found.keyHash },
          UpdateExpression: 'SET #status = :disabled, statusReason = :reason, statusChangedAt = :now',
          ConditionExpression: 'attribute_exists(keyHash) AND #id = :id',
          ExpressionAttributeNames: { '#status': 'status', '#id': 'id' },
          ExpressionAttributeValues: {
            ':disabled': 'disabled',
            ':reason': reason,
            ':now': now.toISOString(),
            ':id': id,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? record(Attributes) : undefined;
    } catch (error) {
      // Deleted between the query and the update.
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /**
   * Sets (a value) or removes (undefined) the named fields of the key with this id, only while the item still holds
   * that id; `changes` may read the current record (and throw to refuse). Returns the updated record, or undefined when
   * no key has this id. Needs Query on `byId` and UpdateItem.
   */
  async update(
    id: string,
    changes: RelayKeyFieldChanges | ((current: RelayKeyRecord) => RelayKeyFieldChanges),
  ): Promise<RelayKeyRecord | undefined> {
    const found = await this.findById(id);
    if (!found) return undefined;
    const fields = typeof changes === 'function' ? changes(found) : changes;
    const names: Record<string, string> = { '#id': 'id' };
    const values: Record<string, unknown> = { ':id': id };
    const sets: string[] = [];
    const removes: string[] = [];
    Object.entries(fields).forEach(([field, value], i) => {
      names[`#f${i}`] = field;
      if (value === undefined) removes.push(`#f${i}`);
      else {
        values[`:v${i}`] = value;
        sets.push(`#f${i} = :v${i}`);
      }
    });
    if (sets.length === 0 && removes.length === 0) return found;
    const expression = [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash: found.keyHash },
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(keyHash) AND #id = :id',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? record(Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /** Deletes the key with this id; false when there is none. Needs Query on `byId` and DeleteItem. */
  async delete(id: string): Promise<boolean> {
    const found = await this.findById(id);
    if (!found) return false;
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { keyHash: found.keyHash },
          ConditionExpression: 'attribute_exists(keyHash) AND #id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': id },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** Fields `update` may change: the record's own, never its hash or id (undefined removes the field). */
export type RelayKeyFieldChanges = Partial<{
  [K in Exclude<keyof RelayKeyRecord, 'keyHash' | 'id' | 'createdAt'>]: RelayKeyRecord[K] | undefined;
}>;
