import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchWriter } from '../repositories/batch.ts';
import { GroupCommit } from '../repositories/group-commit.ts';
import type { UsageRecord, UsageSink } from './contract.ts';

/*
 * Usage records on DynamoDB (docs/relay.md, "Usage record"): table `usage`, `day` = the request's UTC day
 * (`YYYY-MM-DD`), `sk` = `<ISO time>#<requestId>` (so a day's records read in time order), every UsageRecord field as
 * its own attribute (`attempts` a list of maps; absent fields not written), and `expiresAt` = epoch seconds of the
 * request time plus the retention (USAGE_RETENTION_DAYS, default 90) as the TTL attribute. The GET /api/usage reader
 * relies on this shape.
 */

export const DEFAULT_USAGE_RETENTION_DAYS = 90;

/** The stored item of a usage record. */
export function usageItem(record: UsageRecord, retentionDays = DEFAULT_USAGE_RETENTION_DAYS): Record<string, unknown> {
  const item: Record<string, unknown> = {
    day: record.time.slice(0, 10),
    sk: `${record.time}#${record.requestId}`,
    expiresAt: Math.floor(Date.parse(record.time) / 1000) + retentionDays * 86_400,
  };
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    item[name] =
      name === 'attempts'
        ? (value as UsageRecord['attempts']).map((a) =>
            a.errorClass === undefined
              ? { channelId: a.channelId, status: a.status }
              : { channelId: a.channelId, status: a.status, errorClass: a.errorClass },
          )
        : value;
  }
  return item;
}

/**
 * Writes each record as one item of a BatchWriteItem: a lone record goes at once; records that arrive while a write is
 * in flight (many model calls in one process, as `npm start` trains hundreds of collections at once) wait and go
 * together in the next one, 25 per call. Each caller's promise settles when the call holding its record does.
 */
export class DynamoUsageSink implements UsageSink {
  private readonly writer: BatchWriter;
  private readonly pending: GroupCommit<Record<string, unknown>[]>;

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    private readonly retentionDays = DEFAULT_USAGE_RETENTION_DAYS,
  ) {
    this.writer = new BatchWriter(client, tableName, { writeConcurrency: 4 });
    this.pending = new GroupCommit<Record<string, unknown>[]>(
      () => [],
      (into, items) => void into.push(...items),
      (_key, items) => this.writer.writeAll(items.map((Item) => ({ PutRequest: { Item } }))),
    );
  }

  async write(record: UsageRecord): Promise<void> {
    await this.pending.add('usage', [usageItem(record, this.retentionDays)]);
  }
}

/** Keeps records in memory (tests). */
export class MemoryUsageSink implements UsageSink {
  readonly records: UsageRecord[] = [];
  async write(record: UsageRecord): Promise<void> {
    this.records.push(record);
  }
}
