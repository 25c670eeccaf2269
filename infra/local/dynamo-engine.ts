import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type TableDef } from '#shared/tables';

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
