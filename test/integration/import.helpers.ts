import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import { openLegacySource } from '#functions/import-legacygw/legacy-source';
import { ANY_HOST } from '#shared/allow-list';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { TABLES } from '#shared/tables';

export const FIXTURE_SQL = readFileSync(new URL('../fixtures/legacygw-channels.sql', import.meta.url), 'utf8');
export const FIXTURE_V05_SQL = readFileSync(new URL('../fixtures/legacygw-channels-v05.sql', import.meta.url), 'utf8');

/** Every API key in the fixtures, for "never leaks" checks (rows 10 and 18 hold several). */
export const FIXTURE_KEYS: readonly string[] = [
  ...[...FIXTURE_SQL.matchAll(/VALUES \(\d+, \d+, '([^']+)'/g)].map((m) => m[1]!),
  ...[...FIXTURE_V05_SQL.matchAll(/\(\d+, \d+, +'([^']+)'/g)].map((m) => m[1]!),
  'sk-fixture-deepseek-a',
  'sk-fixture-deepseek-b',
  'sk-fixture-deepseek-c',
  'sk-fixture-crlf-a',
  'sk-fixture-crlf-b',
];

/** An in-process dynalite engine on a random loopback port. */
export interface TestDynamo {
  readonly endpoint: string;
  readonly documentClient: DynamoDBDocumentClient;
  /** Creates a fresh, uniquely named channels table and returns its name. */
  createChannelsTable(): Promise<string>;
  /** Every item of a table, sorted by id. */
  scan(table: string): Promise<StoredChannel[]>;
  stop(): Promise<void>;
}

export async function startDynalite(): Promise<TestDynamo> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint });
  const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    endpoint,
    documentClient,
    async createChannelsTable() {
      const name = `channels-${randomBytes(6).toString('hex')}`;
      const key = TABLES.channels.partitionKey;
      await client.send(
        new CreateTableCommand({
          TableName: name,
          KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      return name;
    },
    async scan(table) {
      const items: StoredChannel[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
        items.push(...((page.Items ?? []) as StoredChannel[]));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.sort((a, b) => a.id.localeCompare(b.id));
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
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
    openSource: openLegacySource,
    repo: new ChannelRepository(dynamo.documentClient, table, { baseDelayMs: 5 }),
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
