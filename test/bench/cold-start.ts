import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { FUNCTION_ENTRIES, type FunctionName } from '#shared/routes';
import { type Bundle, bundleFunction } from './bundle.ts';
import { type Figure, figure, median } from './figures.ts';

const run = promisify(execFile);

/** Module-load targets: overhead over an empty module, in ms. */
const LOAD_OVERHEAD_TARGET_MS: Readonly<Record<FunctionName, number>> = {
  'create-dataset': 25,
  authorizer: 25,
  'import-legacygw': 40,
};

// What each handler reads at cold start; the values only have to pass its config schema.
const FUNCTION_ENV = {
  DATASETS_TABLE: 'bench-datasets',
  CHANNELS_TABLE: 'bench-channels',
  ACCESS_TOKENS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-access-tokens',
  ADMIN_KEY_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-admin-key',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: 'INFO',
};

// Runs in a fresh `node`: times the dynamic import of one module and calls nothing in it.
const LOADER = `const url = process.argv[2];
const started = performance.now();
await import(url);
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms }));
process.exit(0);
`;

export interface ColdStartOptions {
  workDir: string;
  /** Fresh processes per module and variant (at least 20). */
  processes: number;
  log: (line: string) => void;
}

interface Variant {
  label: string;
  /** Lambda runs the functions with NODE_OPTIONS=--enable-source-maps (infra/constructs/function.ts). */
  nodeOptions: string;
}

const VARIANTS: readonly Variant[] = [
  { label: 'production (--enable-source-maps)', nodeOptions: '--enable-source-maps' },
  { label: 'without source maps', nodeOptions: '' },
];

/**
 * Part 1: bundle size of each function, and module-load time measured inside a fresh node process
 * (performance.now() around a dynamic import of the bundle) against an empty module. Processes of
 * all modules are interleaved and run one at a time, so a busy machine slows every module alike.
 */
export async function benchColdStart(options: ColdStartOptions): Promise<Figure[]> {
  const names = Object.keys(FUNCTION_ENTRIES) as FunctionName[];
  const bundles = new Map<FunctionName, Bundle>();
  for (const name of names) {
    bundles.set(name, await bundleFunction(FUNCTION_ENTRIES[name], join(options.workDir, 'bundles', name)));
  }
  const loader = join(options.workDir, 'load.mjs');
  const empty = join(options.workDir, 'empty.mjs');
  await writeFile(loader, LOADER);
  await writeFile(empty, '');

  const modules = [
    { name: 'empty' as const, file: empty },
    ...names.map((name) => ({ name, file: bundles.get(name)!.file })),
  ];
  const figures: Figure[] = [];
  for (const name of names) {
    const bundle = bundles.get(name)!;
    figures.push(figure(`${name}: bundle size`, bundle.bytes, 'bytes'));
    figures.push(figure(`${name}: source map size`, bundle.mapBytes, 'bytes'));
  }

  for (const variant of VARIANTS) {
    const samples = new Map<string, number[]>(modules.map((m) => [m.name, []]));
    // One discarded round warms the file cache and node's own startup paths.
    for (let round = -1; round < options.processes; round++) {
      for (const module of modules) {
        const ms = await loadOnce(loader, module.file, variant.nodeOptions);
        if (round >= 0) samples.get(module.name)!.push(ms);
      }
    }
    const baseline = median(samples.get('empty')!);
    options.log(`cold start, ${variant.label}: empty module ${baseline.toFixed(2)} ms`);
    const production = variant === VARIANTS[0];
    for (const name of names) {
      const load = median(samples.get(name)!);
      const suffix = production ? '' : ` (${variant.label})`;
      options.log(`cold start, ${variant.label}: ${name} ${load.toFixed(2)} ms`);
      figures.push(figure(`${name}: module load${suffix}`, load, 'ms', baseline));
      figures.push(
        figure(
          `${name}: module-load overhead${suffix}`,
          load - baseline,
          'ms',
          null,
          production ? { of: 'value', max: LOAD_OVERHEAD_TARGET_MS[name] } : undefined,
        ),
      );
    }
  }
  return figures;
}

async function loadOnce(loader: string, file: string, nodeOptions: string): Promise<number> {
  const { stdout } = await run(process.execPath, [loader, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', ...FUNCTION_ENV, NODE_OPTIONS: nodeOptions },
    timeout: 30_000,
  });
  const { ms } = JSON.parse(stdout) as { ms: number };
  return ms;
}
