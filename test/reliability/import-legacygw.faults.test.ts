import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportDeps, importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import { openLegacySource } from '#functions/import-legacygw/legacy-source';
import type { ImportReport } from '#functions/import-legacygw/report';
import { ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import { ANY_HOST } from '#shared/allow-list';
import { ProxyApiError } from '#shared/errors';
import { ChannelRepository, fromChannelItem, type StoredChannel } from '#shared/repositories/channels';
import { TABLES } from '#shared/tables';
import { TEST_IMPORT_CORE } from '#test/support/channel-ids';
import { startTestEngine, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';
import { type FaultProxy, startFaultProxy } from './dynamo-fault-proxy.ts';
import { type KillableMariaDb, startKillableMariaDb } from './mariadb-process.ts';

const FIXTURE = readFileSync(new URL('../fixtures/legacygw-channels.sql', import.meta.url), 'utf8');
// `legacy`: enough rows that the result is still streaming when the server dies (20 fixture rows plus these).
// `small`: enough for a few chunks of BatchWriteItem calls.
const EXTRA_ROWS = { legacy: 1_500, small: 200 } as const;
const USER = 'importer';
const PASSWORD = 'k1ll@me:/(now)';
const NOW = new Date('2026-05-01T00:00:00.000Z');

let mariadb: KillableMariaDb;
let engine: TestEngine;
let faults: FaultProxy;
let direct: DynamoDBDocumentClient;
let throughFaults: DynamoDBDocumentClient;
const reference = {} as Record<'legacy' | 'small', { channels: StoredChannel[]; report: ImportReport }>;

beforeAll(async () => {
  [mariadb, engine] = await Promise.all([startKillableMariaDb(), startTestEngine()]);
  const admin = await mariadb.admin();
  try {
    await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [USER, '%', PASSWORD]);
    for (const [database, extra] of Object.entries(EXTRA_ROWS)) {
      await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
      await admin.changeUser({ database });
      await admin.query(FIXTURE);
      // The Sequence engine (seq_1_to_N) ships with MariaDB; every generated row is a valid, distinct channel.
      await admin.query(
        `INSERT INTO channels (id, type, \`key\`, status, name, base_url, models)
         SELECT 1000 + seq, 1 + (seq % 49), CONCAT('sk-load-', seq), 1 + (seq % 3), CONCAT('load ', seq), '',
                'gpt-4o,gpt-4o-mini' FROM seq_1_to_${extra}`,
      );
      await admin.query(`GRANT SELECT ON ${database}.* TO ?@?`, [USER, '%']);
    }
  } finally {
    await admin.end();
  }
  faults = await startFaultProxy(engine);
  direct = DynamoDBDocumentClient.from(localDynamoClient(engine));
  throughFaults = DynamoDBDocumentClient.from(
    localDynamoClient({ endpoint: faults.endpoint, credentials: engine.credentials }),
    {
      marshallOptions: { removeUndefinedValues: true },
    },
  );
  // What one clean import of each database stores: the state every interrupted import must converge on.
  for (const database of ['legacy', 'small'] as const) {
    const table = await newTable();
    const clean = await attempt(dsn(mariadb.port, database), deps(table));
    if (!clean.report) throw new Error(`the clean import of ${database} failed`);
    reference[database] = { channels: await scan(table), report: clean.report };
  }
}, 120_000);

afterAll(async () => {
  direct?.destroy();
  throughFaults?.destroy();
  await faults?.close();
  await engine?.close();
  await mariadb?.stop();
});

const dsn = (port: number, database: 'legacy' | 'small') =>
  `${USER}:${PASSWORD}@tcp(127.0.0.1:${port})/${database}?timeout=5s`;

/** A fresh channels table of its own. */
async function newTable(): Promise<string> {
  const name = uniqueTableName('channels');
  const client = localDynamoClient(engine);
  try {
    await ensureTable(client, name, TABLES.channels);
  } finally {
    client.destroy();
  }
  return name;
}

async function scan(table: string): Promise<StoredChannel[]> {
  const items: StoredChannel[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await direct.send(new ScanCommand({ TableName: table, ExclusiveStartKey, ConsistentRead: true }));
    for (const item of page.Items ?? []) items.push(fromChannelItem<StoredChannel>(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort((a, b) => a.id.localeCompare(b.id));
}

function deps(table: string, client = direct, maxAttempts = 8): ImportDeps {
  return {
    openSource: openLegacySource,
    repo: new ChannelRepository(client, table, { baseDelayMs: 2, maxDelayMs: 20, maxAttempts }),
    ...TEST_IMPORT_CORE,
    config: { maxRows: 50_000, deadlineMs: 25_000, allowedHosts: ANY_HOST },
    now: () => NOW,
    logger: new Logger({ serviceName: 'reliability', logLevel: 'SILENT' }),
  };
}

async function attempt(dsnText: string, d: ImportDeps): Promise<{ report?: ImportReport; error?: unknown }> {
  try {
    return { report: await importLegacyGw({ dsn: dsnText, dryRun: false }, d) };
  } catch (error) {
    return { error };
  }
}

/**
 * A TCP relay to MariaDB that, once `afterBytes` of the server's bytes have passed, stops relaying and
 * calls `onPause` (the test kills the server there). The rest of the stream never arrives.
 */
async function startTap(port: number, afterBytes: number, onPause: () => void) {
  const sockets = new Set<Socket>();
  let paused = false;
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    let relayed = 0;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (paused) return;
      relayed += chunk.length;
      client.write(chunk);
      if (relayed >= afterBytes) {
        paused = true;
        onPause();
      }
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not reached');
}

describe('an import whose MariaDB server is killed part-way (SIGKILL)', () => {
  it('fails with a 502 that says how many channels were written, and a re-run converges on a clean import', async () => {
    const table = await newTable();
    const total = reference.legacy.channels.length;
    let killed: Promise<void> | undefined;
    // About a third of the result passes; the import writes what it got, then the server dies.
    const tap = await startTap(mariadb.port, 40_000, () => {
      killed = waitFor(async () => (await scan(table)).length >= 100).then(() => mariadb.kill());
    });

    let interrupted: Awaited<ReturnType<typeof attempt>>;
    try {
      interrupted = await attempt(dsn(tap.port, 'legacy'), deps(table));
      await killed;
    } finally {
      await tap.close();
      await mariadb.restart();
    }
    const afterKill = await scan(table);
    const rerun = await attempt(dsn(mariadb.port, 'legacy'), deps(table));

    expect(interrupted.error).toBeInstanceOf(ProxyApiError);
    const error = interrupted.error as ProxyApiError;
    expect(error.httpStatus).toBe(502);
    expect(error.message).toMatch(/closed the connection|reset the connection/);
    expect(error.message).toContain(`${afterKill.length} channel(s) were written`);
    expect(error.message).not.toContain(PASSWORD);
    expect(afterKill.length).toBeGreaterThanOrEqual(100);
    expect(afterKill.length).toBeLessThan(total);
    expect(rerun.report?.channels).toEqual({
      created: total - afterKill.length,
      updated: 0,
      unchanged: afterKill.length,
      edited: 0,
    });
    expect(rerun.report?.rows).toEqual(reference.legacy.report.rows);
    expect(await scan(table)).toEqual(reference.legacy.channels);
  });
});

describe('an import whose BatchWriteItem calls leave items unprocessed', () => {
  it('resends the unprocessed items until every channel is stored, counting each once', async () => {
    faults.calls.clear();
    const table = await newTable();
    // Each of the first 20 BatchWriteItem calls stores only 7 of its items and hands the rest back.
    faults.script = (op, n) =>
      op === 'BatchWriteItem' && n <= 20 ? { kind: 'partial-batch', keep: 7 } : { kind: 'forward' };

    const result = await attempt(dsn(mariadb.port, 'small'), deps(table, throughFaults));

    faults.script = () => ({ kind: 'forward' });
    const stored = await scan(table);
    expect(result.error).toBeUndefined();
    expect(result.report).toEqual(reference.small.report);
    expect(stored).toEqual(reference.small.channels);
    expect(faults.calls.get('BatchWriteItem')).toBeGreaterThan(20);
  });

  it('gives up after its retries with the count written, and a re-run converges', async () => {
    const table = await newTable();
    // The first eight batches (two chunks of the import) go through; from then on each batch stores one
    // item and returns the rest, until the repository runs out of attempts.
    faults.calls.clear();
    faults.script = (op, n) =>
      op === 'BatchWriteItem' && n > 8 ? { kind: 'partial-batch', keep: 1 } : { kind: 'forward' };

    const failed = await attempt(dsn(mariadb.port, 'small'), deps(table, throughFaults, 3));

    faults.script = () => ({ kind: 'forward' });
    const afterFailure = await scan(table);
    const rerun = await attempt(dsn(mariadb.port, 'small'), deps(table));

    expect(failed.error).toBeInstanceOf(Error);
    expect((failed.error as { written?: number }).written).toBe(afterFailure.length);
    // Some writes landed before the failure and some did not. How many depends on how the import's chunks
    // interleave (up to three chunks are written at once), so only the bounds are fixed.
    expect(afterFailure.length).toBeGreaterThan(0);
    expect(afterFailure.length).toBeLessThan(reference.small.channels.length);
    expect(rerun.report?.channels.unchanged).toBe(afterFailure.length);
    expect(await scan(table)).toEqual(reference.small.channels);
  });
});
