import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parentKeyOf } from './datasets.ts';

export interface BackfillResult {
  /** Records found without a `parentKey`. */
  readonly found: number;
  /** Of those, records this run gave one (the rest were given one meanwhile, or deleted). */
  readonly updated: number;
}

/**
 * Gives every record written before the by-parent index existed its `parentKey`, so lists find it.
 * A maintenance job, never a request path: it scans the whole table once. Safe to run again at any
 * time, also while the API serves traffic: each write is conditional on the key still missing, and
 * every create and update writes the key itself.
 */
export async function backfillParentKeys(client: DynamoDBDocumentClient, tableName: string): Promise<BackfillResult> {
  let found = 0;
  let updated = 0;
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      // Records only: a team's tree lock item (TREE_LOCK_ID) has no place in the tree.
      FilterExpression: 'attribute_not_exists(parentKey) AND attribute_exists(createTime)',
      ProjectionExpression: 'teamId, id, parentId',
    },
  );
  for await (const page of pages) {
    for (const item of (page.Items ?? []) as { teamId: string; id: string; parentId?: string | null }[]) {
      found++;
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { teamId: item.teamId, id: item.id },
            UpdateExpression: 'SET parentKey = :key',
            ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(parentKey)',
            ExpressionAttributeValues: { ':key': parentKeyOf(item.teamId, item.parentId ?? null) },
          }),
        );
        updated++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }
  return { found, updated };
}
