import { BatchWriteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newObjectId } from '#shared/ids';
import {
  type ChunkRecord,
  type CollectionRecord,
  chunkSortKey,
  collectionSortKey,
  datasetKey,
} from '#shared/kb/contract';

/*
 * Items of `kbContent` written as shared/kb/contract.ts lays them out, for the search's tests (the training core that
 * writes them in the product is another part).
 */

const TIME = '2026-11-27T10:00:00.000Z';

export function collectionItem(
  teamId: string,
  datasetId: string,
  overrides: Partial<CollectionRecord> & { id?: string } = {},
): CollectionRecord {
  const id = overrides.id ?? newObjectId();
  return {
    pk: datasetKey(teamId, datasetId),
    sk: collectionSortKey(id),
    id,
    teamId,
    tmbId: 'tmb',
    datasetId,
    parentId: null,
    type: 'virtual',
    name: `collection ${id.slice(-4)}`,
    status: 'ready',
    generation: 1,
    createTime: TIME,
    updateTime: TIME,
    ...overrides,
  };
}

export function chunkItem(
  collection: Pick<CollectionRecord, 'teamId' | 'datasetId' | 'id' | 'generation'>,
  chunkIndex: number,
  q: string,
  overrides: Partial<ChunkRecord> = {},
): ChunkRecord {
  const id = overrides.id ?? newObjectId();
  return {
    pk: datasetKey(collection.teamId, collection.datasetId),
    sk: chunkSortKey(collection.id, chunkIndex, id),
    id,
    teamId: collection.teamId,
    tmbId: 'tmb',
    datasetId: collection.datasetId,
    collectionId: collection.id,
    chunkIndex,
    q,
    a: '',
    indexes: [{ type: 'default', dataId: id, text: q }],
    generation: collection.generation,
    ready: true,
    updateTime: TIME,
    ...overrides,
  };
}

/** Writes items 25 per BatchWriteItem, `concurrency` calls at once. */
export async function putItems(
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: readonly object[],
  concurrency = 8,
): Promise<void> {
  const batches: object[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      let requests = batch.map((Item) => ({ PutRequest: { Item: Item as Record<string, unknown> } }));
      while (requests.length > 0) {
        const out = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function putItem(documents: DynamoDBDocumentClient, tableName: string, item: object): Promise<void> {
  await documents.send(new PutCommand({ TableName: tableName, Item: item as Record<string, unknown> }));
}
