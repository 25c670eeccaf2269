import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  CHUNK_SK_PREFIX,
  type ChunkRecord,
  COLLECTION_SK_PREFIX,
  type CollectionRecord,
  chunkSortKeyPrefix,
  collectionSortKey,
  datasetKey,
} from '#shared/kb/contract';
import { KB_CONTENT_BY_PARENT } from '#shared/tables';
import { chunkItem, chunkOfItem } from './chunk-items.ts';
import { KbContentTable } from './kb-content-table.ts';

/*
 * The knowledge base's content in table `kbContent` (shared/kb/contract.ts has the key rules): collections and chunks of
 * one knowledge base in one partition; `byId` finds either from its id; `byParent` lists a folder's collections newest
 * first. Every read by id checks the team on the item found.
 */

/** A collection as this repository stores it: the contract's record plus the by-parent key and its counts. */
export interface StoredCollection extends CollectionRecord {
  /** `<teamId>#<datasetId>#<parentId or root>` (the byParent index). */
  readonly parentKey: string;
  /** Readable chunks of the current generation. */
  readonly dataAmount: number;
  /** Chunks waiting for training (queued or running). */
  readonly trainingAmount: number;
  /** When training last finished (ISO 8601). */
  readonly trainedAt?: string;
}

export type CollectionChanges = Partial<
  Pick<
    StoredCollection,
    | 'name'
    | 'settings'
    | 'parentId'
    | 'parentKey'
    | 'tags'
    | 'forbid'
    | 'status'
    | 'error'
    | 'failedChunks'
    | 'generation'
    | 'dataAmount'
    | 'trainingAmount'
    | 'trainedAt'
    | 'createTime'
    | 'rawTextLength'
    | 'hashRawText'
    | 'fileId'
  >
> & { readonly updateTime?: string };

/** The by-parent key of a collection. */
export function collectionParentKey(teamId: string, datasetId: string, parentId: string | null): string {
  return `${datasetKey(teamId, datasetId)}#${parentId ?? 'root'}`;
}

export interface ContentKey {
  readonly pk: string;
  readonly sk: string;
}

/** `deleting: true` also reads collections marked for a background delete (the delete itself); no reader else does. */
export interface CollectionReadOptions {
  readonly deleting?: boolean;
}

const shown = (c: StoredCollection | undefined, options: CollectionReadOptions) =>
  c !== undefined && (options.deleting === true || c.deleting === undefined) ? c : undefined;
const NOT_DELETING = 'attribute_not_exists(deleting)';

/** Storage of collections and chunks (docs/knowledge-base-api.md, "Collections, data and training"). */
export class KbContentRepository extends KbContentTable {
  /** Stores a new collection; false when the id is taken (nothing written). */
  async putCollection(record: StoredCollection): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** A collection, undefined when absent or being deleted (unless `options.deleting`). */
  async getCollection(
    teamId: string,
    datasetId: string,
    id: string,
    options: CollectionReadOptions = {},
  ): Promise<StoredCollection | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: datasetKey(teamId, datasetId), sk: collectionSortKey(id) },
        ConsistentRead: true,
      }),
    );
    return shown(out.Item as StoredCollection | undefined, options);
  }

  /**
   * A collection of the team found by its id alone, or undefined (absent, a chunk's id, another team's, or being
   * deleted unless `options.deleting`, or of a deleted knowledge base).
   */
  async findCollection(
    teamId: string,
    id: string,
    options: CollectionReadOptions = {},
  ): Promise<StoredCollection | undefined> {
    const item = await this.findById(id);
    if (item === undefined || item.teamId !== teamId || !String(item.sk).startsWith(COLLECTION_SK_PREFIX)) {
      return undefined;
    }
    // The index is eventually consistent: the table's own item is the truth.
    const datasetId = String(item.datasetId);
    const [collection, live] = await Promise.all([
      this.getCollection(teamId, datasetId, id, options),
      this.datasetExists(teamId, datasetId),
    ]);
    return live ? collection : undefined;
  }

  /** A chunk of the team found by its id alone, or undefined (also when its collection or knowledge base is being deleted). */
  async findChunk(teamId: string, id: string): Promise<ChunkRecord | undefined> {
    const item = await this.findById(id);
    if (item === undefined || item.teamId !== teamId || !String(item.sk).startsWith(CHUNK_SK_PREFIX)) return undefined;
    const datasetId = String(item.datasetId);
    const [out, collection, live] = await Promise.all([
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }),
      ),
      this.getCollection(teamId, datasetId, String(item.collectionId)),
      this.datasetExists(teamId, datasetId),
    ]);
    return out.Item === undefined || collection === undefined || !live ? undefined : chunkOfItem(out.Item);
  }

  /** Marks a collection for the background delete (once: the first time stays); false when it is gone. */
  async markDeleting(collection: ContentKey, time: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: collection.pk, sk: collection.sk },
          UpdateExpression: 'SET deleting = if_not_exists(deleting, :t)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':t': time },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** The collections of one folder (null: the knowledge base's root), newest `updateTime` first; none being deleted. */
  async collectionsIn(
    teamId: string,
    datasetId: string,
    parentId: string | null,
    options: CollectionReadOptions = {},
  ): Promise<StoredCollection[]> {
    return this.queryAll<StoredCollection>({
      IndexName: KB_CONTENT_BY_PARENT.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': KB_CONTENT_BY_PARENT.partitionKey },
      ExpressionAttributeValues: { ':pk': collectionParentKey(teamId, datasetId, parentId) },
      ScanIndexForward: false,
      ...(options.deleting ? {} : { FilterExpression: NOT_DELETING }),
    });
  }

  /** Every collection of a knowledge base (consistent), in id order; none being deleted. */
  async allCollections(teamId: string, datasetId: string): Promise<StoredCollection[]> {
    return this.queryAll<StoredCollection>({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId), ':prefix': COLLECTION_SK_PREFIX },
      FilterExpression: NOT_DELETING,
      ConsistentRead: true,
    });
  }

  /** Every chunk of a collection, whatever its generation or state, in chunk order. */
  async chunksOf(teamId: string, datasetId: string, collectionId: string): Promise<ChunkRecord[]> {
    const items = await this.queryAll<Record<string, unknown>>({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId), ':prefix': chunkSortKeyPrefix(collectionId) },
      ConsistentRead: true,
    });
    return items.map(chunkOfItem);
  }

  /**
   * The keys and ids of a collection's chunks, whatever their generation or state, in chunk order (for a delete); the
   * first `limit` only, when given.
   */
  async chunkKeysOf(
    teamId: string,
    datasetId: string,
    collectionId: string,
    limit = Number.POSITIVE_INFINITY,
  ): Promise<(ContentKey & { id: string })[]> {
    const keys: (ContentKey & { id: string })[] = [];
    for await (const page of this.queryPages<ContentKey & { id: string }>({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId), ':prefix': chunkSortKeyPrefix(collectionId) },
      ProjectionExpression: 'pk, sk, id',
      ConsistentRead: true,
      ...(Number.isFinite(limit) ? { Limit: limit } : {}),
    })) {
      keys.push(...page);
      if (keys.length >= limit) break;
    }
    return keys.slice(0, limit);
  }

  /**
   * A collection's chunks a Query page at a time (at most 1 MB each), in chunk order: for a reader that streams them
   * (the export) and so never holds the whole collection.
   */
  async *chunkPagesOf(teamId: string, datasetId: string, collectionId: string): AsyncGenerator<ChunkRecord[]> {
    for await (const items of this.queryPages<Record<string, unknown>>({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId), ':prefix': chunkSortKeyPrefix(collectionId) },
      ConsistentRead: true,
    })) {
      yield items.map(chunkOfItem);
    }
  }

  /** The keys of every item (collections and chunks) of a knowledge base. */
  async allKeys(teamId: string, datasetId: string): Promise<(ContentKey & { fileId?: string; id: string })[]> {
    return this.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': datasetKey(teamId, datasetId) },
      ProjectionExpression: 'pk, sk, id, fileId',
      ConsistentRead: true,
    });
  }

  /**
   * Writes the named fields of an existing collection (and, when given, only if its generation is still `expected`);
   * false when it is gone or has moved on (or, with `unlessStatus`, has that status).
   */
  async updateCollection(
    teamId: string,
    datasetId: string,
    id: string,
    changes: CollectionChanges,
    options: {
      remove?: readonly ('error' | 'failedChunks')[];
      expectedGeneration?: number;
      /** Counts added (negative to take away) in the same write. */
      add?: { readonly dataAmount?: number; readonly trainingAmount?: number };
      /** Only if the collection's status is none of these. */
      unlessStatus?: StoredCollection['status'] | readonly StoredCollection['status'][];
      /** Only if its count of chunks without a vector is still this (0: none, or absent). */
      expectedFailedChunks?: number;
    } = {},
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    for (const [i, [field, value]] of Object.entries(changes).entries()) {
      if (value === undefined) continue;
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      sets.push(`#f${i} = :v${i}`);
    }
    const removes = (options.remove ?? []).map((field, i) => {
      names[`#r${i}`] = field;
      return `#r${i}`;
    });
    const adds = Object.entries(options.add ?? {}).filter(([, n]) => n !== undefined && n !== 0);
    for (const [i, [field, n]] of adds.entries()) {
      names[`#a${i}`] = field;
      values[`:a${i}`] = n;
    }
    // A collection being deleted is never written again (a training that finishes meanwhile drops its own chunks).
    let condition = `attribute_exists(pk) AND ${NOT_DELETING}`;
    const unless = options.unlessStatus === undefined ? [] : [options.unlessStatus].flat();
    for (const [i, status] of unless.entries()) {
      names['#status'] = 'status';
      values[`:unless${i}`] = status;
      condition += ` AND #status <> :unless${i}`;
    }
    if (options.expectedGeneration !== undefined) {
      names['#gen'] = 'generation';
      values[':gen'] = options.expectedGeneration;
      condition += ' AND #gen = :gen';
    }
    if (options.expectedFailedChunks !== undefined) {
      names['#failed'] = 'failedChunks';
      values[':failed'] = options.expectedFailedChunks;
      condition +=
        options.expectedFailedChunks === 0
          ? ' AND (attribute_not_exists(#failed) OR #failed = :failed)'
          : ' AND #failed = :failed';
    }
    const expression = [
      sets.length > 0 ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes}` : '',
      adds.length > 0 ? `ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (expression === '') return true;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: datasetKey(teamId, datasetId), sk: collectionSortKey(id) },
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Adds `by` to a collection's counts (negative to take away); a gone or deleting collection is left alone. */
  async addToCounts(
    teamId: string,
    datasetId: string,
    id: string,
    by: { dataAmount?: number; trainingAmount?: number },
  ): Promise<void> {
    const adds = Object.entries(by).filter(([, n]) => n !== undefined && n !== 0);
    if (adds.length === 0) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: datasetKey(teamId, datasetId), sk: collectionSortKey(id) },
          UpdateExpression: `ADD ${adds.map(([f]) => `${f} :${f}`).join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND ${NOT_DELETING}`,
          ExpressionAttributeValues: Object.fromEntries(adds.map(([f, n]) => [`:${f}`, n])),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async putChunks(chunks: readonly ChunkRecord[]): Promise<void> {
    await this.writer.writeAll(chunks.map((chunk) => ({ PutRequest: { Item: chunkItem(chunk) } })));
  }

  async putChunk(chunk: ChunkRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: chunkItem(chunk) }));
  }

  async deleteKeys(keys: readonly ContentKey[]): Promise<void> {
    await this.writer.writeAll(keys.map(({ pk, sk }) => ({ DeleteRequest: { Key: { pk, sk } } })));
  }
}
