import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DATASETS_BY_PARENT } from '#shared/tables';
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
  /** Writes the named fields of an existing record; false when the record no longer exists. */
  update(teamId: string, id: string, changes: DatasetChanges): Promise<boolean>;
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
    if (!Item) return undefined;
    // parentKey is the index's copy of teamId + parentId, not part of the record.
    const { parentKey: _parentKey, ...record } = Item;
    return record as DatasetRecord;
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
      KeyConditionExpression: '#team = :team',
      ExpressionAttributeNames: { '#team': 'teamId' },
      ExpressionAttributeValues: { ':team': teamId },
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

  async update(teamId: string, id: string, changes: DatasetChanges): Promise<boolean> {
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
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { teamId, id },
          UpdateExpression: `SET ${sets.join(', ')}`,
          // Never re-create a record deleted since it was read.
          ConditionExpression: 'attribute_exists(id)',
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

  async deleteMany(teamId: string, ids: readonly string[]): Promise<void> {
    await this.writer.writeAll(ids.map((id) => ({ DeleteRequest: { Key: { teamId, id } } })));
  }
}
