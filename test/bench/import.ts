import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import {
  type EngineAccess,
  EXTERNAL_ENGINE_CREDENTIALS,
  ensureTables,
  localDynamoClient,
} from '#infra/local/dynamo-engine';
import { startMariaDb } from '#test/support/mariadb';
import { bundleFunction } from './bundle.ts';
import { type Figure, figure, median } from './figures.ts';
import type { ImportRun } from './import-child.ts';
import { createLegacyDatabase } from './legacy-rows.ts';

const exec = promisify(execFile);

export interface ImportBenchOptions {
  workDir: string;
  /** Row counts, smallest first; memory growth compares the last with the first. */
  sizes: readonly number[];
  /** Runs of each mode per size; the median run counts. */
  rounds: number;
  log: (line: string) => void;
}

/**
 * `core`: the import into an empty table (it reads nothing back). `read-path`: the same import into a table holding
 * one unrelated channel, so every chunk is read before it is written. `rerun`: the core again over the table its own
 * run just filled, from the same unchanged rows. `raw-read`: the raw baseline plus one projected BatchGetItem of each
 * chunk's keys before its writes (the floor a read-before-write imposes). `raw-reread`: the raw SELECT again over the
 * table its own run just filled, each chunk read back, nothing written (the raw counterpart of `rerun`). `dry`: the
 * core as a dry run into an empty table, and `raw-select`: the raw SELECT alone: the import's own work without its
 * writes, against its floor.
 */
export type Mode = 'core' | 'read-path' | 'raw' | 'raw-read' | 'rerun' | 'raw-reread' | 'dry' | 'raw-select';
const ALTERNATED: readonly Exclude<Mode, 'rerun' | 'raw-reread'>[] = [
  'core',
  'raw',
  'read-path',
  'raw-read',
  'dry',
  'raw-select',
];
/** What `read-path` finds in its table: no generated row maps to it, so it changes no outcome. */
const UNRELATED_CHANNEL = {
  id: { S: 'bench-unrelated-channel' },
  name: { S: 'unrelated' },
  status: { S: 'enabled' },
  models: { L: [{ S: 'm' }] },
};
type Measured = ImportRun & { engineCpuMs: number };

export const THROUGHPUT_RATIO_TARGET = 0.8;
/** Peak RSS at 50,000 rows at most 1.25x that at 10,000 (memory must not grow with the row count). */
export const RSS_GROWTH = { from: 10_000, to: 50_000, max: 1.25 };
/** A re-run of an unchanged import writes nothing and takes at most this fraction of the first import's time. */
const RERUN_DURATION_RATIO_TARGET = 0.5;
/** docs/channel-import.md: 50,000 rows (the default row cap) inside the default 25 s deadline. */
export const LARGE_IMPORT = { rows: 50_000, maxSeconds: 25 };

/**
 * Part 3: imports generated legacy rows from a throwaway MariaDB into dynalite, through the import
 * function's core, against a raw baseline (the same streamed SELECT, the same number of items
 * written with BatchWriteItem, no mapping). Each run is a fresh child process with a fresh table;
 * dynalite runs here, so the child's peak RSS is the import's own.
 */
export async function benchImport(options: ImportBenchOptions): Promise<Figure[]> {
  const child = await bundleFunction('test/bench/import-child.ts', join(options.workDir, 'import-child'));
  const mariadb = await startMariaDb();
  const engine = await startEngineHere();
  const client = localDynamoClient(engine);
  try {
    const results = new Map<number, Record<Mode, Measured[]>>();
    for (const size of options.sizes) {
      const database = await createLegacyDatabase(mariadb, size);
      const runs: Record<Mode, Measured[]> = {
        core: [],
        'read-path': [],
        raw: [],
        'raw-read': [],
        rerun: [],
        'raw-reread': [],
        dry: [],
        'raw-select': [],
      };
      for (let round = 0; round < options.rounds; round++) {
        // The order turns each round, so drift in machine load does not favour one side.
        const order = ALTERNATED.map((_, i) => ALTERNATED[(i + round) % ALTERNATED.length]!);
        for (const mode of order) {
          const table = `bench-channels-${mode}-${size}-${round}`;
          const names = {
            datasets: `${table}-unused-datasets`,
            channels: table,
            relayKeys: `${table}-unused-relay-keys`,
            relayState: `${table}-unused-relay-state`,
            usage: `${table}-unused-usage`,
            kbContent: `${table}-unused-kb-content`,
          };
          await ensureTables(client, names);
          try {
            const measure = async (as: Mode, expected: { items: number; readIds: number }) => {
              // This process is idle but for dynalite while it waits, so its CPU time is the engine's work.
              const engineCpu = process.cpuUsage();
              const run = await runChild(child.file, as === 'rerun' || as === 'read-path' ? 'core' : as, {
                endpoint: engine.endpoint,
                table,
                dsn: mariadb.dsn(database),
                maxRows: Math.max(size, LARGE_IMPORT.rows),
              });
              const { user, system } = process.cpuUsage(engineCpu);
              const result: Measured = { ...run, engineCpuMs: (user + system) / 1000 };
              if (result.rows !== size || result.items !== expected.items || result.readIds !== expected.readIds) {
                throw new Error(
                  `${as} import of ${size} rows read ${result.rows} rows and ${result.readIds} ids back, and wrote ${result.items}`,
                );
              }
              options.log(
                `import ${size} ${as}: ${(result.ms / 1000).toFixed(2)} s, importer CPU ${(result.cpuMs / 1000).toFixed(2)} s, ` +
                  `engine CPU ${(result.engineCpuMs / 1000).toFixed(2)} s, peak RSS ${(result.maxRssKiB / 1024).toFixed(1)} MiB`,
              );
              runs[as].push(result);
            };
            if (mode === 'read-path') {
              await client.send(new PutItemCommand({ TableName: table, Item: UNRELATED_CHANNEL }));
            }
            // The core starts on an empty table, so it reads nothing back (docs/channel-import.md); a dry run and the
            // bare SELECT write nothing.
            const writes = mode === 'dry' || mode === 'raw-select' ? 0 : size;
            const reads = mode === 'read-path' || mode === 'raw-read' ? size : 0;
            await measure(mode, { items: writes, readIds: reads });
            // The same rows again over what the first import wrote: every channel read, unchanged, nothing written.
            if (mode === 'core') await measure('rerun', { items: 0, readIds: size });
            if (mode === 'raw') await measure('raw-reread', { items: 0, readIds: size });
          } finally {
            for (const name of Object.values(names)) await client.send(new DeleteTableCommand({ TableName: name }));
          }
        }
      }
      results.set(size, runs);
      await mariadb.query(`DROP DATABASE \`${database}\``);
    }
    return importFigures(options.sizes, results);
  } finally {
    client.destroy();
    await engine.close();
    await mariadb.stop();
  }
}

/**
 * dynalite in this process, not in its own as `startDynamoEngine` runs it: this process is idle
 * while a child imports, so its CPU time is the engine's.
 */
export async function startEngineHere(): Promise<EngineAccess & { close(): Promise<void> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // Unguarded (the bench's own in-memory engine on loopback, for the bench's run only): any credential signs.
    credentials: EXTERNAL_ENGINE_CREDENTIALS,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function importFigures(sizes: readonly number[], results: Map<number, Record<Mode, Measured[]>>): Figure[] {
  const of = (size: number, mode: Mode, pick: (r: Measured) => number) => median(results.get(size)![mode].map(pick));
  const seconds = (size: number, mode: Mode) => of(size, mode, (r) => r.ms / 1000);
  const peakMiB = (size: number, mode: Mode) => of(size, mode, (r) => r.maxRssKiB / 1024);
  const engineSeconds = (size: number, mode: Mode) => of(size, mode, (r) => r.engineCpuMs / 1000);
  const cpuSeconds = (size: number, mode: Mode) => of(size, mode, (r) => r.cpuMs / 1000);
  const figures: Figure[] = [];
  const core = importSide(results, 'core');
  const raw = importSide(results, 'raw');
  for (const size of sizes) {
    const prefix = `import ${size} rows`;
    figures.push(
      ...importTargetFigures(prefix, size, core, raw),
      figure(`${prefix}: CPU time of dynalite (vs raw)`, engineSeconds(size, 'core'), 's', engineSeconds(size, 'raw')),
      figure(
        `${prefix}: into a table holding channels (every chunk read first): throughput (vs raw)`,
        size / seconds(size, 'read-path'),
        'rows/s',
        size / seconds(size, 'raw'),
      ),
      figure(
        `${prefix}: into a table holding channels: throughput (vs raw with read-before-write)`,
        size / seconds(size, 'read-path'),
        'rows/s',
        size / seconds(size, 'raw-read'),
      ),
      // The floor a read-before-write imposes: what the raw baseline loses when it reads each chunk back first.
      figure(
        `${prefix}: raw with read-before-write: throughput (vs raw)`,
        size / seconds(size, 'raw-read'),
        'rows/s',
        size / seconds(size, 'raw'),
      ),
      figure(
        `${prefix}: raw with read-before-write: CPU time of dynalite (vs raw)`,
        engineSeconds(size, 'raw-read'),
        's',
        engineSeconds(size, 'raw'),
      ),
      // The re-run target's floor: what the raw pair itself gains by reading every row back instead of writing it.
      figure(
        `${prefix}: raw re-read, every row read back and nothing written: duration (vs raw)`,
        seconds(size, 'raw-reread'),
        's',
        seconds(size, 'raw'),
      ),
      figure(
        `${prefix}: re-run of an unchanged import: duration (vs raw re-read)`,
        seconds(size, 'rerun'),
        's',
        seconds(size, 'raw-reread'),
      ),
      // The import's own work apart from its writes (mapping, identity, classification, report), against the SELECT
      // that feeds it: where the importer's CPU over the raw baseline's goes when it is not the writes.
      figure(
        `${prefix}: a dry run, nothing written: CPU time of the importer (vs the raw SELECT alone)`,
        cpuSeconds(size, 'dry'),
        's',
        cpuSeconds(size, 'raw-select'),
      ),
      figure(
        `${prefix}: a dry run, nothing written: duration (vs the import)`,
        seconds(size, 'dry'),
        's',
        seconds(size, 'core'),
      ),
      // The child checks that the re-run handed nothing to the repository to write.
      figure(
        `${prefix}: re-run of an unchanged import, writing nothing: duration (vs first import)`,
        seconds(size, 'rerun'),
        's',
        seconds(size, 'core'),
        { of: 'ratio', max: RERUN_DURATION_RATIO_TARGET },
      ),
    );
  }
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  figures.push(
    rssGrowthFigure('import', sizes, core.peakMiB),
    figure(
      `raw baseline: peak RSS ${large} rows (vs ${small} rows)`,
      peakMiB(large, 'raw'),
      'MiB',
      peakMiB(small, 'raw'),
    ),
  );
  return figures;
}

/** One side of an import's measurements (the import or its raw baseline): medians per row count. */
export interface ImportSide {
  seconds(size: number): number;
  cpuSeconds(size: number): number;
  peakMiB(size: number): number;
}

/** The medians of one mode's runs, per row count. */
export function importSide<M extends string>(
  results: ReadonlyMap<number, Record<M, ImportRun[]>>,
  mode: M,
): ImportSide {
  const of = (size: number, pick: (r: ImportRun) => number) => median(results.get(size)![mode].map(pick));
  return {
    seconds: (size) => of(size, (r) => r.ms / 1000),
    cpuSeconds: (size) => of(size, (r) => r.cpuMs / 1000),
    peakMiB: (size) => of(size, (r) => r.maxRssKiB / 1024),
  };
}

/**
 * The figures every import source is held to (docs/performance.md), named `${prefix}: …`: throughput against its
 * raw baseline, duration (50,000 rows within the deadline), the importer's CPU and its peak RSS.
 */
export function importTargetFigures(prefix: string, size: number, core: ImportSide, raw: ImportSide): Figure[] {
  return [
    // Throughput from the median duration, so the two figures describe the same run.
    figure(`${prefix}: throughput (vs raw)`, size / core.seconds(size), 'rows/s', size / raw.seconds(size), {
      of: 'ratio',
      min: THROUGHPUT_RATIO_TARGET,
    }),
    figure(
      `${prefix}: duration (vs raw)`,
      core.seconds(size),
      's',
      raw.seconds(size),
      size === LARGE_IMPORT.rows ? { of: 'value', max: LARGE_IMPORT.maxSeconds } : undefined,
    ),
    figure(`${prefix}: CPU time of the importer (vs raw)`, core.cpuSeconds(size), 's', raw.cpuSeconds(size)),
    figure(`${prefix}: peak RSS (vs raw)`, core.peakMiB(size), 'MiB', raw.peakMiB(size)),
  ];
}

/** `${label}: peak RSS <largest> rows (vs <smallest> rows)`, with its target when the sizes are the target's. */
export function rssGrowthFigure(label: string, sizes: readonly number[], peakMiB: (size: number) => number): Figure {
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  return figure(
    `${label}: peak RSS ${large} rows (vs ${small} rows)`,
    peakMiB(large),
    'MiB',
    peakMiB(small),
    small === RSS_GROWTH.from && large === RSS_GROWTH.to ? { of: 'ratio', max: RSS_GROWTH.max } : undefined,
  );
}

export async function runChild(
  file: string,
  mode: Exclude<Mode, 'rerun'>,
  input: { endpoint: string; table: string; dsn: string; maxRows: number },
): Promise<ImportRun> {
  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of every child, one folder per mode (rerun and read-path go under core).
  const profile = process.env.BENCH_CPU_PROF;
  const prof = profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, mode)}`] : [];
  const { stdout } = await exec(process.execPath, [...prof, file], {
    env: {
      PATH: process.env.PATH ?? '',
      BENCH_MODE: mode,
      BENCH_DSN: input.dsn,
      BENCH_MAX_ROWS: String(input.maxRows),
      CHANNELS_TABLE: input.table,
      AWS_ENDPOINT_URL_DYNAMODB: input.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    timeout: 180_000,
  });
  return JSON.parse(stdout) as ImportRun;
}
