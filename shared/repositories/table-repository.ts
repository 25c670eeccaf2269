import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchWriter, type BatchWriterOptions } from './batch.ts';

/** What every repository holds: the document client, its one table, and that table's batch writer. */
export abstract class TableRepository {
  protected readonly writer: BatchWriter;

  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
    options: BatchWriterOptions = {},
  ) {
    this.writer = new BatchWriter(client, tableName, options);
  }
}
