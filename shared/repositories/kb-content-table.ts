import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { KB_CONTENT_BY_ID } from '#shared/tables';
import type { BatchWriterOptions } from './batch.ts';
import { TableRepository } from './table-repository.ts';

/** The content table's reads that KbContentRepository (shared/repositories/kb-content.ts) builds on. */
export abstract class KbContentTable extends TableRepository {
  /**
   * With `datasetsTable`, a collection or chunk found by its id alone is answered only while its knowledge base's
   * record exists: a deleted knowledge base's content, purged in the background (shared/kb/content-delete.ts), is
   * unreachable meanwhile. The training function reads by its own keys and passes none.
   */
  constructor(
    client: ConstructorParameters<typeof TableRepository>[0],
    tableName: string,
    options: BatchWriterOptions & { readonly datasetsTable?: string } = {},
  ) {
    super(client, tableName, options);
    this.datasetsTable = options.datasetsTable;
  }

  protected readonly datasetsTable: string | undefined;

  /** True while the knowledge base's record exists (always, without `datasetsTable`). */
  protected async datasetExists(teamId: string, datasetId: string): Promise<boolean> {
    if (this.datasetsTable === undefined) return true;
    const out = await this.client.send(
      new GetCommand({ TableName: this.datasetsTable, Key: { teamId, id: datasetId }, ProjectionExpression: 'id' }),
    );
    return out.Item !== undefined;
  }

  protected async findById(id: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KB_CONTENT_BY_ID.name,
        KeyConditionExpression: '#id = :id',
        ExpressionAttributeNames: { '#id': KB_CONTENT_BY_ID.partitionKey },
        ExpressionAttributeValues: { ':id': id },
        Limit: 1,
      }),
    );
    return out.Items?.[0];
  }

  protected async queryAll<T>(query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>): Promise<T[]> {
    const items: T[] = [];
    for await (const page of this.queryPages<T>(query)) items.push(...page);
    return items;
  }

  protected async *queryPages<T>(
    query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
  ): AsyncGenerator<T[]> {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({ TableName: this.tableName, ...query, ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}) }),
      );
      yield (page.Items ?? []) as T[];
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
}
