import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KB_CONTENT_BY_ID } from '#shared/tables';
import {
  CHUNK_SK_PREFIX,
  type ChunkReader,
  type ChunkRecord,
  type CollectionRecord,
  chunkSortKey,
  collectionSortKey,
  datasetKey,
  type SearchableChunk,
} from './contract.ts';
import { ofCurrentSet } from './data.ts';
import { batchGetAll, queryAll } from './search/dynamo-batch.ts';
import type { ChunkRef, ChunkRefReader } from './search/types.ts';

/*
 * Reads chunks for the search from `kbContent` (shared/kb/contract.ts): a chunk is shown only when it is `ready`, its
 * generation is its collection's, and its collection exists, is not forbidden and is not being deleted; the team and
 * the knowledge base are checked on the items found, never taken from an index. A chunk whose index is known is read
 * by key (BatchGetItem, 100 per call); otherwise its id is looked up in the `byId` index first.
 */

const CHUNK_ATTRIBUTES = [
  'pk',
  'sk',
  'id',
  'teamId',
  'datasetId',
  'collectionId',
  'chunkIndex',
  'q',
  'a',
  'generation',
  'ready',
  'pushed',
  'updateTime',
];
const COLLECTION_ATTRIBUTES = [
  'pk',
  'sk',
  'id',
  'teamId',
  'datasetId',
  'name',
  'fileId',
  'rawLink',
  'forbid',
  'generation',
  'deleting',
];

function projection(attributes: readonly string[]) {
  return {
    projection: attributes.map((_, i) => `#a${i}`).join(', '),
    names: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
  };
}

export class DynamoChunkReader implements ChunkReader, ChunkRefReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The readable chunks among `dataIds` (looked up by id), in no particular order. */
  async readSearchable(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<SearchableChunk[]> {
    return this.readRefs(
      teamId,
      datasetId,
      dataIds.map((dataId) => ({ dataId, collectionId: '' })),
    );
  }

  /** The readable chunks among `refs`, in no particular order. */
  async readRefs(teamId: string, datasetId: string, refs: readonly ChunkRef[]): Promise<SearchableChunk[]> {
    if (refs.length === 0) return [];
    const pk = datasetKey(teamId, datasetId);
    const byKey = refs.filter((r) => r.chunkIndex !== undefined && r.collectionId !== '');
    const byId = refs.filter((r) => r.chunkIndex === undefined || r.collectionId === '');
    const chunkProjection = projection(CHUNK_ATTRIBUTES);
    const [keyed, looked] = await Promise.all([
      batchGetAll(
        this.client,
        this.tableName,
        [...new Map(byKey.map((r) => [r.dataId, r])).values()].map((r) => ({
          pk,
          sk: chunkSortKey(r.collectionId, r.chunkIndex!, r.dataId),
        })),
        chunkProjection,
      ),
      this.lookUp(pk, [...new Set(byId.map((r) => r.dataId))]),
    ]);
    const chunks = [...keyed, ...looked] as unknown as ChunkRecord[];
    const collectionIds = [...new Set(chunks.map((c) => c.collectionId))];
    const collections = new Map(
      (
        (await batchGetAll(
          this.client,
          this.tableName,
          collectionIds.map((id) => ({ pk, sk: collectionSortKey(id) })),
          projection(COLLECTION_ATTRIBUTES),
        )) as unknown as CollectionRecord[]
      ).map((c) => [c.id, c]),
    );
    const seen = new Set<string>();
    const out: SearchableChunk[] = [];
    for (const chunk of chunks) {
      const collection = collections.get(chunk.collectionId);
      if (!collection || seen.has(chunk.id)) continue;
      if (!isReadable(chunk, collection, pk, teamId, datasetId)) continue;
      seen.add(chunk.id);
      const sourceId = collection.fileId ?? collection.rawLink;
      out.push({
        id: chunk.id,
        datasetId: chunk.datasetId,
        collectionId: chunk.collectionId,
        chunkIndex: chunk.chunkIndex,
        q: chunk.q ?? '',
        a: chunk.a ?? '',
        updateTime: chunk.updateTime,
        sourceName: collection.name,
        ...(sourceId !== undefined ? { sourceId } : {}),
      });
    }
    return out;
  }

  /** Chunks found by id through the `byId` index, then read from the table (the index may lag the table). */
  private async lookUp(pk: string, dataIds: readonly string[]): Promise<Record<string, unknown>[]> {
    if (dataIds.length === 0) return [];
    const found = await Promise.all(
      dataIds.map((id) =>
        queryAll(this.client, {
          TableName: this.tableName,
          IndexName: KB_CONTENT_BY_ID.name,
          KeyConditionExpression: '#id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':id': id },
        }),
      ),
    );
    const keys = found
      .flat()
      .filter((item) => item.pk === pk && String(item.sk).startsWith(CHUNK_SK_PREFIX))
      .map((item) => ({ pk: item.pk, sk: item.sk }));
    return batchGetAll(this.client, this.tableName, keys, projection(CHUNK_ATTRIBUTES));
  }
}

function isReadable(
  chunk: ChunkRecord,
  collection: CollectionRecord,
  pk: string,
  teamId: string,
  datasetId: string,
): boolean {
  return (
    chunk.ready === true &&
    chunk.pk === pk &&
    chunk.teamId === teamId &&
    chunk.datasetId === datasetId &&
    collection.teamId === teamId &&
    collection.datasetId === datasetId &&
    collection.forbid !== true &&
    collection.deleting === undefined &&
    ofCurrentSet(chunk, collection)
  );
}
