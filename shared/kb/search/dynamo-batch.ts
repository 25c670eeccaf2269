import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchRetry, type BatchWriter, chunks, GET_BATCH, Slots } from '#shared/repositories/batch';

/*
 * The reads the search's stores share: BatchGetItem with its unprocessed keys retried, and a Query read to its end.
 */

const retry = /* @__PURE__ */ new BatchRetry();

/** Every item of `keys` that exists (any order), 100 keys per call, `concurrency` calls at once. */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  options: { projection?: string; names?: Record<string, string>; concurrency?: number; consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const slots = new Slots(options.concurrency ?? 8);
  const pages = await Promise.all(
    chunks(keys, GET_BATCH).map((batch) =>
      slots.run(async () => {
        const found = await retry.getBatch(client, {
          [tableName]: {
            Keys: batch,
            ...(options.projection ? { ProjectionExpression: options.projection } : {}),
            ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
            ...(options.consistent ? { ConsistentRead: true } : {}),
          },
        });
        return found[tableName] ?? [];
      }, undefined),
    ),
  );
  return pages.flat();
}

/** Every item a Query finds, page after page. */
export async function queryAll(
  client: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** Deletes every item of one partition (a knowledge base's vectors or postings): its keys read, then BatchWriteItem. */
export async function deletePartition(
  client: DynamoDBDocumentClient,
  writer: BatchWriter,
  tableName: string,
  pk: string,
): Promise<void> {
  const keys = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: 'pk, sk',
  });
  await writer.writeAll(keys.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } })));
}
