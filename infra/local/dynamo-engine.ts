import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TABLES, type TableDef } from '#shared/tables';

export interface DynamoEngine {
  /** http://127.0.0.1:<port> of the embedded engine. */
  readonly endpoint: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts dynalite on `host:port` (0 = random), persisted under `path` when given, in memory otherwise. */
export async function startDynamoEngine(options: {
  host?: string;
  port?: number;
  path?: string;
}): Promise<DynamoEngine> {
  const host = options.host ?? '127.0.0.1';
  // Table creation is instant locally; dynalite's default 500 ms per table only slows start-up.
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
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
  const keys = [
    { AttributeName: def.partitionKey, KeyType: 'HASH' as const },
    ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: 'RANGE' as const }] : []),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: keys,
        AttributeDefinitions: keys.map((k) => ({ AttributeName: k.AttributeName, AttributeType: 'S' as const })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}
