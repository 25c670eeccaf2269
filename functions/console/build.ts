/**
 * Build time only (esbuild is a dev dependency): turns page/ into one self-contained HTML document
 * with its script and styles inline, and the Content-Security-Policy naming their SHA-256 hashes.
 * Run by the console function's bundling (scripts/build-console.ts) and by the local server.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, buildSync, transformSync } from 'esbuild';
import {
  type AssetManifest,
  CONSOLE_ASSETS_FILE,
  CONSOLE_PAGE_FILE,
  type ConsolePage,
  contentSecurityPolicy,
} from './console.ts';

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
const TARGET = ['chrome110', 'firefox110', 'safari16'];

/** The console's page and the assets it fetches only when a SQLite file is picked. */
export interface ConsoleBuild {
  readonly page: ConsolePage;
  /** Name → content; names carry a hash of the content, so a name is served with a year of caching. */
  readonly assets: ReadonlyMap<string, { readonly type: string; readonly bytes: Buffer; readonly gzip?: boolean }>;
}

const shortHash = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/**
 * The SQLite worker (page/sqlite-worker.ts with SQLite's JS glue, one classic-worker script) and SQLite's
 * WebAssembly binary, under content-hashed names.
 */
function buildSqliteAssets(): ConsoleBuild['assets'] {
  // SQLite's glue reads import.meta.url to find its files; the worker hands it the wasm's URL instead.
  const worker = browserScript('sqlite-worker.ts', { logOverride: { 'empty-import-meta': 'silent' } });
  const script = Buffer.from(worker, 'utf8');
  const wasm = readFileSync(createRequire(import.meta.url).resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm'));
  return new Map([
    [`sqlite-worker-${shortHash(script)}.js`, { type: 'text/javascript; charset=utf-8', bytes: script }],
    // Gzipped once here (879 KB → about 400 KB): the browser inflates it, the function and API Gateway carry less.
    [`sqlite3-${shortHash(wasm)}.wasm`, { type: 'application/wasm', bytes: gzipSync(wasm, { level: 9 }), gzip: true }],
  ]);
}

/** One page script bundled for browsers: a minified IIFE of `entry` (under page/) and what it imports. */
function browserScript(entry: string, options: Pick<BuildOptions, 'define' | 'logOverride'>): string {
  const result = buildSync({
    entryPoints: [join(PAGE_DIR, entry)],
    tsconfig: join(PAGE_DIR, 'tsconfig.json'),
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    charset: 'utf8',
    legalComments: 'none',
    ...options,
    write: false,
  });
  return result.outputFiles[0]?.text ?? '';
}

/** Base64 SHA-256 of a text as UTF-8: the form a CSP hash source takes. */
export const cspHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

function inline(template: string, marker: string, element: string): string {
  const parts = template.split(marker);
  if (parts.length !== 2) throw new Error(`page/index.html must hold ${marker} exactly once`);
  return parts.join(element);
}

/** Builds the page in memory: minified script (an IIFE for browsers) and styles, inlined into index.html. */
export function buildConsolePage(): ConsolePage {
  return buildConsole().page;
}

/** Builds the page and its SQLite assets; the page names the assets it may load. */
export function buildConsole(): ConsoleBuild {
  const assets = buildSqliteAssets();
  const names = [...assets.keys()];
  const sqliteAssets = {
    worker: names.find((n) => n.endsWith('.js')),
    wasm: names.find((n) => n.endsWith('.wasm')),
  };
  const script = browserScript('main.ts', { define: { SQLITE_ASSETS: JSON.stringify(sqliteAssets) } }).trim();
  const style = transformSync(readFileSync(join(PAGE_DIR, 'styles.css'), 'utf8'), {
    loader: 'css',
    minify: true,
    charset: 'utf8',
  }).code.trim();
  // The element's text must end exactly where the hash says; a closing tag inside would cut it short.
  if (/<\/script/i.test(script)) throw new Error('The console script contains "</script"');
  if (/<\/style/i.test(style)) throw new Error('The console styles contain "</style"');

  const template = readFileSync(join(PAGE_DIR, 'index.html'), 'utf8');
  const html = inline(
    inline(template, '<!--STYLE-->', `<style>${style}</style>`),
    '<!--SCRIPT-->',
    `<script>${script}</script>`,
  );
  const page = {
    html,
    contentSecurityPolicy: contentSecurityPolicy({ script: cspHash(script), style: cspHash(style) }),
  };
  return { page, assets };
}

/**
 * Builds the console and writes it beside the function: `dir/console-page.json`, each asset under its name, and
 * `dir/console-assets.json` (the manifest the handler serves them by). Returns the page file's path.
 */
export function writeConsolePage(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const { page, assets } = buildConsole();
  const manifest: AssetManifest = {};
  for (const [name, asset] of assets) {
    writeShipped(join(dir, name), asset.bytes);
    manifest[name] = { type: asset.type, bytes: asset.bytes.length, ...(asset.gzip ? { encoding: 'gzip' } : {}) };
  }
  writeShipped(join(dir, CONSOLE_ASSETS_FILE), JSON.stringify(manifest));
  const file = join(dir, CONSOLE_PAGE_FILE);
  writeShipped(file, JSON.stringify(page));
  return file;
}

// Shipped in the function's code, which Lambda reads as another user: never left to the shell's umask.
function writeShipped(file: string, content: string | Buffer): void {
  writeFileSync(file, content);
  chmodSync(file, 0o644);
}
