import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageRecord } from '../relay/contract.ts';

/**
 * The stored form of a usage record (table `usage`, shared/tables.ts): the record's fields plus its keys, `day`
 * (`YYYY-MM-DD`, UTC) and `sk` (`<ISO time>#<requestId>`), and `expiresAt` (epoch seconds, the table's TTL).
 */
export type UsageItem = UsageRecord & { day: string; sk: string; expiresAt: number };

/** The keys of a record: its UTC day and `<time>#<requestId>`, so a day's records sort by time. */
export function usageKeys(record: Pick<UsageRecord, 'time' | 'requestId'>): { day: string; sk: string } {
  return { day: record.time.slice(0, 10), sk: `${record.time}#${record.requestId}` };
}

/** One page of a day's records, newest first, and where the next page starts (undefined: the day is done). */
export interface UsagePage {
  items: Record<string, unknown>[];
  next?: Record<string, unknown>;
}

/** What the usage API needs from the usage table. */
export interface UsageStore {
  /**
   * Records of `day` whose `sk` lies in [`fromSk`, `toSk`], newest first, at most `limit`, continuing after `start`.
   */
  queryDay(
    day: string,
    range: { fromSk: string; toSk: string },
    limit: number,
    start?: Record<string, unknown>,
  ): Promise<UsagePage>;
}

/** The usage table over the DynamoDB Document client: Query only (the usage API's one grant). */
export class UsageRepository implements UsageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async queryDay(
    day: string,
    range: { fromSk: string; toSk: string },
    limit: number,
    start?: Record<string, unknown>,
  ): Promise<UsagePage> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#day = :day AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#day': 'day', '#sk': 'sk' },
        ExpressionAttributeValues: { ':day': day, ':from': range.fromSk, ':to': range.toSk },
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    return { items: out.Items ?? [], ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
  }
}
