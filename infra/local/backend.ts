import { chmod, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type Authorizer, createAuthorizer } from '#functions/authorizer/authorizer';
import { cachedRelayKeyLookup } from '#functions/authorizer/relay-key-lookup';
import { writeConsolePage } from '#functions/console/build';
import { CHANNEL_ID_KEY_FILE_ENV, channelIdKeySource } from '#shared/channel-id-key';
import { ENV, loadConfig, logLevelEnvSchema } from '#shared/config';
import { SOURCES_ENV } from '#shared/kb/sources/config';
import { LocalUploadStore } from '#shared/kb/sources/upload-stores';
import { installLocalTrainingQueue, messageGroupOf } from '#shared/kb/training-queue';
import type { StreamingHandler } from '#shared/lambda-streaming';
import {
  type LocalCredentials,
  loadOrCreateLocalCredentials,
  localFileCredentialSource,
} from '#shared/local-credentials';
import { createLogger } from '#shared/logger';
import { backfillParentKeys } from '#shared/repositories/datasets-backfill';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { FUNCTION_ENTRIES, type FunctionName, type RouteDef } from '#shared/routes';
import type { TableName } from '#shared/tables';
import {
  type DynamoEngine,
  ENGINE_CREDENTIALS_FILE,
  type EngineAccess,
  type EngineCredentials,
  EXTERNAL_ENGINE_CREDENTIALS,
  ensureTables,
  localDynamoClient,
  startDynamoEngine,
  writeEngineCredentialsFile,
} from './dynamo-engine.ts';
import { markIfNewCredentials } from './first-run.ts';
import { type LocalTrainingQueue, localTrainingQueue, type SqsHandler } from './kb-queue.ts';

export type ProxyHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/** A function behind a route: a proxy handler, or a streaming one (shared/lambda-streaming.ts). */
export type RouteHandler = ProxyHandler | StreamingHandler;

/** How long `npm start`'s authorizer reuses a usable relay key it found (docs/authorization.md, "Relay keys"). */
export const LOCAL_RELAY_KEY_MAX_AGE_MS = 1_000;

/** Physical table names per logical table. */
export type LocalTableNames = Readonly<Record<TableName, string>>;

export interface LocalBackendOptions {
  dataDir: string;
  /**
   * A DynamoDB-compatible engine that is already running (DynamoDB Local, a container, ...): used as
   * is, and the embedded engine is not started. The dynamo* options below then do not apply.
   */
  dynamoEndpoint?: string;
  /** The credential that engine takes (the test engines' own); default: any, as DynamoDB Local takes. */
  dynamoCredentials?: EngineCredentials;
  /** Host the embedded DynamoDB engine listens on (default 127.0.0.1, whatever the API's host). */
  dynamoHost?: string;
  /** Port of the embedded DynamoDB engine; 0 = random. */
  dynamoPort?: number;
  /** Persist the engine's data under `dataDir/dynamodb` (default true); false keeps it in memory. */
  persist?: boolean;
  /** Table names (default: the logical names); tests sharing one engine give each backend its own. */
  tableNames?: LocalTableNames;
}

/** The "AWS side" of the local run: DynamoDB engine, tables, credentials, and the real handlers. */
export interface LocalBackend {
  readonly dynamoEndpoint: string;
  /** The engine's endpoint and the credential it takes (the embedded engine's is new at every start). */
  readonly dynamo: EngineAccess;
  /** Where the embedded engine's credential is written for tools (mode 0600); undefined for an external engine. */
  readonly dynamoCredentialsFile?: string;
  /** True when the backend started the embedded engine (dynalite); false for DYNAMODB_ENDPOINT's. */
  readonly embeddedEngine: boolean;
  readonly tableNames: LocalTableNames;
  readonly credentialsFile: string;
  readonly credentials: LocalCredentials;
  /** True when this start created the credentials file (so they are printed once). */
  readonly createdCredentials: boolean;
  /** The authorizer core over the local credentials file (the deployed handler reads Secrets Manager). */
  readonly authorizer: Authorizer;
  /** The function behind a route. */
  handlerFor(route: RouteDef): RouteHandler;
  /** The source bucket's stand-in for direct uploads (infra/local/uploads.ts). */
  readonly uploads?: LocalUploadStore;
  /** The knowledge base's in-process training queue (infra/local/kb-queue.ts). */
  readonly trainingQueue?: LocalTrainingQueue;
  /** Runs the re-test of auto-disabled channels once, as its schedule does deployed (functions/retest-channels). */
  retestChannels?(): Promise<unknown>;
  close(): Promise<void>;
}

const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Local table names: the logical names themselves. */
const LOCAL_TABLE_NAMES: LocalTableNames = {
  datasets: 'datasets',
  channels: 'channels',
  relayKeys: 'relayKeys',
  relayState: 'relayState',
  usage: 'usage',
  kbContent: 'kbContent',
  kbVectors: 'kbVectors',
  kbTerms: 'kbTerms',
};

async function loadHandler<T>(entry: string): Promise<T> {
  const file = join(REPO_ROOT, entry);
  const mod = (await import(pathToFileURL(file).href)) as { handler?: T };
  if (typeof mod.handler !== 'function') throw new Error(`${entry} exports no handler`);
  return mod.handler;
}

/**
 * Starts the engine, creates tables and credentials, points the functions' environment at them
 * (the same variables the CDK stack sets), then loads the real handler modules.
 * Handlers read their environment once, at import, like a Lambda cold start: one backend per process.
 */
export async function startLocalBackend(options: LocalBackendOptions): Promise<LocalBackend> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const persisted = options.persist === false || options.dynamoEndpoint ? undefined : join(options.dataDir, 'dynamodb');
  if (persisted) {
    // The engine's data is owner-only even in a DATA_DIR that existed with wider permissions.
    await mkdir(persisted, { recursive: true, mode: 0o700 });
    await chmod(persisted, 0o700);
  }
  const tableNames = options.tableNames ?? LOCAL_TABLE_NAMES;
  const engine: Pick<DynamoEngine, 'endpoint' | 'credentials' | 'close'> = options.dynamoEndpoint
    ? {
        endpoint: options.dynamoEndpoint,
        credentials: options.dynamoCredentials ?? EXTERNAL_ENGINE_CREDENTIALS,
        close: async () => {},
      }
    : await startDynamoEngine({ host: options.dynamoHost, port: options.dynamoPort ?? 8000, path: persisted });
  const dynamoCredentialsFile = options.dynamoEndpoint ? undefined : join(options.dataDir, ENGINE_CREDENTIALS_FILE);
  // The authorizer's own client on the engine (relay keys), closed with the backend.
  let authorizerClient: ReturnType<typeof localDynamoClient> | undefined;
  const close = async () => {
    authorizerClient?.destroy();
    await engine.close();
    // The credential dies with the engine; a file left behind would only mislead.
    if (dynamoCredentialsFile) await rm(dynamoCredentialsFile, { force: true });
  };
  try {
    if (dynamoCredentialsFile) await writeEngineCredentialsFile(dynamoCredentialsFile, engine);
    const client = localDynamoClient(engine);
    try {
      // The embedded engine cannot add an index to a table an older version made: it rebuilds that table.
      await ensureTables(client, tableNames, { rebuildForIndexes: !options.dynamoEndpoint });
      // Records written before the by-parent index get its key, so `npm start` never needs a manual step.
      await backfillParentKeys(DynamoDBDocumentClient.from(client), tableNames.datasets);
    } catch (error) {
      throw options.dynamoEndpoint ? unreachable(options.dynamoEndpoint, error) : error;
    } finally {
      client.destroy();
    }

    // The console page is built at every start (into DATA_DIR), as the function's bundling builds it for Lambda.
    const consolePageFile = writeConsolePage(options.dataDir);

    const credentialsFile = join(options.dataDir, 'credentials.json');
    markIfNewCredentials(credentialsFile);
    const { credentials, created } = await loadOrCreateLocalCredentials(credentialsFile);

    Object.assign(process.env, {
      [ENV.datasetsTable]: tableNames.datasets,
      [ENV.channelsTable]: tableNames.channels,
      [ENV.relayKeysTable]: tableNames.relayKeys,
      [ENV.relayStateTable]: tableNames.relayState,
      [ENV.usageTable]: tableNames.usage,
      [ENV.kbContentTable]: tableNames.kbContent,
      [ENV.kbVectorsTable]: tableNames.kbVectors,
      [ENV.kbTermsTable]: tableNames.kbTerms,
      // No local engine answers SearchVectors: the exact search over the same items (docs/knowledge-base-search.md).
      [ENV.kbVectorSearch]: 'exact',
      [ENV.consolePageFile]: consolePageFile,
      // The import's channel-id key is the local credentials file's (docs/channel-import.md, "Identity").
      [CHANNEL_ID_KEY_FILE_ENV]: credentialsFile,
      // The source store of `npm start` (the deployed source bucket's twin), owner-only like the engine's data.
      [SOURCES_ENV.kbSourceDir]: join(options.dataDir, 'kb-sources'),
      AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
      // The functions sign with the engine's credential, never with a developer's real AWS credentials.
      AWS_ACCESS_KEY_ID: engine.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: engine.credentials.secretAccessKey,
      AWS_SESSION_TOKEN: '',
      AWS_REGION: process.env.AWS_REGION || 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;

    authorizerClient = localDynamoClient(engine);
    const authorizer = createAuthorizer({
      source: localFileCredentialSource(credentialsFile),
      logger: createLogger('authorizer', loadConfig(logLevelEnvSchema)[ENV.logLevel]),
      // Relay keys hashed under the local run's channel-id key. A usable key found is reused for 1 s (a miss, a revoked
      // or an expired key is always read again), so a revoke reaches `npm start` within a second while a client's
      // stream of requests does not read the table each time (deployed, API Gateway caches the whole decision).
      relayKeys: cachedRelayKeyLookup({
        store: new RelayKeysRepository(DynamoDBDocumentClient.from(authorizerClient), tableNames.relayKeys),
        hmacKey: channelIdKeySource({ credentialsFile }),
        maxAgeMs: LOCAL_RELAY_KEY_MAX_AGE_MS,
      }),
    });
    const functions = {} as Record<RouteDef['function'], RouteHandler>;
    for (const name of Object.keys(FUNCTION_ENTRIES) as FunctionName[]) {
      if (name !== 'authorizer') functions[name] = await loadHandler<RouteHandler>(FUNCTION_ENTRIES[name]);
    }
    // The content functions send training work here; the training function runs it, as SQS drives it deployed.
    const trainingLog = createLogger('kb-training-queue', loadConfig(logLevelEnvSchema)[ENV.logLevel]);
    const trainingQueue = localTrainingQueue(functions['train-collection'] as unknown as SqsHandler, {
      onDeadLetter: (message) =>
        trainingLog.error('training failed on every attempt; dropped', {
          kind: message.kind,
          group: messageGroupOf(message),
        }),
    });
    installLocalTrainingQueue(trainingQueue);

    return {
      dynamoEndpoint: engine.endpoint,
      dynamo: { endpoint: engine.endpoint, credentials: engine.credentials },
      dynamoCredentialsFile,
      embeddedEngine: !options.dynamoEndpoint,
      tableNames,
      credentialsFile,
      credentials,
      createdCredentials: created,
      authorizer,
      handlerFor: (route) => functions[route.function],
      trainingQueue,
      uploads: new LocalUploadStore(join(options.dataDir, 'kb-sources')),
      retestChannels: () => (functions['retest-channels'] as unknown as () => Promise<unknown>)(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A failure to prepare the tables on an engine we did not start, said in terms of DYNAMODB_ENDPOINT. */
function unreachable(endpoint: string, error: unknown): Error {
  // A refused connection can surface as an AggregateError with an empty message: fall back to its code.
  const e = error as { message?: string; code?: string; name?: string };
  const reason = e?.message || e?.code || e?.name || String(error);
  return new Error(`cannot prepare the tables on the DynamoDB engine at ${endpoint} (DYNAMODB_ENDPOINT): ${reason}`, {
    cause: error,
  });
}
