import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DATASETS_BY_PARENT } from '#shared/tables';
import { chunks, GET_BATCH } from './batch.ts';
import { TableRepository } from './table-repository.ts';

/** A knowledge base or folder as stored in the `datasets` table (docs/knowledge-base-api.md). */
export interface DatasetRecord {
  id: string;
  teamId: string;
  tmbId: string;
  parentId: string | null;
  type: 'dataset' | 'folder';
  name: string;
  intro: string;
  avatar: string;
  /** The model fields are present on datasets only, never on folders. */
  vectorModel?: string;
  agentModel?: string;
  vlmModel?: string;
  inheritPermission: true;
  createTime: string;
  updateTime: string;
  /**
   * Written `true` on a knowledge base created empty, removed before its first collection is stored
   * (markContent): a delete skips the content of a knowledge base that says so (knownEmpty). A record written
   * before 2026-11-28 evening has no such field and is always treated as holding content.
   */
  noContent?: true;
}

/** A stored dataset item as its record: `parentKey` is the index's copy of teamId + parentId, not part of it. */
export function datasetRecordOf(item: Record<string, unknown>): DatasetRecord {
  const { parentKey: _parentKey, ...record } = item;
  return record as unknown as DatasetRecord;
}

/** The fields of a record a list shows (what the by-parent index projects). */
export type DatasetSummary = Pick<
  DatasetRecord,
  | 'id'
  | 'teamId'
  | 'parentId'
  | 'type'
  | 'name'
  | 'intro'
  | 'avatar'
  | 'vectorModel'
  | 'tmbId'
  | 'inheritPermission'
  | 'updateTime'
>;

/** What an update may change; `parentId` and `updateTime` are always written. */
export type DatasetChanges = Partial<Pick<DatasetRecord, 'name' | 'intro' | 'avatar' | 'agentModel' | 'vlmModel'>> &
  Pick<DatasetRecord, 'parentId' | 'updateTime'>;

/** Storage of datasets; every read is scoped to one team by its key. */
export interface DatasetRepository {
  /** The team's dataset or folder with this id, or undefined (also when it belongs to another team). */
  get(teamId: string, id: string): Promise<DatasetRecord | undefined>;
  /** Stores a new record; throws DatasetIdConflictError if the id is already taken. */
  put(record: DatasetRecord): Promise<void>;
}

/** What the list, update and delete calls need beyond create's get and put. */
export interface DatasetTreeRepository extends DatasetRepository {
  /** The direct children of a folder (null: the team's root), newest `updateTime` first, page by page. */
  children(teamId: string, parentId: string | null): AsyncIterable<DatasetSummary[]>;
  /** Every record of the team, newest id (creation) first, page by page. */
  teamRecords(teamId: string): AsyncIterable<DatasetSummary[]>;
  /**
   * Writes the named fields of an existing record that still hangs from `expectedParentId` (what the
   * caller read); false when the record no longer exists or has moved meanwhile, and nothing is written.
   */
  update(teamId: string, id: string, changes: DatasetChanges, expectedParentId: string | null): Promise<boolean>;
  /**
   * Takes the team's tree lock for `owner` until `expiresAt` (epoch ms), unless another owner holds it
   * past `now`; true when taken.
   */
  lockTree(teamId: string, owner: string, now: number, expiresAt: number): Promise<boolean>;
  /** Releases the team's tree lock if `owner` still holds it. */
  unlockTree(teamId: string, owner: string): Promise<void>;
  /** Deletes the team's records with these ids (absent ones are no-ops); resolves once every one is gone. */
  deleteMany(teamId: string, ids: readonly string[]): Promise<void>;
}

/** A put found an existing item with the same key; nothing was written. */
export class DatasetIdConflictError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('A dataset with this id already exists', options);
    this.name = 'DatasetIdConflictError';
  }
}

/**
 * The index key of a record's place in the tree: `<teamId>#<parentId>`, or `<teamId>#root`. The part
 * after the last `#` is an id or `root`, neither holding a `#`, so two places never share a key.
 */
export function parentKeyOf(teamId: string, parentId: string | null): string {
  return `${teamId}#${parentId ?? 'root'}`;
}

/**
 * Sort key of the item holding a team's tree lock, in the team's partition of the datasets table. No
 * record can have it (record ids are 24 hex characters), and it sorts after every record id, outside
 * the key range a team's records are read in (RECORD_IDS).
 */
export const TREE_LOCK_ID = 'tree-lock';
/** The sort-key range every record id lies in: reading a team's records by it never returns the lock item. */
const RECORD_IDS = { low: '0'.repeat(24), high: 'f'.repeat(24) } as const;

const SUMMARY_ATTRIBUTES = [
  'id',
  'teamId',
  'parentId',
  'type',
  'name',
  'intro',
  'avatar',
  'vectorModel',
  'tmbId',
  'inheritPermission',
  'updateTime',
] as const;
// Every attribute name goes through a placeholder: `name` and `type` are DynamoDB reserved words.
const SUMMARY_PROJECTION = {
  ProjectionExpression: SUMMARY_ATTRIBUTES.map((_, i) => `#p${i}`).join(', '),
  names: Object.fromEntries(SUMMARY_ATTRIBUTES.map((a, i) => [`#p${i}`, a])),
};

/** DatasetRepository over the DynamoDB Document client: GetItem, conditional Put/UpdateItem, Query, BatchWriteItem. */
export class DynamoDatasetRepository extends TableRepository implements DatasetTreeRepository {
  async get(teamId: string, id: string): Promise<DatasetRecord | undefined> {
    // Consistent, so a folder created a moment ago can already be used as a parent.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { teamId, id }, ConsistentRead: true }),
    );
    return Item === undefined ? undefined : datasetRecordOf(Item);
  }

  async put(record: DatasetRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...record, parentKey: parentKeyOf(record.teamId, record.parentId) },
          // A retried or colliding write must never overwrite an existing dataset.
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new DatasetIdConflictError({ cause: error });
      throw error;
    }
  }

  async *children(teamId: string, parentId: string | null): AsyncIterable<DatasetSummary[]> {
    yield* this.pages({
      IndexName: DATASETS_BY_PARENT.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': DATASETS_BY_PARENT.partitionKey },
      ExpressionAttributeValues: { ':pk': parentKeyOf(teamId, parentId) },
    });
  }

  async *teamRecords(teamId: string): AsyncIterable<DatasetSummary[]> {
    yield* this.pages({
      KeyConditionExpression: '#team = :team AND #id BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#team': 'teamId', '#id': 'id' },
      ExpressionAttributeValues: { ':team': teamId, ':low': RECORD_IDS.low, ':high': RECORD_IDS.high },
    });
  }

  private async *pages(query: {
    IndexName?: string;
    KeyConditionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  }): AsyncIterable<DatasetSummary[]> {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          ...query,
          ExpressionAttributeNames: { ...query.ExpressionAttributeNames, ...SUMMARY_PROJECTION.names },
          ProjectionExpression: SUMMARY_PROJECTION.ProjectionExpression,
          // Newest first: by updateTime on the index, by id (creation time) on the table.
          ScanIndexForward: false,
          ExclusiveStartKey,
        }),
      );
      yield (page.Items ?? []) as DatasetSummary[];
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }

  async update(teamId: string, id: string, changes: DatasetChanges, expectedParentId: string | null): Promise<boolean> {
    const fields: Record<string, unknown> = {
      ...changes,
      // Rewritten with every update, which also gives a record from before the index its key.
      parentKey: parentKeyOf(teamId, changes.parentId),
    };
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([field, value], i) => {
        names[`#f${i}`] = field;
        values[`:v${i}`] = value;
        return `#f${i} = :v${i}`;
      });
    // Never re-create a record deleted since it was read, and never put back a parent another move has
    // changed since (a rename racing a move would undo it, past the move's cycle check).
    names['#parent'] = 'parentId';
    let parentCondition: string;
    if (expectedParentId === null) {
      values[':nullType'] = 'NULL';
      parentCondition = 'attribute_type(#parent, :nullType)';
    } else {
      values[':expectedParent'] = expectedParentId;
      parentCondition = '#parent = :expectedParent';
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { teamId, id },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(id) AND ${parentCondition}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async lockTree(teamId: string, owner: string, now: number, expiresAt: number): Promise<boolean> {
    try {
      // An UpdateItem, not a PutItem: it creates the lock item the first time, and the update function
      // needs no write permission beyond the one it has.
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { teamId, id: TREE_LOCK_ID },
          UpdateExpression: 'SET #owner = :owner, #expires = :expires',
          ConditionExpression: 'attribute_not_exists(#expires) OR #expires <= :now',
          ExpressionAttributeNames: { '#owner': 'lockOwner', '#expires': 'lockExpiresAt' },
          ExpressionAttributeValues: { ':owner': owner, ':expires': expiresAt, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async unlockTree(teamId: string, owner: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { teamId, id: TREE_LOCK_ID },
          UpdateExpression: 'SET #expires = :released',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'lockOwner', '#expires': 'lockExpiresAt' },
          ExpressionAttributeValues: { ':owner': owner, ':released': 0 },
        }),
      );
    } catch (error) {
      // Taken over after it expired: the lock is someone else's now, and stays theirs.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Before a knowledge base's first collection is stored: it may hold content from now on. False when it is gone. */
  async markContent(teamId: string, id: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { teamId, id },
          UpdateExpression: 'REMOVE #n',
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeNames: { '#n': 'noContent' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Those of `ids` whose records say they never held content (consistent BatchGetItem, 100 keys a call). */
  async knownEmpty(teamId: string, ids: readonly string[]): Promise<Set<string>> {
    const empty = new Set<string>();
    for (const some of chunks([...new Set(ids)], GET_BATCH)) {
      const found = await this.writer.retry.getBatch(this.client, {
        [this.tableName]: {
          Keys: some.map((id) => ({ teamId, id })),
          ProjectionExpression: 'id, noContent',
          ConsistentRead: true,
        },
      });
      for (const item of found[this.tableName] ?? []) if (item.noContent === true) empty.add(String(item.id));
    }
    return empty;
  }

  async deleteMany(teamId: string, ids: readonly string[]): Promise<void> {
    await this.writer.writeAll(ids.map((id) => ({ DeleteRequest: { Key: { teamId, id } } })));
  }
}
