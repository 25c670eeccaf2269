/**
 * DynamoDB tables as data: logical name, key schema and secondary indexes. The CDK stack and the
 * local engine both create them from here. Physical names come from configuration (DATASETS_TABLE,
 * CHANNELS_TABLE, USAGE_TABLE).
 */
export type TableName = 'datasets' | 'channels' | 'usage';

/** A global secondary index. Its key attributes are strings, like the table's. */
export interface IndexDef {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
  /** Non-key attributes projected into the index; omitted = ALL. */
  readonly include?: readonly string[];
}

export interface TableDef {
  readonly logicalName: TableName;
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly indexes?: readonly IndexDef[];
}

/**
 * The datasets index of one folder's children: `parentKey` is `<teamId>#<parentId>` (or
 * `<teamId>#root`), written with every record, because a null parentId cannot be an index key.
 * Sorted by `updateTime`, so a list reads newest first without sorting. Projects what a list item
 * and the subtree walk of a delete need, nothing more.
 */
export const DATASETS_BY_PARENT: IndexDef = {
  name: 'byParent',
  partitionKey: 'parentKey',
  sortKey: 'updateTime',
  include: ['parentId', 'type', 'name', 'intro', 'avatar', 'vectorModel', 'tmbId', 'inheritPermission'],
};

export const TABLES: Readonly<Record<TableName, TableDef>> = {
  // Partition by team so every read is scoped to the caller's team by construction (docs/knowledge-base-api.md).
  datasets: { logicalName: 'datasets', partitionKey: 'teamId', sortKey: 'id', indexes: [DATASETS_BY_PARENT] },
  channels: { logicalName: 'channels', partitionKey: 'id' },
  // One usage record per relayed request (shared/relay/contract.ts, UsageRecord): partitioned by UTC day
  // (`YYYY-MM-DD`), sorted by `<ISO time>#<requestId>`, so a period is one Query per day, newest first.
  // Items carry `expiresAt` (epoch seconds) for the table's TTL.
  usage: { logicalName: 'usage', partitionKey: 'day', sortKey: 'sk' },
};

/** How an index projects: `include` omitted = ALL, empty = KEYS_ONLY, otherwise INCLUDE those attributes. */
export function indexProjection(index: IndexDef): {
  readonly type: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  readonly nonKeyAttributes?: string[];
} {
  if (index.include === undefined) return { type: 'ALL' };
  if (index.include.length === 0) return { type: 'KEYS_ONLY' };
  return { type: 'INCLUDE', nonKeyAttributes: [...index.include] };
}

/** Every attribute that is a key of the table or of one of its indexes, each once, in order. */
export function keyAttributes(def: TableDef): string[] {
  const keys = [def.partitionKey, def.sortKey, ...(def.indexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey])];
  return [...new Set(keys.filter((k): k is string => k !== undefined))];
}
