/**
 * `npm run bench [-- --quick] [-- --only cold-start|create|import|import-postgres|console|list|relay|search|kb-training ...]` (docs/performance.md): cold start,
 * create through the local server, import, the console page and the channel list, each against a baseline
 * measured in the same run. Prints a
 * table and writes JSON to BENCH_OUT (default .bench/results.json). Never part of `npm test`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './bundle.ts';
import { benchColdStart } from './cold-start.ts';
import { benchConsolePage } from './console-page.ts';
import { benchCreate, benchCreateInProcess } from './create.ts';
import { type Figure, formatTable, writeResults } from './figures.ts';
import { benchImport } from './import.ts';
import { benchImportPostgres } from './import-postgres.ts';
import { benchKbTraining } from './kb-training.ts';
import { benchList } from './list.ts';
import { benchRelay } from './relay.ts';
import { benchRelayQuota } from './relay-quota.ts';
import { benchSearch } from './search.ts';

// The SDK warns about Node 20 on every client; the figures are the same either way.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
  },
});
const PARTS = [
  'cold-start',
  'create',
  'import',
  'import-postgres',
  'console',
  'list',
  'relay',
  'search',
  'kb-training',
] as const;
const quick = args.quick === true;
const only = new Set(args.only ?? PARTS);
for (const part of only) {
  if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--only takes ${PARTS.join(', ')}; got ${part}`);
}
const out = resolve(REPO_ROOT, process.env.BENCH_OUT ?? '.bench/results.json');
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const workDir = await mkdtemp(join(tmpdir(), 'kb-bench-'));
const started = performance.now();
const figures: Figure[] = [];
try {
  if (only.has('cold-start')) {
    log('cold start: bundling the functions and loading each in fresh node processes');
    figures.push(...(await benchColdStart({ workDir, processes: quick ? 20 : 30, log })));
  }
  if (only.has('create')) {
    log('create in-process: the handler called directly against raw PutItem');
    figures.push(
      ...(await benchCreateInProcess({
        workDir,
        requests: quick ? 600 : 2_000,
        warmup: quick ? 200 : 500,
        log,
      })),
    );
    log('create through the local server: against raw PutItem');
    figures.push(
      ...(await benchCreate({
        requests: quick ? { 1: 150, 16: 600 } : { 1: 400, 16: 2_000 },
        rounds: quick ? 2 : 3,
        warmup: quick ? 100 : 300,
        log,
      })),
    );
  }
  if (only.has('import')) {
    // Both sizes of the targets in a quick run too, so it writes every target's figure; one round instead of three.
    const sizes = [10_000, 50_000];
    log(`import: ${sizes.join(' and ')} rows from a throwaway MariaDB into dynalite, against a raw baseline`);
    figures.push(...(await benchImport({ workDir, sizes, rounds: quick ? 1 : 3, log })));
  }
  if (only.has('import-postgres')) {
    const sizes = [10_000, 50_000];
    log(`import: ${sizes.join(' and ')} rows from a throwaway PostgreSQL into dynalite, against a raw baseline`);
    figures.push(...(await benchImportPostgres({ workDir, sizes, rounds: quick ? 1 : 3, log })));
  }
  if (only.has('console')) {
    log('console page: size of the served document');
    figures.push(...benchConsolePage(log));
  }
  if (only.has('list')) {
    const channels = quick ? 10_000 : 50_000;
    log(`list: GET /api/channels/ over ${channels} channels through the local server, against a raw Scan`);
    figures.push(...(await benchList({ channels, rounds: quick ? 3 : 5, log })));
  }
  if (only.has('relay')) {
    log('relay: added latency in-process and through the local server, first byte, a 20 MB stream, selection');
    figures.push(...(await benchRelay({ requests: quick ? 600 : 2_000, warmup: quick ? 100 : 300, log })));
    log('relay: what quota admission and metering add in-process (in memory, then on dynalite)');
    figures.push(...(await benchRelayQuota({ requests: quick ? 600 : 2_000, warmup: quick ? 100 : 300, log })));
  }
  if (only.has('search')) {
    const sizes = [10_000, 100_000];
    log(`search: searchTest p50/p99 at ${sizes.join(' and ')} chunks per mode on dynalite (embedding call excluded)`);
    figures.push(...(await benchSearch({ sizes, searches: quick ? 50 : 200, log })));
  }
  if (only.has('kb-training')) {
    const documents = quick ? 60 : 200;
    log(
      `kb-training: ${documents} English and Chinese documents trained through the training core, against a raw baseline`,
    );
    figures.push(...(await benchKbTraining({ workDir, documents, length: 5_000, rounds: quick ? 2 : 3, log })));
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}

const seconds = (performance.now() - started) / 1000;
process.stdout.write(`\n${formatTable(figures)}\n\n`);
const targeted = figures.filter((f) => f.ok !== undefined);
const missed = targeted.filter((f) => !f.ok).map((f) => f.name);
process.stdout.write(
  `${targeted.length - missed.length} of ${targeted.length} targets met${missed.length > 0 ? `; missed: ${missed.join('; ')}` : ''}\n`,
);
await writeResults(
  out,
  {
    date: new Date().toISOString(),
    quick,
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    durationS: Math.round(seconds),
  },
  figures,
);
process.stdout.write(`wrote ${out} (${Math.round(seconds)} s)\n`);
