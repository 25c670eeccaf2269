import { join } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { ensureTables, localDynamoClient } from '#infra/local/dynamo-engine';
import { startPostgres } from '#test/support/postgres';
import { bundleFunction } from './bundle.ts';
import type { Figure } from './figures.ts';
import {
  type ImportBenchOptions,
  importSide,
  importTargetFigures,
  LARGE_IMPORT,
  rssGrowthFigure,
  runChild,
  startEngineHere,
} from './import.ts';
import type { ImportRun } from './import-child.ts';
import { createLegacyPgDatabase } from './legacy-rows.ts';

/** `core`: the import through its PostgreSQL source; `raw`: the same SELECT through a plain cursor, written as-is. */
const MODES = ['core', 'raw'] as const;

/**
 * The import from PostgreSQL (docs/performance.md): the rows of the MySQL part in a throwaway PostgreSQL cluster,
 * imported into dynalite through the import's core and its PostgreSQL source, against a raw baseline in the same
 * run (the same columns through a pg-cursor, written with BatchWriteItem, no mapping). The targets are the MySQL
 * part's: throughput at least 0.8x raw, 50,000 rows inside 25 s, peak RSS not growing with the rows.
 */
export async function benchImportPostgres(options: ImportBenchOptions): Promise<Figure[]> {
  const child = await bundleFunction('test/bench/import-child.ts', join(options.workDir, 'import-child-pg'));
  const postgres = await startPostgres();
  const engine = await startEngineHere();
  const client = localDynamoClient(engine);
  const results = new Map<number, Record<(typeof MODES)[number], ImportRun[]>>();
  try {
    for (const size of options.sizes) {
      const database = await createLegacyPgDatabase(postgres, size);
      const runs: Record<(typeof MODES)[number], ImportRun[]> = { core: [], raw: [] };
      for (let round = 0; round < options.rounds; round++) {
        // The order turns each round, so drift in machine load does not favour one side.
        const order = round % 2 === 0 ? MODES : [...MODES].reverse();
        for (const mode of order) {
          const table = `bench-pg-channels-${mode}-${size}-${round}`;
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
            const run = await runChild(child.file, mode, {
              endpoint: engine.endpoint,
              table,
              dsn: postgres.dsn(database, { params: 'sslmode=disable' }),
              maxRows: Math.max(size, LARGE_IMPORT.rows),
            });
            if (run.rows !== size || run.items !== size) {
              throw new Error(`PostgreSQL ${mode} import of ${size} rows read ${run.rows} rows and wrote ${run.items}`);
            }
            options.log(
              `import ${size} from PostgreSQL ${mode}: ${(run.ms / 1000).toFixed(2)} s, CPU ${(run.cpuMs / 1000).toFixed(2)} s, ` +
                `peak RSS ${(run.maxRssKiB / 1024).toFixed(1)} MiB`,
            );
            runs[mode].push(run);
          } finally {
            for (const name of Object.values(names)) await client.send(new DeleteTableCommand({ TableName: name }));
          }
        }
      }
      results.set(size, runs);
    }
  } finally {
    client.destroy();
    await engine.close();
    await postgres.stop();
  }
  return figures(options.sizes, results);
}

function figures(
  sizes: readonly number[],
  results: Map<number, Record<(typeof MODES)[number], ImportRun[]>>,
): Figure[] {
  const core = importSide(results, 'core');
  const raw = importSide(results, 'raw');
  const out = sizes.flatMap((size) => importTargetFigures(`import ${size} rows from PostgreSQL`, size, core, raw));
  out.push(rssGrowthFigure('import from PostgreSQL', sizes, core.peakMiB));
  return out;
}
