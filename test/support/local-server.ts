import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, vi } from 'vitest';
import { type LocalBackend, type LocalTableNames, startLocalBackend } from '#infra/local/backend';
import { type EngineAccess, localDynamoClient } from '#infra/local/dynamo-engine';
import { type GatewayOptions, startGateway } from '#infra/local/gateway';
import type { LocalCredentials } from '#shared/local-credentials';
import type { TableName } from '#shared/tables';
import { contractChecker, type OpenApiDocuments } from './contract.ts';
import { recordContractViolations } from './contract-violations.ts';
import { startTestEngine, uniqueTableNames } from './dynamo-engine.ts';

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  readonly dynamoEndpoint: string;
  /** The engine's endpoint and credential, for a client of a test's own. */
  readonly engine: EngineAccess;
  /** This server's table names (its own on a shared engine), as the functions get them. */
  readonly tables: LocalTableNames;
  readonly credentialsFile: string;
  readonly credentials: LocalCredentials;
  /** A client on the server's DynamoDB engine, closed with the server. */
  readonly dynamo: DynamoDBClient;
  /** A Document client over `dynamo`. */
  readonly documents: DynamoDBDocumentClient;
  /** How many items this server's `table` holds (a full scan, page by page). */
  countItems(table: TableName): Promise<number>;
  /** Resolves once the in-process training queue has handled every message sent so far (trainings, background deletes). */
  trainingIdle(): Promise<void>;
  close(): Promise<void>;
}

// Handlers read their environment once per module load (a cold start), so a test file has one
// backend (engine, tables, credentials) and may put several gateways in front of it. The engine
// comes from test/support/dynamo-engine.ts; the backend's own table names keep parallel test files
// apart on a shared engine.
let backend: Promise<{ backend: LocalBackend; dataDir: string }> | undefined;

function sharedBackend() {
  backend ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kb-local-'));
    process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
    const engine = await startTestEngine();
    const started = await startLocalBackend({
      dataDir,
      dynamoEndpoint: engine.endpoint,
      dynamoCredentials: engine.credentials,
      tableNames: uniqueTableNames(),
    });
    return { backend: started, dataDir };
  })();
  return backend;
}

let checker: ReturnType<typeof contractChecker> | undefined;

/**
 * The response hook that checks every response against the API's OpenAPI document and records what
 * breaks it (test/support/setup.ts fails the test). startTestServer installs it; a test that starts a
 * gateway of its own passes it as `onResponse`.
 */
export function contractCheckHook(documents?: OpenApiDocuments): NonNullable<GatewayOptions['onResponse']> {
  checker ??= contractChecker();
  const check = documents ? contractChecker(documents) : checker;
  return (exchange) => recordContractViolations(check(exchange));
}

/**
 * Starts the local server (the real authorizer and handlers over the tests' engine) on a random
 * port. Every response it sends is checked against the API's OpenAPI document; a mismatch fails the
 * test that caused it (test/support/setup.ts).
 */
export async function startTestServer(
  options: Omit<GatewayOptions, 'host' | 'port' | 'onResponse'> & {
    /** Documents to check responses against instead of the committed ones (to prove the check can fail). */
    contractDocuments?: OpenApiDocuments;
  } = {},
): Promise<TestServer> {
  const { backend: b, dataDir } = await sharedBackend();
  const { contractDocuments, ...gatewayOptions } = options;
  const gateway = await startGateway(b, {
    ...gatewayOptions,
    host: '127.0.0.1',
    port: 0,
    onResponse: contractCheckHook(contractDocuments),
  });
  const dynamo = localDynamoClient(b.dynamo);
  return {
    url: gateway.url,
    dataDir,
    dynamoEndpoint: b.dynamoEndpoint,
    engine: b.dynamo,
    tables: b.tableNames,
    credentialsFile: b.credentialsFile,
    credentials: b.credentials,
    dynamo,
    documents: DynamoDBDocumentClient.from(dynamo),
    async countItems(table) {
      let count = 0;
      let ExclusiveStartKey: ScanCommand['input']['ExclusiveStartKey'];
      do {
        const page = await dynamo.send(
          new ScanCommand({ TableName: b.tableNames[table], Select: 'COUNT', ExclusiveStartKey }),
        );
        count += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return count;
    },
    trainingIdle: async () => b.trainingQueue?.idle(),
    close: async () => {
      dynamo.destroy();
      await gateway.close();
    },
  };
}

/**
 * A test file's local server: started before the file's tests with `env` set (the handlers read it at their
 * cold start; logs are silenced unless `env` sets LOG_LEVEL), closed after them. The value returned stands
 * for the server: read its fields inside a test or a hook.
 */
export function useTestServer(env: Readonly<Record<string, string>> = {}): TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    for (const [name, value] of Object.entries({ LOG_LEVEL: 'SILENT', ...env })) vi.stubEnv(name, value);
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    vi.unstubAllEnvs();
  });
  return startedInBeforeAll(() => server, 'the test server');
}

/**
 * A stand-in for a value a test file starts in `beforeAll`, usable as a module-level constant: every field
 * read goes to the value `current()` gives once it is started (methods stay bound to it).
 */
export function startedInBeforeAll<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, field) {
      const value = current();
      if (!value) throw new Error(`${what} starts in beforeAll: read it inside a test or a hook`);
      const member = Reflect.get(value, field, value);
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}
