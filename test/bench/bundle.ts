import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/** Repository root (entries in FUNCTION_ENTRIES are relative to it). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** A bundle written by `bundleFunction` (a function's, an SDK floor's or the import bench's child). */
export interface Bundle {
  /** Absolute path of `index.mjs`. */
  readonly file: string;
  /** Size of `index.mjs` in bytes (the source map beside it is not loaded unless --enable-source-maps). */
  readonly bytes: number;
  /** Size of `index.mjs.map` in bytes. */
  readonly mapBytes: number;
}

/**
 * Bundles `entry` the way the CDK stack's NodejsFunction does (infra/constructs/function.ts and
 * aws-cdk-lib's esbuild arguments for it): ESM `index.mjs`, platform node, target of the Lambda
 * runtime, minified, linked source map without sources content, nothing external (the AWS SDK is
 * bundled), and the createRequire banner. Keep the two in step when the construct changes.
 */
export async function bundleFunction(entry: string, outDir: string): Promise<Bundle> {
  const file = join(outDir, 'index.mjs');
  await build({
    entryPoints: [join(REPO_ROOT, entry)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    outfile: file,
    // BENCH_CPU_PROF (docs/performance.md): readable function names in the profiles, at the cost of the figures.
    minify: !process.env.BENCH_CPU_PROF,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    external: [],
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return { file, bytes: (await stat(file)).size, mapBytes: (await stat(`${file}.map`)).size };
}
