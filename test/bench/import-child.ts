/**
 * Child process of the import benchmark, bundled like a function and run with plain `node`, so its
 * peak RSS holds one import and nothing else. Modes (BENCH_MODE):
 * - `core`: the import function's core (`importLegacyGw`) with its production collaborators;
 * - `raw`: the baseline, the same streamed SELECT (MySQL, or PostgreSQL through a cursor when BENCH_DSN is a
 *   postgres:// URL) written with BatchWriteItem, unmapped;
 * - `raw-read`: the same, but each chunk of 100 rows is first read back with one BatchGetItem of its keys,
 *   projected as the import projects its read: the floor that a read-before-write imposes;
 * - `raw-reread`: over the table `raw` just filled, the same SELECT with each chunk read back and nothing written:
 *   the raw counterpart of a re-run of an unchanged import;
 * - `dry`: the core as a dry run into an empty table: the SELECT, mapping, identity, classification and report, with
 *   nothing read back or written (the import's own work, apart from its writes);
 * - `raw-select`: the raw SELECT alone, each chunk dropped: the floor of `dry`.
 * Input comes from the environment (the DSN carries a password, so never on the command line);
 * prints one JSON line `ImportRun`.
 */
import { readFileSync } from 'node:fs';
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import mysql from 'mysql2';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { importLegacyGw } from '#functions/import-legacygw/import-legacygw';
import { CORE_COLUMNS } from '#functions/import-legacygw/limits';
import { openSource } from '#functions/import-legacygw/sources';
import { ANY_HOST } from '#shared/allow-list';
import { documentClient } from '#shared/clients/dynamodb';
import { Slots } from '#shared/repositories/batch';
import { ChannelRepository, COMPARED_ATTRIBUTES } from '#shared/repositories/channels';

/** The channel-id key of the bench's imports. */
const BENCH_CHANNEL_ID_KEY = Buffer.from('bench-channel-id-key-0123456789abcdef012345', 'utf8');

/**
 * The columns the import reads from the bench table (One API's schema): the core's and One API's, plain, with none of
 * the import's limits (the raw baseline is the SELECT and the writes alone).
 */
const RAW_COLUMNS = [
  ...new Set([
    ...CORE_COLUMNS.map((c) => c.name).filter((c) => c !== 'deleted_at'),
    ...(FAMILIES.find((f) => f.kind === 'oneapi')?.columns ?? []).map((c) => c.name),
  ]),
];

/** What one child reports. */
export interface ImportRun {
  rows: number;
  /** Items written to the channels table. */
  items: number;
  /** Ids the import read back before writing (the raw baseline reads none). */
  readIds: number;
  ms: number;
  /** CPU time (user + system) of the child during the import, in ms. */
  cpuMs: number;
  /** Peak resident set size of this process image, in KiB. */
  maxRssKiB: number;
  /** Resident set size after loading the modules, before the import, in KiB. */
  startRssKiB: number;
}

const WRITE_BATCH = 25;
// The repository's default BatchWriteItem parallelism, so both sides write alike.
const WRITES_IN_FLIGHT = 4;
// `raw-read`: the import's chunk (one BatchGetItem of 100 keys) and its chunks in flight.
const READ_CHUNK = 100;
const CHUNKS_IN_FLIGHT = 3;
const COMPARED_PROJECTION = {
  ProjectionExpression: COMPARED_ATTRIBUTES.map((_, i) => `#a${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(COMPARED_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const mode = required('BENCH_MODE');
const table = required('CHANNELS_TABLE');
const dsn = required('BENCH_DSN');
const maxRows = Number(required('BENCH_MAX_ROWS'));

/** The import's core; `items` counts what it handed the repository to write (a re-run of the same rows: none). */
async function runCore(dryRun = false): Promise<{ rows: number; items: number; readIds: number }> {
  const repository = new ChannelRepository(documentClient, table);
  let items = 0;
  let readIds = 0;
  const report = await importLegacyGw(
    { dsn, dryRun },
    {
      openSource,
      repo: {
        getCompared: (ids, options) => {
          readIds += ids.length;
          return repository.getCompared(ids, options);
        },
        putMany: (channels, options) => {
          items += channels.length;
          return repository.putMany(channels, options);
        },
        getMany: (ids, options) => repository.getMany(ids, options),
        isEmpty: (options) => repository.isEmpty(options),
        scanIds: (options) => repository.scanIds(options),
        getSummaries: (ids, options) => repository.getSummaries(ids, options),
      },
      families: FAMILIES,
      channelIdKey: async () => BENCH_CHANNEL_ID_KEY,
      // The deadline is the measurement's to report, not to enforce: 50k rows must fit in 25 s.
      config: { maxRows, deadlineMs: 600_000, allowedHosts: ANY_HOST },
      now: () => new Date(),
      logger: { info: () => {} },
    },
  );
  return { rows: report.source.rows, items, readIds };
}

/**
 * The import's SELECT (all columns it reads, id order) streamed from the legacy database, in chunks of `size`
 * rows (the id as a string, as a key); each chunk is handed to `onChunk`, awaited before more rows are read.
 */
async function streamChunks(
  size: number,
  onChunk: (rows: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  if (dsn.startsWith('postgres://')) return streamPgChunks(size, onChunk);
  const [credentials, address] = splitGoDsn(dsn);
  const connection = mysql.createConnection({
    ...credentials,
    ...address,
    charset: 'utf8mb4_unicode_ci',
    flags: ['-LOCAL_FILES'],
  });
  const columns = RAW_COLUMNS.map((c) => `\`${c}\``).join(', ');
  const sql = `SELECT ${columns} FROM \`channels\` ORDER BY \`id\` LIMIT ${maxRows + 1}`;
  let rows = 0;
  let chunk: Record<string, unknown>[] = [];
  try {
    for await (const raw of connection.query(sql).stream({ highWaterMark: 64 })) {
      const row = raw as Record<string, unknown>;
      rows += 1;
      chunk.push({ ...row, id: String(row.id) });
      if (chunk.length === size) {
        await onChunk(chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) await onChunk(chunk);
  } finally {
    connection.end();
  }
  return rows;
}

// A raw cursor's fetch size: pg-query-stream's default batch.
const PG_FETCH_ROWS = 100;

/** `streamChunks` from PostgreSQL: the same columns through a cursor, integers as text as the import reads them. */
async function streamPgChunks(
  size: number,
  onChunk: (rows: Record<string, unknown>[]) => Promise<void>,
): Promise<number> {
  const url = new URL(dsn);
  const client = new pg.Client({
    host: url.hostname,
    port: Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
  });
  await client.connect();
  const columns = RAW_COLUMNS.map((c) => `"${c}"::text AS "${c}"`).join(', ');
  const cursor = client.query(new Cursor(`SELECT ${columns} FROM "channels" ORDER BY "id" LIMIT ${maxRows + 1}`));
  let rows = 0;
  let chunk: Record<string, unknown>[] = [];
  try {
    for (let batch = await cursor.read(PG_FETCH_ROWS); batch.length > 0; batch = await cursor.read(PG_FETCH_ROWS)) {
      for (const row of batch as Record<string, unknown>[]) {
        rows += 1;
        chunk.push(row);
        if (chunk.length === size) {
          await onChunk(chunk);
          chunk = [];
        }
      }
    }
    if (chunk.length > 0) await onChunk(chunk);
  } finally {
    await cursor.close();
    await client.end();
  }
  return rows;
}

/** The same SELECT as the import, written as-is: batches of 25, four BatchWriteItem calls in flight. */
async function runRaw(): Promise<{ rows: number; items: number; readIds: number }> {
  const inFlight = new Set<Promise<void>>();
  let items = 0;
  const rows = await streamChunks(WRITE_BATCH, async (batch) => {
    const pending: Promise<void> = writeBatch(batch).then((n) => {
      items += n;
      inFlight.delete(pending);
    });
    inFlight.add(pending);
    if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
  });
  await Promise.all(inFlight);
  return { rows, items, readIds: 0 };
}

/**
 * `raw` plus the read the import makes before it writes: rows in chunks of 100, each chunk read back with one
 * BatchGetItem of its keys (projected to the import's compared attributes), then written in batches of 25; three
 * chunks in flight, four BatchWriteItem calls in flight across them (the import's own `Slots`), as the import does.
 */
async function runRawWithRead(): Promise<{ rows: number; items: number; readIds: number }> {
  const writeSlots = new Slots(WRITES_IN_FLIGHT);
  const chunks = new Set<Promise<void>>();
  let items = 0;
  let readIds = 0;
  const readAndWrite = async (rowsOfChunk: Record<string, unknown>[]) => {
    // Not `readIds += await ...`: that reads `readIds` before the await and loses the other chunks' counts.
    const read = await readBack(rowsOfChunk);
    readIds += read;
    const batches: Promise<void>[] = [];
    for (let i = 0; i < rowsOfChunk.length; i += WRITE_BATCH) {
      const batch = rowsOfChunk.slice(i, i + WRITE_BATCH);
      batches.push(
        writeSlots.run(async () => {
          // Not `items += await ...`: that reads `items` before the await and loses the other chunks' counts.
          const written = await writeBatch(batch);
          items += written;
        }, undefined),
      );
    }
    await Promise.all(batches);
  };
  const rows = await streamChunks(READ_CHUNK, async (rowsOfChunk) => {
    while (chunks.size >= CHUNKS_IN_FLIGHT) await Promise.race(chunks);
    const pending: Promise<void> = readAndWrite(rowsOfChunk).finally(() => chunks.delete(pending));
    chunks.add(pending);
  });
  await Promise.all(chunks);
  return { rows, items, readIds };
}

/** Reads a chunk's keys back with one BatchGetItem, projected to the import's compared attributes; returns the keys read. */
async function readBack(rowsOfChunk: readonly Record<string, unknown>[]): Promise<number> {
  let keys = rowsOfChunk.map((row) => ({ id: row.id }));
  while (keys.length > 0) {
    const out = await documentClient.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true, ...COMPARED_PROJECTION } } }),
    );
    keys = (out.UnprocessedKeys?.[table]?.Keys ?? []) as typeof keys;
  }
  return rowsOfChunk.length;
}

/** `raw-read` without the writes, over the table `raw` filled: the raw counterpart of an unchanged re-run. */
async function runRawReread(): Promise<{ rows: number; items: number; readIds: number }> {
  const chunks = new Set<Promise<void>>();
  let readIds = 0;
  const rows = await streamChunks(READ_CHUNK, async (rowsOfChunk) => {
    while (chunks.size >= CHUNKS_IN_FLIGHT) await Promise.race(chunks);
    const pending: Promise<void> = readBack(rowsOfChunk)
      .then((n) => {
        readIds += n;
      })
      .finally(() => chunks.delete(pending));
    chunks.add(pending);
  });
  await Promise.all(chunks);
  return { rows, items: 0, readIds };
}

async function writeBatch(items: Record<string, unknown>[]): Promise<number> {
  let requests = items.map((Item) => ({ PutRequest: { Item } }));
  while (requests.length > 0) {
    const out = await documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
    requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
  }
  return items.length;
}

/** user:password@tcp(host:port)/database, as the bench's MariaDB writes it (no parameters). */
function splitGoDsn(value: string) {
  const at = value.lastIndexOf('@tcp(');
  const colon = value.indexOf(':');
  const match = /^@tcp\(([^)]+):(\d+)\)\/(.+)$/.exec(value.slice(at));
  if (at < 0 || colon < 0 || colon > at || !match) throw new Error('BENCH_DSN is not user:password@tcp(host:port)/db');
  return [
    { user: value.slice(0, colon), password: value.slice(colon + 1, at) },
    { host: match[1]!, port: Number(match[2]), database: match[3]! },
  ] as const;
}

/**
 * Peak RSS of this process image. Not `resourceUsage().maxRSS`: Linux carries the peak of the
 * pre-exec image (a fork of the parent, which holds dynalite's data) across execve into it. VmHWM
 * belongs to the new image only; where /proc is missing, RSS is sampled instead.
 */
function peakRssMeter(): () => number {
  const vmHwmKiB = () => {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : undefined;
  };
  try {
    if (vmHwmKiB() !== undefined) return () => vmHwmKiB()!;
  } catch {
    // No procfs: fall through to sampling.
  }
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10).unref();
  return () => {
    clearInterval(timer);
    return Math.round(Math.max(peak, process.memoryUsage().rss) / 1024);
  };
}

const peakRssKiB = peakRssMeter();
const startRssKiB = Math.round(process.memoryUsage().rss / 1024);
const cpuBefore = process.cpuUsage();
const started = performance.now();
/** The raw SELECT alone: every row streamed and dropped. */
async function runRawSelect(): Promise<{ rows: number; items: number; readIds: number }> {
  const rows = await streamChunks(READ_CHUNK, async () => {});
  return { rows, items: 0, readIds: 0 };
}

const run = {
  core: () => runCore(),
  dry: () => runCore(true),
  raw: runRaw,
  'raw-read': runRawWithRead,
  'raw-reread': runRawReread,
  'raw-select': runRawSelect,
}[mode];
if (run === undefined) throw new Error(`BENCH_MODE ${mode} is not core, dry, raw, raw-read, raw-reread or raw-select`);
const { rows, items, readIds } = await run();
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const result: ImportRun = {
  rows,
  items,
  readIds,
  ms,
  cpuMs: (cpu.user + cpu.system) / 1000,
  maxRssKiB: peakRssKiB(),
  startRssKiB,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
documentClient.destroy();
