/**
 * DynamoDB tables as data: logical name, key schema and secondary indexes. The CDK stack and the
 * local engine both create them from here. Physical names come from configuration (DATASETS_TABLE,
 * CHANNELS_TABLE, RELAY_KEYS_TABLE, RELAY_STATE_TABLE, USAGE_TABLE, KB_CONTENT_TABLE, KB_VECTORS_TABLE, KB_TERMS_TABLE).
 */
export type TableName =
  | 'datasets'
  | 'channels'
  | 'relayKeys'
  | 'relayState'
  | 'usage'
  | 'kbContent'
  | 'kbVectors'
  | 'kbTerms';

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
  /**
   * The attribute (epoch seconds) after which DynamoDB deletes an item by itself (TTL), deployed. The local engines
   * keep such items: dynalite has no TTL, and reads never rely on expiry (docs/dynamodb-engines.md).
   */
  readonly timeToLiveAttribute?: string;
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

/**
 * The relay keys index by id: management (revoke, section 23's `/api/key/{id}`) names a key by its id, never by the
 * key, while the table's key is the key's keyed hash (shared/relay-keys.ts).
 */
export const RELAY_KEYS_BY_ID: IndexDef = { name: 'byId', partitionKey: 'id' };

/**
 * The knowledge base's content (shared/kb/contract.ts): `byId` finds a collection or a chunk from its id alone
 * (FastGPT's detail, update and delete calls send only the id); the team is checked on the item found.
 */
export const KB_CONTENT_BY_ID: IndexDef = { name: 'byId', partitionKey: 'id' };

/**
 * A knowledge base's collections by folder, newest first: `parentKey` is `<teamId>#<datasetId>#<parentId or root>`,
 * written on collections only (a sparse index: chunks never enter it).
 */
export const KB_CONTENT_BY_PARENT: IndexDef = { name: 'byParent', partitionKey: 'parentKey', sortKey: 'updateTime' };

export const TABLES: Readonly<Record<TableName, TableDef>> = {
  // Partition by team so every read is scoped to the caller's team by construction (docs/knowledge-base-api.md).
  datasets: { logicalName: 'datasets', partitionKey: 'teamId', sortKey: 'id', indexes: [DATASETS_BY_PARENT] },
  channels: { logicalName: 'channels', partitionKey: 'id' },
  // Partition by the key's HMAC, so the authorizer finds a presented key with one consistent GetItem.
  relayKeys: { logicalName: 'relayKeys', partitionKey: 'keyHash', indexes: [RELAY_KEYS_BY_ID] },
  // Channel health shared by every function instance: ONE partition `pk = "health"`, one item per channel that
  // failed recently (`sk` = channel id), so one Query reads all of it (shared/relay/health.ts).
  relayState: { logicalName: 'relayState', partitionKey: 'pk', sortKey: 'sk' },
  // One usage record per relayed request (shared/relay/contract.ts, UsageRecord): partitioned by UTC day
  // (`YYYY-MM-DD`), sorted by `<ISO time>#<requestId>`, so a period is one Query per day, newest first.
  // Items carry `expiresAt` (epoch seconds) for the table's TTL.
  usage: { logicalName: 'usage', partitionKey: 'day', sortKey: 'sk', timeToLiveAttribute: 'expiresAt' },
  // Collections and chunks, one partition per knowledge base (shared/kb/contract.ts, docs/knowledge-base-api.md).
  kbContent: {
    logicalName: 'kbContent',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [KB_CONTENT_BY_ID, KB_CONTENT_BY_PARENT],
  },
  // The search's vectors, one partition per knowledge base (the vector indexes' HASH), and its full-text postings
  // (docs/knowledge-base-search.md; shared/kb/search/). The vector indexes are added by the stack (infra/kb-search.ts).
  kbVectors: { logicalName: 'kbVectors', partitionKey: 'pk', sortKey: 'sk' },
  kbTerms: { logicalName: 'kbTerms', partitionKey: 'pk', sortKey: 'sk' },
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
