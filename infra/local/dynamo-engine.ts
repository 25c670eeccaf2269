import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  BillingMode,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  KeyType,
  ProjectionType,
  ResourceInUseException,
  ResourceNotFoundException,
  ScalarAttributeType,
  ScanCommand,
  type TableDescription,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { type IndexDef, indexProjection, keyAttributes, TABLES, type TableDef } from '#shared/tables';
import type { EngineCredentials } from './engine-guard.ts';

export type { EngineCredentials } from './engine-guard.ts';

const ENGINE_SCRIPT = fileURLToPath(new URL('./dynalite-process.ts', import.meta.url));
// `--import tsx` resolves from the child's working directory: the repository root.
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where a DynamoDB engine answers and the credential it takes. */
export interface EngineAccess {
  readonly endpoint: string;
  readonly credentials: EngineCredentials;
}

export interface DynamoEngine extends EngineAccess {
  /** http://127.0.0.1:<port> of the embedded engine. */
  readonly endpoint: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The credential for an engine we did not start (DYNAMODB_ENDPOINT): such engines take any. */
export const EXTERNAL_ENGINE_CREDENTIALS: EngineCredentials = Object.freeze({
  accessKeyId: 'local',
  secretAccessKey: 'local',
});

/** A new credential for one run of the embedded engine (an AWS-shaped access key id and secret). */
export function newEngineCredentials(): EngineCredentials {
  return {
    accessKeyId: `LOCAL${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/**
 * Starts dynalite in its own process on `host:port` (0 = random; host default 127.0.0.1), persisted under
 * `path` when given, in memory otherwise, behind a new credential of its own. Resolves once it listens.
 */
export async function startDynamoEngine(options: {
  host?: string;
  port?: number;
  path?: string;
}): Promise<DynamoEngine> {
  const host = options.host ?? '127.0.0.1';
  const credentials = newEngineCredentials();
  const child = fork(ENGINE_SCRIPT, [], {
    // tsx runs the TypeScript child whether the parent runs under tsx (npm start) or vitest.
    execArgv: ['--import', 'tsx'],
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.send({ host, port: options.port ?? 0, path: options.path, credentials });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port?: number; error?: string }) =>
      message.port ? resolve(message.port) : reject(new Error(`DynamoDB engine failed to start: ${message.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`DynamoDB engine exited with code ${code} before listening`)));
  });
  return {
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    credentials,
    port,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * DYNAMODB_ENDPOINT: the base URL of a DynamoDB-compatible engine that is already running; empty
 * or unset = start the embedded engine. Only scheme, host and port: credentials in it would be printed.
 */
export const dynamoEndpointSchema = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL such as http://127.0.0.1:8000' })
    .refine((v) => {
      // zod runs this check after a failed URL check too; that one has said what is wrong.
      if (!URL.canParse(v)) return true;
      const url = new URL(v);
      return !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
    }, 'must be scheme://host:port only, with no credentials, path or query')
    .transform((v) => new URL(v).origin)
    .optional(),
);

/** Name of the file beside credentials.json that holds the embedded engine's endpoint and credential. */
export const ENGINE_CREDENTIALS_FILE = 'dynamodb-credentials.json';

const engineFileSchema = z.object({
  endpoint: z.string().min(1),
  region: z.string().min(1),
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1),
});
export type EngineCredentialsFile = z.infer<typeof engineFileSchema>;

/** Writes the engine's endpoint and credential for tools, atomically, mode 0600. */
export async function writeEngineCredentialsFile(file: string, access: EngineAccess): Promise<void> {
  const content: EngineCredentialsFile = {
    endpoint: access.endpoint,
    region: process.env.AWS_REGION || 'us-east-1',
    ...access.credentials,
  };
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
}

/** Reads the file `writeEngineCredentialsFile` wrote; throws naming the file (never its content). */
export async function readEngineCredentialsFile(file: string): Promise<EngineCredentialsFile> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${file} does not exist: start the local run first (npm start writes it at every start)`);
    }
    throw new Error(`${file} cannot be read as JSON`);
  }
  const parsed = engineFileSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not an engine credentials file`);
  return parsed.data;
}

/** A low-level client for a local engine, signing with its credential. */
export function localDynamoClient({ endpoint, credentials }: EngineAccess): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION || 'us-east-1',
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
  });
}

/** Creates each table of `TABLES` under `names[logicalName]` unless it exists, with its indexes; waits until ACTIVE. */
export async function ensureTables(
  client: DynamoDBClient,
  names: Readonly<Record<keyof typeof TABLES, string>>,
  options: EnsureTableOptions = {},
): Promise<void> {
  for (const def of Object.values(TABLES)) {
    await ensureTable(client, names[def.logicalName], def, options);
  }
}

const keySchema = (partitionKey: string, sortKey: string | undefined) => [
  { AttributeName: partitionKey, KeyType: KeyType.HASH },
  ...(sortKey ? [{ AttributeName: sortKey, KeyType: KeyType.RANGE }] : []),
];

const attributeDefinitions = (def: TableDef) =>
  keyAttributes(def).map((name) => ({ AttributeName: name, AttributeType: ScalarAttributeType.S }));

/** The CreateTable / UpdateTable shape of one index. */
function indexSpec(index: IndexDef) {
  const projection = indexProjection(index);
  return {
    IndexName: index.name,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection: {
      ProjectionType: ProjectionType[projection.type],
      ...(projection.nonKeyAttributes ? { NonKeyAttributes: projection.nonKeyAttributes } : {}),
    },
  };
}

/**
 * Creates `tableName` from `def` (key schema and every index) unless it exists, adds the indexes an
 * existing table lacks (a table made by an older version), and waits until table and indexes are ACTIVE.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  def: TableDef,
  options: EnsureTableOptions = {},
): Promise<void> {
  const indexes = def.indexes ?? [];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: BillingMode.PAY_PER_REQUEST,
        KeySchema: keySchema(def.partitionKey, def.sortKey),
        AttributeDefinitions: attributeDefinitions(def),
        ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes.map(indexSpec) } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let table = await waitUntilActive(client, tableName);
  for (const index of indexes) {
    if (table.GlobalSecondaryIndexes?.some((i) => i.IndexName === index.name)) continue;
    // dynalite cannot add an index to an existing table: the embedded engine's table is rebuilt instead.
    if (options.rebuildForIndexes) return rebuildTable(client, tableName, def);
    try {
      // DynamoDB creates one index per UpdateTable call.
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions(def),
          GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
        }),
      );
      table = await waitUntilActive(client, tableName);
    } catch (error) {
      throw cannotAddIndex(tableName, index, error);
    }
    if (!table.GlobalSecondaryIndexes?.some((i) => i.IndexName === index.name)) {
      throw cannotAddIndex(tableName, index);
    }
  }
}

export interface EnsureTableOptions {
  /**
   * When an existing table lacks an index, re-create it with every index and write its items back,
   * instead of UpdateTable. Only for the embedded engine (dynalite, which cannot add an index), whose
   * data is local: never for an engine someone else runs.
   */
  readonly rebuildForIndexes?: boolean;
}

/**
 * Re-creates `tableName` from `def` with the items it holds: read all (consistent scan), delete the
 * table, create it with every index, write the items back 25 at a time. The items are held in memory:
 * a local data directory, not a production table.
 */
async function rebuildTable(client: DynamoDBClient, tableName: string, def: TableDef): Promise<void> {
  const items: Record<string, AttributeValue>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  for (;;) {
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

/** An engine that refuses (dynalite does) or skips adding an index to an existing table. */
function cannotAddIndex(tableName: string, index: IndexDef, cause?: unknown): Error {
  return new Error(
    `table ${tableName} exists without its index ${index.name}, and this DynamoDB engine could not add it: ` +
      'delete the table (for the embedded engine, its data directory) and start again',
    { cause },
  );
}

/** Polls DescribeTable until the table and all its indexes are ACTIVE (at most `timeoutMs`). */
async function waitUntilActive(
  client: DynamoDBClient,
  tableName: string,
  timeoutMs = 60_000,
): Promise<TableDescription> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const active =
      Table?.TableStatus === 'ACTIVE' && (Table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (Table && active) return Table;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
