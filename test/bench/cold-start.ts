import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { writeConsolePage } from '#functions/console/build';
import { FUNCTION_ENTRIES, type FunctionName } from '#shared/routes';
import { type Bundle, bundleFunction } from './bundle.ts';
import { benchColdRequest } from './cold-request.ts';
import { type Figure, figure, median } from './figures.ts';

const run = promisify(execFile);

/** Module-load targets: overhead over an empty module, in ms. */
const LOAD_OVERHEAD_TARGET_MS: Readonly<Record<FunctionName, number>> = {
  // The source functions: the S3 client and the parsers' light parts (pdfjs and mammoth load on first use).
  'kb-create-source-collection': 40,
  'kb-read-collection': 40,
  'kb-preview-chunks': 40,
  'create-dataset': 25,
  'create-dataset-folder': 25,
  'list-datasets': 25,
  'dataset-detail': 25,
  'update-dataset': 25,
  'delete-dataset': 25,
  'dataset-paths': 25,
  // The search also loads the tokenizer's code (its ranks are built on first use) and the segmenter.
  'search-test': 40,
  authorizer: 25,
  'import-legacygw': 40,
  'list-channels': 25,
  'get-channel': 25,
  'update-channel': 25,
  'delete-channel': 25,
  'batch-delete-channels': 25,
  usage: 25,
  'list-keys': 25,
  'create-key': 25,
  'get-key': 25,
  'update-key': 25,
  'delete-key': 25,
  'test-channel': 25,
  'retest-channels': 25,
  relay: 25,
  console: 10,
  // Parses the two bundled documents (tens of KiB of JSON), nothing else.
  openapi: 10,
  'kb-collections': 25,
  'kb-data': 25,
  'kb-export-collection': 25,
  'train-collection': 25,
};

/** Module-load target against the function's own SDK floor: what its code and other dependencies may add. */
const LOAD_VS_FLOOR_TARGET = 1.1;

/**
 * What each handler reads at cold start; the values only have to pass its config schema.
 * test/unit/bench-environment.test.ts loads every bundle under it, so a variable that becomes required fails
 * `npm test`, not the next bench run.
 */
export const BENCH_FUNCTION_ENV = {
  DATASETS_TABLE: 'bench-datasets',
  CHANNELS_TABLE: 'bench-channels',
  RELAY_KEYS_TABLE: 'bench-relay-keys',
  CHANNEL_ID_KEY_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-channel-id-key',
  USAGE_TABLE: 'bench-usage',
  RELAY_STATE_TABLE: 'bench-relay-state',
  KB_CONTENT_TABLE: 'bench-kb-content',
  KB_VECTORS_TABLE: 'bench-kb-vectors',
  KB_TERMS_TABLE: 'bench-kb-terms',
  KB_SOURCE_BUCKET: 'bench-kb-sources',
  KB_TRAINING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-kb-training.fifo',
  ACCESS_TOKENS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-access-tokens',
  ADMIN_KEY_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-admin-key',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: 'INFO',
};

// Runs in a fresh `node`: times the dynamic import of one module (wall time, and the process's CPU time over it) and
// calls nothing in it.
const LOADER = `const url = process.argv[2];
const cpuBefore = process.cpuUsage();
const started = performance.now();
await import(url);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }));
process.exit(0);
`;

export interface ColdStartOptions {
  workDir: string;
  /** Fresh processes per module and variant (at least 20). */
  processes: number;
  log: (line: string) => void;
}

/**
 * Per function, a bundle of only the AWS SDK clients and commands (and, for the import, the MariaDB
 * driver) the function cannot do without, set up as the function sets them up at module load: what
 * its module load cannot go below while it bundles the SDK.
 */
const SDK_FLOOR_ENTRIES: Readonly<Record<FunctionName, string>> = {
  'kb-create-source-collection': 'test/bench/sdk-floor/kb-sources.ts',
  'kb-read-collection': 'test/bench/sdk-floor/kb-sources.ts',
  // The same S3 and DynamoDB clients (the preview reads uploads, stored files, a knowledge base and a collection).
  'kb-preview-chunks': 'test/bench/sdk-floor/kb-sources.ts',
  'create-dataset': 'test/bench/sdk-floor/create-dataset.ts',
  // The same calls as create (GetItem of the parent, a conditional PutItem).
  'create-dataset-folder': 'test/bench/sdk-floor/create-dataset.ts',
  'list-datasets': 'test/bench/sdk-floor/datasets.ts',
  'dataset-detail': 'test/bench/sdk-floor/datasets.ts',
  'update-dataset': 'test/bench/sdk-floor/datasets.ts',
  'delete-dataset': 'test/bench/sdk-floor/datasets.ts',
  'dataset-paths': 'test/bench/sdk-floor/datasets.ts',
  'search-test': 'test/bench/sdk-floor/search-test.ts',
  authorizer: 'test/bench/sdk-floor/authorizer.ts',
  'import-legacygw': 'test/bench/sdk-floor/import-legacygw.ts',
  'list-channels': 'test/bench/sdk-floor/channel-review.ts',
  'get-channel': 'test/bench/sdk-floor/channel-review.ts',
  'update-channel': 'test/bench/sdk-floor/channel-review.ts',
  'delete-channel': 'test/bench/sdk-floor/channel-review.ts',
  'batch-delete-channels': 'test/bench/sdk-floor/channel-review.ts',
  usage: 'test/bench/sdk-floor/usage.ts',
  'list-keys': 'test/bench/sdk-floor/relay-keys.ts',
  'create-key': 'test/bench/sdk-floor/relay-keys.ts',
  'get-key': 'test/bench/sdk-floor/relay-keys.ts',
  'update-key': 'test/bench/sdk-floor/relay-keys.ts',
  'delete-key': 'test/bench/sdk-floor/relay-keys.ts',
  // The channel test builds the relay's routing core, as the `/v1` function does.
  'test-channel': 'test/bench/sdk-floor/relay.ts',
  // The re-test builds the relay's routing core too (its channel test).
  'retest-channels': 'test/bench/sdk-floor/relay.ts',
  relay: 'test/bench/sdk-floor/relay.ts',
  console: 'test/bench/sdk-floor/console.ts',
  openapi: 'test/bench/sdk-floor/openapi.ts',
  'kb-collections': 'test/bench/sdk-floor/kb-content.ts',
  'kb-data': 'test/bench/sdk-floor/kb-content.ts',
  // The content repository's client alone (the export sends its Query).
  'kb-export-collection': 'test/bench/sdk-floor/kb-content.ts',
  'train-collection': 'test/bench/sdk-floor/train-collection.ts',
};

/**
 * Per function, its SDK floor plus exactly what the project's rules make every such function do at
 * module load, through the shared modules the functions use: zod/mini (shared/zod.ts) with one
 * environment schema parsed by `loadConfig` (shared/config.ts), the Powertools Logger
 * (shared/logger.ts), Powertools Metrics (shared/metrics.ts) where the function emits metrics, and the
 * authorizer's Powertools Parameters secrets getter; nothing of the function's own (test/bench/rules-floor/).
 * What the function loads over it is its own code. Console and openapi have none: they use neither the
 * SDK nor Powertools, and the console's one environment parse is most of what it loads over its floor.
 * Functions that share an entry share one bundle, loaded once per round, to keep the bench short.
 */
const RULES_FLOOR_ENTRIES: Readonly<Partial<Record<FunctionName, string>>> = {
  'create-dataset': 'test/bench/rules-floor/create-dataset.ts',
  'create-dataset-folder': 'test/bench/rules-floor/create-dataset.ts',
  'list-datasets': 'test/bench/rules-floor/datasets.ts',
  'dataset-detail': 'test/bench/rules-floor/datasets.ts',
  'update-dataset': 'test/bench/rules-floor/datasets.ts',
  'delete-dataset': 'test/bench/rules-floor/datasets-metrics.ts',
  'dataset-paths': 'test/bench/rules-floor/datasets.ts',
  authorizer: 'test/bench/rules-floor/authorizer.ts',
  'import-legacygw': 'test/bench/rules-floor/import-legacygw.ts',
  'list-channels': 'test/bench/rules-floor/channel-review.ts',
  'get-channel': 'test/bench/rules-floor/channel-review.ts',
  'update-channel': 'test/bench/rules-floor/channel-review-metrics.ts',
  'delete-channel': 'test/bench/rules-floor/channel-review.ts',
  'batch-delete-channels': 'test/bench/rules-floor/channel-review.ts',
  usage: 'test/bench/rules-floor/usage.ts',
  'list-keys': 'test/bench/rules-floor/relay-keys.ts',
  'create-key': 'test/bench/rules-floor/relay-keys.ts',
  'get-key': 'test/bench/rules-floor/relay-keys.ts',
  'update-key': 'test/bench/rules-floor/relay-keys.ts',
  'delete-key': 'test/bench/rules-floor/relay-keys.ts',
  'test-channel': 'test/bench/rules-floor/channel-test.ts',
  'retest-channels': 'test/bench/rules-floor/channel-test.ts',
  relay: 'test/bench/rules-floor/relay.ts',
};

/** Lambda runs the functions without NODE_OPTIONS (infra/constructs/function.ts); the flag is for debugging. */
const SOURCE_MAPS = '--enable-source-maps';

interface LoadedModule {
  key: string;
  file: string;
}

/**
 * Part 1: bundle size of each function and of its SDK floor, and module-load time measured inside
 * a fresh node process (performance.now() around a dynamic import of the bundle) against an empty
 * module, against the SDK floor and against the rules floor. Processes of all modules are interleaved and run one at a time,
 * so a busy machine slows every module alike. A second set loads the functions with
 * --enable-source-maps, for whoever turns it on while debugging.
 */
export async function benchColdStart(options: ColdStartOptions): Promise<Figure[]> {
  const names = Object.keys(FUNCTION_ENTRIES) as FunctionName[];
  const bundles = new Map<FunctionName, Bundle>();
  const floors = new Map<FunctionName, Bundle>();
  for (const name of names) {
    bundles.set(name, await bundleFunction(FUNCTION_ENTRIES[name], join(options.workDir, 'bundles', name)));
    floors.set(name, await bundleFunction(SDK_FLOOR_ENTRIES[name], join(options.workDir, 'sdk-floor', name)));
  }
  const rulesFloors = new Map<string, Bundle>();
  for (const entry of new Set(Object.values(RULES_FLOOR_ENTRIES))) {
    rulesFloors.set(entry, await bundleFunction(entry, join(options.workDir, 'rules-floor', basename(entry, '.ts'))));
  }
  // The console handler reads its built page beside the bundle at load, as in Lambda.
  for (const dir of ['bundles', 'sdk-floor']) writeConsolePage(join(options.workDir, dir, 'console'));
  const loader = join(options.workDir, 'load.mjs');
  const empty = join(options.workDir, 'empty.mjs');
  await writeFile(loader, LOADER);
  await writeFile(empty, '');

  const functionModules: LoadedModule[] = [
    { key: 'empty', file: empty },
    ...names.map((name) => ({ key: name, file: bundles.get(name)!.file })),
  ];
  const production = await loadTimes(
    loader,
    [
      ...functionModules,
      ...names.map((name) => ({ key: `floor:${name}`, file: floors.get(name)!.file })),
      ...[...rulesFloors].map(([entry, bundle]) => ({ key: `rules:${entry}`, file: bundle.file })),
    ],
    '',
    options.processes,
  );
  const withMaps = await loadTimes(loader, functionModules, SOURCE_MAPS, options.processes);
  const emptyMs = production.get('empty')!.ms;
  const emptyWithMaps = withMaps.get('empty')!.ms;
  options.log(`cold start: empty module ${emptyMs.toFixed(2)} ms (${emptyWithMaps.toFixed(2)} ms with ${SOURCE_MAPS})`);

  const figures: Figure[] = [figure('empty module: module load', emptyMs, 'ms')];
  for (const name of names) {
    const bundle = bundles.get(name)!;
    const { ms: load, cpuMs: loadCpu } = production.get(name)!;
    const { ms: floor, cpuMs: floorCpu } = production.get(`floor:${name}`)!;
    const loadWithMaps = withMaps.get(name)!.ms;
    options.log(
      `cold start: ${name} ${load.toFixed(2)} ms, its SDK floor ${floor.toFixed(2)} ms, ` +
        `${loadWithMaps.toFixed(2)} ms with ${SOURCE_MAPS}`,
    );
    figures.push(
      figure(`${name}: bundle size (vs SDK floor)`, bundle.bytes, 'bytes', floors.get(name)!.bytes),
      figure(`${name}: source map size`, bundle.mapBytes, 'bytes'),
      figure(`${name}: module-load overhead`, load - emptyMs, 'ms', null, {
        of: 'value',
        max: LOAD_OVERHEAD_TARGET_MS[name],
      }),
      figure(`${name}: SDK floor: module-load overhead`, floor - emptyMs, 'ms'),
      figure(`${name}: module-load overhead over SDK floor`, load - floor, 'ms'),
      figure(`${name}: module load (vs SDK floor)`, load, 'ms', floor, { of: 'ratio', max: LOAD_VS_FLOOR_TARGET }),
      // CPU time moves less than wall time when other processes share the cores: the same ratio, read on a busy machine.
      figure(`${name}: module-load CPU time (vs SDK floor)`, loadCpu, 'ms', floorCpu),
      figure(`${name}: module-load overhead, with ${SOURCE_MAPS}`, loadWithMaps - emptyWithMaps, 'ms'),
    );
    const rulesEntry = RULES_FLOOR_ENTRIES[name];
    if (rulesEntry !== undefined) {
      const rules = production.get(`rules:${rulesEntry}`)!.ms;
      options.log(`cold start: ${name} rules floor ${rules.toFixed(2)} ms (${basename(rulesEntry)})`);
      // No targets: they say how much of the time over the SDK floor the rules take, and what is the function's own.
      figures.push(
        figure(`${name}: rules floor (vs SDK floor)`, rules, 'ms', floor),
        figure(`${name}: module load (vs rules floor)`, load, 'ms', rules),
      );
    }
  }
  // What the relay leaves out of its module load must not land before its first request's first byte.
  figures.push(
    ...(await benchColdRequest({
      workDir: options.workDir,
      processes: options.processes,
      functionEnv: BENCH_FUNCTION_ENV,
      relay: bundles.get('relay')!.file,
      floor: floors.get('relay')!.file,
      log: options.log,
    })),
  );
  return figures;
}

/** One module's load: wall time and the loading process's CPU time, in ms. */
interface LoadTime {
  ms: number;
  cpuMs: number;
}

/** The median module-load times of each module, over `processes` fresh node processes per module. */
async function loadTimes(
  loader: string,
  modules: readonly LoadedModule[],
  nodeOptions: string,
  processes: number,
): Promise<Map<string, LoadTime>> {
  const samples = new Map<string, LoadTime[]>(modules.map((m) => [m.key, []]));
  // One discarded round warms the file cache and node's own startup paths.
  for (let round = -1; round < processes; round++) {
    for (const module of modules) {
      const time = await loadOnce(loader, module.file, nodeOptions);
      if (round >= 0) samples.get(module.key)!.push(time);
    }
  }
  return new Map(
    [...samples].map(([key, values]) => [
      key,
      { ms: median(values.map((v) => v.ms)), cpuMs: median(values.map((v) => v.cpuMs)) },
    ]),
  );
}

async function loadOnce(loader: string, file: string, nodeOptions: string): Promise<LoadTime> {
  const { stdout } = await run(process.execPath, [loader, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', ...BENCH_FUNCTION_ENV, NODE_OPTIONS: nodeOptions },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as LoadTime;
}
