/**
 * Build time only (esbuild is a dev dependency): turns page/ into one self-contained HTML document
 * with its script and styles inline, and the Content-Security-Policy naming their SHA-256 hashes.
 * Run by the console function's bundling (scripts/build-console.ts) and by the local server.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, transformSync } from 'esbuild';
import { CONSOLE_PAGE_FILE, type ConsolePage, contentSecurityPolicy } from './console.ts';

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

/** Base64 SHA-256 of a text as UTF-8: the form a CSP hash source takes. */
export const cspHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');

function inline(template: string, marker: string, element: string): string {
  const parts = template.split(marker);
  if (parts.length !== 2) throw new Error(`page/index.html must hold ${marker} exactly once`);
  return parts.join(element);
}

/** Builds the page in memory: minified script (an IIFE for browsers) and styles, inlined into index.html. */
export function buildConsolePage(): ConsolePage {
  const bundle = buildSync({
    entryPoints: [join(PAGE_DIR, 'main.ts')],
    tsconfig: join(PAGE_DIR, 'tsconfig.json'),
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    charset: 'utf8',
    legalComments: 'none',
    write: false,
  });
  const script = (bundle.outputFiles[0]?.text ?? '').trim();
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
  return { html, contentSecurityPolicy: contentSecurityPolicy({ script: cspHash(script), style: cspHash(style) }) };
}

/** Builds the page and writes it as `dir/console-page.json`; returns the file's path. */
export function writeConsolePage(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CONSOLE_PAGE_FILE);
  writeFileSync(file, JSON.stringify(buildConsolePage()));
  // Shipped in the function's code, which Lambda reads as another user: never left to the shell's umask.
  chmodSync(file, 0o644);
  return file;
}
