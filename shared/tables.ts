/**
 * DynamoDB tables as data: logical name and key schema. The CDK stack and the local engine both
 * create them from here. Physical names come from configuration (DATASETS_TABLE, CHANNELS_TABLE).
 */
export type TableName = 'datasets' | 'channels';

export interface TableDef {
  readonly logicalName: TableName;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export const TABLES: Readonly<Record<TableName, TableDef>> = {
  // Partition by team so every read is scoped to the caller's team by construction (SPEC 2.3).
  datasets: { logicalName: 'datasets', partitionKey: 'teamId', sortKey: 'id' },
  channels: { logicalName: 'channels', partitionKey: 'id' },
};
