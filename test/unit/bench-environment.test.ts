import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConsolePage } from '#functions/console/build';
import { FUNCTION_ENTRIES, type FunctionName } from '#shared/routes';
import { type Bundle, bundleFunction } from '../bench/bundle.ts';
import { BENCH_FUNCTION_ENV } from '../bench/cold-start.ts';

// `npm run bench`'s cold start loads every function's bundle under BENCH_FUNCTION_ENV: when a variable became
// required and the bench was not told, the bench failed at its first part. Each bundle is loaded here the same
// way (a fresh node, nothing else in the environment), so that can only happen in `npm test`.

const run = promisify(execFile);
const NAMES = Object.keys(FUNCTION_ENTRIES) as FunctionName[];
const LOADER = 'await import(process.argv[2]); process.stdout.write("loaded"); process.exit(0);\n';

let dir: string;
const bundles = new Map<FunctionName, Bundle>();
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bench-env-'));
  writeFileSync(join(dir, 'loader.mjs'), LOADER);
  await Promise.all(
    NAMES.map(async (name) => bundles.set(name, await bundleFunction(FUNCTION_ENTRIES[name], join(dir, name)))),
  );
  // As the bench: the console handler reads its built page beside the bundle at load, as in Lambda.
  writeConsolePage(join(dir, 'console'));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the bench's function environment", () => {
  it.each(NAMES)('loads the %s bundle as the cold-start bench does, its configuration accepted', async (name) => {
    const bundle = bundles.get(name);

    const { stdout, stderr } = await run(
      process.execPath,
      [join(dir, 'loader.mjs'), pathToFileURL(bundle?.file ?? '').href],
      { env: { PATH: process.env.PATH ?? '', ...BENCH_FUNCTION_ENV, LOG_LEVEL: 'SILENT' }, timeout: 30_000 },
    ).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));

    expect({ name, stdout, stderr: stderr.split('\n')[0] }).toEqual({ name, stdout: 'loaded', stderr: '' });
  });
});
