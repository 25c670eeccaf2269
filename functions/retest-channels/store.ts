import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { fromChannelItem, type StoredChannel } from '#shared/repositories/channels';
import type { LastRetest, RetestStore, StatusHistoryEntry } from './retest-channels.ts';

/** The re-test's calls on the channels table: a filtered Scan and conditional UpdateItems (nothing else). */
export class DynamoRetestStore implements RetestStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async autoDisabled(): Promise<StoredChannel[]> {
    const out: StoredChannel[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: '#status = :auto',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':auto': 'auto-disabled' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) out.push(fromChannelItem<StoredChannel>(item));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return out;
  }

  async reEnable(id: string, at: string, history: readonly StatusHistoryEntry[], retest: LastRetest): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression:
            'SET #status = :enabled, statusChangedAt = :at, statusHistory = :history, lastRetest = :retest REMOVE statusReason',
          // An operator who disabled it (or deleted it) in the meantime wins.
          ConditionExpression: '#status = :auto',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':enabled': 'enabled',
            ':auto': 'auto-disabled',
            ':at': at,
            ':history': history,
            ':retest': retest,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async recordFailure(id: string, retest: LastRetest): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET lastRetest = :retest',
          ConditionExpression: '#status = :auto',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':auto': 'auto-disabled', ':retest': retest },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
