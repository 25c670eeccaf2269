import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type Projection,
  ResourceInUseException,
  ResourceNotFoundException,
  ScanCommand,
  type TableDescription,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { type IndexDef, TABLES, type TableDef } from '#shared/tables';

const ENGINE_SCRIPT = fileURLToPath(new URL('./dynalite-process.ts', import.meta.url));
// `--import tsx` resolves from the child's working directory: the repository root.
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface DynamoEngine {
  /** http://127.0.0.1:<port> of the embedded engine. */
  readonly endpoint: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts dynalite in its own process on `host:port` (0 = random), persisted under `path` when given,
 * in memory otherwise. Resolves once it listens.
 */
export async function startDynamoEngine(options: {
  host?: string;
  port?: number;
  path?: string;
}): Promise<DynamoEngine> {
  const host = options.host ?? '127.0.0.1';
  const child = fork(ENGINE_SCRIPT, [JSON.stringify({ host, port: options.port ?? 0, path: options.path })], {
    // tsx runs the TypeScript child whether the parent runs under tsx (npm start) or vitest.
    execArgv: ['--import', 'tsx'],
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port?: number; error?: string }) =>
      message.port ? resolve(message.port) : reject(new Error(`DynamoDB engine failed to start: ${message.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`DynamoDB engine exited with code ${code} before listening`)));
  });
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A low-level client for the local engine (fixed dummy credentials: dynalite does not check them). */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates each table of `TABLES` under `names[logicalName]` unless it exists; waits until ACTIVE. */
export async function ensureTables(
  client: DynamoDBClient,
  names: Readonly<Record<keyof typeof TABLES, string>>,
): Promise<void> {
  for (const def of Object.values(TABLES)) {
    await ensureTable(client, names[def.logicalName], def);
  }
}

async function ensureTable(client: DynamoDBClient, tableName: string, def: TableDef): Promise<void> {
  const keySchema = (partitionKey: string, sortKey?: string) => [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
  ];
  const keys = keySchema(def.partitionKey, def.sortKey);
  const indexes = def.indexes ?? [];
  const attributes = [
    ...new Set([
      ...keys.map((k) => k.AttributeName),
      ...indexes.flatMap((i) => [i.partitionKey, i.sortKey ?? []].flat()),
    ]),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keys,
        AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
        ...(indexes.length > 0
          ? {
              GlobalSecondaryIndexes: indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: keySchema(index.partitionKey, index.sortKey),
                Projection: projectionOf(index),
              })),
            }
          : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  const table = await waitUntilActive(client, tableName);
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  const missing = indexes.filter((index) => !present.has(index.name));
  // A table made by an earlier version (before it had its indexes) gets them added in place.
  if (missing.length > 0) await addIndexes(client, tableName, def, missing);
}

function projectionOf(index: IndexDef): Projection {
  return index.include
    ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] }
    : { ProjectionType: 'ALL' };
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesReady = (Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesReady) return Table;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}

/**
 * Adds indexes to an existing table. DynamoDB Local builds them with UpdateTable; dynalite accepts
 * that call but never builds an index, so there the table is rebuilt: its items are read, the table is
 * re-created with every index, and the items are written back (local data, a few thousand items at most).
 */
async function addIndexes(
  client: DynamoDBClient,
  tableName: string,
  def: TableDef,
  missing: readonly IndexDef[],
): Promise<void> {
  for (const index of missing) {
    const attributes = [index.partitionKey, index.sortKey ?? []].flat();
    try {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' },
                  ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
                ],
                Projection: projectionOf(index),
              },
            },
          ],
        }),
      );
    } catch {
      // Refused: the rebuild below adds it.
    }
  }
  const table = await waitUntilActive(client, tableName);
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  if (missing.every((index) => present.has(index.name))) return;

  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  for (let attempt = 0; attempt < 500; attempt++) {
    try {
      await client.send(new DescribeTableCommand({ TableName: tableName }));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) break;
      throw error;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await ensureTable(client, tableName, def);
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }));
      requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}
