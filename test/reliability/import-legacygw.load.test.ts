import { readFileSync } from 'node:fs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ImportReport } from '#functions/import-legacygw/report';
import { localDynamoClient } from '#infra/local/dynamo-engine';
import { fromChannelItem, type StoredChannel } from '#shared/repositories/channels';
import { startTestServer, type TestServer } from '#test/support/local-server';
import { startMariaDb, type TestMariaDb } from '#test/support/mariadb';

const FIXTURE = readFileSync(new URL('../fixtures/legacygw-channels.sql', import.meta.url), 'utf8');
const CONCURRENT = 5;

let server: TestServer;
let mariadb: TestMariaDb;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  vi.stubEnv('LOG_LEVEL', 'SILENT');
  [server, mariadb] = await Promise.all([startTestServer(), startMariaDb()]);
  documents = DynamoDBDocumentClient.from(localDynamoClient(server.engine));
}, 120_000);

afterAll(async () => {
  documents?.destroy();
  await server?.close();
  await mariadb?.stop();
  vi.unstubAllEnvs();
});

async function importOnce(dsn: string, dryRun = false): Promise<{ status: number; data: ImportReport }> {
  const response = await fetch(`${server.url}/api/channels/import/legacygw`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.credentials.adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ dsn, dryRun }),
  });
  const body = (await response.json()) as { data: ImportReport };
  return { status: response.status, data: body.data };
}

async function channelsOf(database: string): Promise<StoredChannel[]> {
  const items: StoredChannel[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: server.tables.channels, ExclusiveStartKey, ConsistentRead: true }),
    );
    for (const item of page.Items ?? []) items.push(fromChannelItem<StoredChannel>(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.filter((c) => c.source.database === database);
}

describe('concurrent imports of the same source (local server, real MariaDB)', () => {
  it(`leaves the table of one clean import after ${CONCURRENT} imports at once, with counts that add up`, async () => {
    const database = await mariadb.createDatabase(undefined, FIXTURE);
    const dsn = mariadb.dsn(database);
    // A dry run on the empty table: what one clean import creates.
    const plan = await importOnce(dsn, true);

    const runs = await Promise.all(Array.from({ length: CONCURRENT }, () => importOnce(dsn)));
    const stored = await channelsOf(database);
    const after = await importOnce(dsn);

    expect(plan.status).toBe(200);
    const total = plan.data.channels.created;
    expect(total).toBe(21);
    for (const run of runs) {
      expect(run.status).toBe(200);
      expect(run.data.rows).toEqual(plan.data.rows);
      expect(run.data.items).toEqual(plan.data.items);
      const { created, updated, unchanged } = run.data.channels;
      expect(created + updated + unchanged).toBe(total);
    }
    // Racing runs may each see a channel as new, but together they create at least every channel once.
    expect(runs.reduce((sum, r) => sum + r.data.channels.created, 0)).toBeGreaterThanOrEqual(total);
    expect(stored).toHaveLength(total);
    expect(new Set(stored.map((c) => c.id)).size).toBe(total);
    // The next run finds every channel exactly as a clean import leaves it.
    expect(after.data.channels).toEqual({ created: 0, updated: 0, unchanged: total, edited: 0 });
  });
});
