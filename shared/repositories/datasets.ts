import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

/** A knowledge base or folder as stored in the `datasets` table (SPEC 2.3). */
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

/** Storage of datasets; every read is scoped to one team by its key. */
export interface DatasetRepository {
  /** The team's dataset or folder with this id, or undefined (also when it belongs to another team). */
  get(teamId: string, id: string): Promise<DatasetRecord | undefined>;
  /** Stores a new record; throws DatasetIdConflictError if the id is already taken. */
  put(record: DatasetRecord): Promise<void>;
}

/** A put found an existing item with the same key; nothing was written. */
export class DatasetIdConflictError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('A dataset with this id already exists', options);
    this.name = 'DatasetIdConflictError';
  }
}

/** DatasetRepository over the DynamoDB Document client (GetItem and conditional PutItem only). */
export class DynamoDatasetRepository implements DatasetRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(teamId: string, id: string): Promise<DatasetRecord | undefined> {
    // Consistent, so a folder created a moment ago can already be used as a parent.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { teamId, id }, ConsistentRead: true }),
    );
    return Item as DatasetRecord | undefined;
  }

  async put(record: DatasetRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          // A retried or colliding write must never overwrite an existing dataset.
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new DatasetIdConflictError({ cause: error });
      throw error;
    }
  }
}
