import { readFileSync } from 'node:fs';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import { openSource } from '#functions/import-legacygw/sources';
import { type EngineAccess, ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import { ANY_HOST } from '#shared/allow-list';
import { ChannelRepository, fromChannelItem, type StoredChannel } from '#shared/repositories/channels';
import { TABLES } from '#shared/tables';
import { TEST_CHANNEL_ID_KEY } from '#test/support/channel-ids';
import { startTestEngine, uniqueTableName } from '#test/support/dynamo-engine';
import { startedInBeforeAll } from '#test/support/local-server';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';

export const FIXTURE_SQL = readFileSync(new URL('../fixtures/legacygw-channels.sql', import.meta.url), 'utf8');
export const FIXTURE_V05_SQL = readFileSync(new URL('../fixtures/legacygw-channels-v05.sql', import.meta.url), 'utf8');
/** Routes kept, changed and lost (docs/channel-import.md, "Routes"); the file's header lists them. */
export const ROUTES_FIXTURE_SQL = readFileSync(new URL('../fixtures/legacygw-routes.sql', import.meta.url), 'utf8');

/** The report's `routes` for ROUTES_FIXTURE_SQL into an empty channels table. */
export const ROUTES_FIXTURE_EXPECTED = {
  total: 6,
  kept: 3,
  changed: 1,
  lost: 2,
  items: [
    { group: 'night shift', model: 'o1', legacy: 1, imported: 0 },
    { group: 'default', model: 'only-on-fork', legacy: 1, imported: 0 },
    { group: 'vip', model: 'gpt-4o', legacy: 2, imported: 1 },
  ],
  itemsTruncated: false,
  complete: true,
};

/** Every API key in the fixtures, for "never leaks" checks (rows 10 and 18 hold several). */
export const FIXTURE_KEYS: readonly string[] = [
  ...[...FIXTURE_SQL.matchAll(/VALUES \(\d+, \d+, '([^']+)'/g)].map((m) => m[1]!),
  ...[...FIXTURE_V05_SQL.matchAll(/\(\d+, \d+, +'([^']+)'/g)].map((m) => m[1]!),
  ...[...ROUTES_FIXTURE_SQL.matchAll(/VALUES \(\d+, \d+, '([^']+)'/g)].map((m) => m[1]!),
  'sk-fixture-routes-0006a',
  'sk-fixture-routes-0006b',
  'sk-fixture-deepseek-a',
  'sk-fixture-deepseek-b',
  'sk-fixture-deepseek-c',
  'sk-fixture-crlf-a',
  'sk-fixture-crlf-b',
];

/** The tests' DynamoDB engine (test/support/dynamo-engine.ts) with channels tables of this file's own. */
export interface TestDynamo extends EngineAccess {
  readonly documentClient: DynamoDBDocumentClient;
  /** Creates a fresh, uniquely named channels table and returns its name. */
  createChannelsTable(): Promise<string>;
  /** Every item of a table, sorted by id. */
  scan(table: string): Promise<StoredChannel[]>;
  stop(): Promise<void>;
}

/** A throwaway MariaDB and the test DynamoDB engine for this test file: started in beforeAll, stopped after it. */
export function useImportEngines(): { db: TestMariaDb; dynamo: TestDynamo } {
  let db: TestMariaDb | undefined;
  let dynamo: TestDynamo | undefined;
  beforeAll(async () => {
    [db, dynamo] = await Promise.all([startMariaDb(), startTestDynamo()]);
  });
  afterAll(async () => {
    await Promise.all([db?.stop(), dynamo?.stop()]);
  });
  return {
    db: startedInBeforeAll(() => db, 'the MariaDB server'),
    dynamo: startedInBeforeAll(() => dynamo, 'the DynamoDB engine'),
  };
}

export async function startTestDynamo(): Promise<TestDynamo> {
  const engine = await startTestEngine();
  const client = localDynamoClient(engine);
  const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    endpoint: engine.endpoint,
    credentials: engine.credentials,
    documentClient,
    async createChannelsTable() {
      const name = uniqueTableName('channels');
      await ensureTable(client, name, TABLES.channels);
      return name;
    },
    async scan(table) {
      const items: StoredChannel[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
        for (const item of page.Items ?? []) items.push(fromChannelItem<StoredChannel>(item));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.sort((a, b) => a.id.localeCompare(b.id));
    },
    async stop() {
      client.destroy();
      await engine.close();
    },
  };
}

/** A Powertools logger writing JSON lines to process.stdout (see `captureOutput`); silent unless asked. */
export function testLogger(logLevel: 'DEBUG' | 'SILENT' = 'SILENT'): Logger {
  return new Logger({ serviceName: 'import-legacygw-test', logLevel });
}

/** The real import over a real repository, with test-sized limits. */
export function importDeps(dynamo: TestDynamo, table: string, overrides: Partial<ImportDeps['config']> = {}) {
  const deps: ImportDeps = {
    openSource,
    repo: new ChannelRepository(dynamo.documentClient, table, { baseDelayMs: 5 }),
    families: FAMILIES,
    channelIdKey: async () => TEST_CHANNEL_ID_KEY,
    config: { maxRows: 50_000, deadlineMs: 20_000, allowedHosts: ANY_HOST, ...overrides },
    now: () => new Date('2026-03-01T10:00:00.000Z'),
    logger: testLogger(),
  };
  return deps;
}

/** Runs an import and returns either its report or the error it threw. */
export async function runImport(dsn: string, deps: ImportDeps, dryRun = false) {
  try {
    return { ok: true as const, report: await importLegacyGw({ dsn, dryRun }, deps) };
  } catch (error) {
    return { ok: false as const, error: error as Error & { httpStatus?: number; written?: number } };
  }
}

// Kept for callers that import it from here.
export { captureOutput } from '#test/support/capture-output';
