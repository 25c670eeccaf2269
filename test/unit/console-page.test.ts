import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole, buildConsolePage, cspHash, writeConsolePage } from '#functions/console/build';
import {
  CONSOLE_ASSETS_FILE,
  CONSOLE_PAGE_FILE,
  consoleAssets,
  consoleResponse,
  contentSecurityPolicy,
  readConsolePage,
  WORKER_CONTENT_SECURITY_POLICY,
} from '#functions/console/console';

const page = buildConsolePage();
const dir = mkdtempSync(join(tmpdir(), 'console-page-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every inline element of one tag: its exact text. */
const inlineTexts = (html: string, tag: 'script' | 'style') =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1] ?? '');

describe('the console page build', () => {
  it('inlines exactly one script and one style and names both by their SHA-256 in the policy', () => {
    const scripts = inlineTexts(page.html, 'script');
    const styles = inlineTexts(page.html, 'style');

    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(page.contentSecurityPolicy).toBe(
      contentSecurityPolicy({ script: cspHash(scripts[0] ?? ''), style: cspHash(styles[0] ?? '') }),
    );
  });

  it('makes a policy that allows nothing but those hashes, WebAssembly, calls and a worker of its own origin', () => {
    expect(contentSecurityPolicy({ script: 'c2NyaXB0', style: 'c3R5bGU=' })).toBe(
      "default-src 'none'; script-src 'sha256-c2NyaXB0' 'wasm-unsafe-eval'; style-src 'sha256-c3R5bGU='; " +
        "connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it("never allows JavaScript's eval, inline code without its hash, or another origin", () => {
    const policy = page.contentSecurityPolicy;

    expect(policy).not.toMatch(/'unsafe-eval'|'unsafe-inline'|\*|https?:|data:|blob:/);
  });

  it('keeps SQLite out of the first load: the page neither holds nor fetches it until a file is picked', () => {
    const script = inlineTexts(page.html, 'script')[0] ?? '';
    const { assets } = buildConsole();
    const names = [...assets.keys()];

    expect(names).toEqual([
      expect.stringMatching(/^sqlite-worker-[0-9a-f]{16}\.js$/),
      expect.stringMatching(/^sqlite3-[0-9a-f]{16}\.wasm$/),
    ]);
    // The page names its assets once each (to fetch them later) and holds none of SQLite's code.
    for (const name of names) expect(script.split(name)).toHaveLength(2);
    expect(script).not.toMatch(/sqlite3_open|SQLITE_|sqlite3ApiBootstrap/);
    // SQLite's worker and WebAssembly build weigh hundreds of KiB: a page under 20 KiB gzipped holds neither. (16 KiB
    // until the Relay keys section and the tokens checkbox joined the page.)
    expect(gzipSync(page.html).length).toBeLessThan(20 * 1024);
  });

  it('refers to nothing outside the document: no external script, stylesheet, image, font or frame', () => {
    expect(page.html).not.toMatch(/<(script|img|iframe|link|object|embed)\b[^>]*\b(src|href)=/i);
    expect(inlineTexts(page.html, 'style').join('')).not.toMatch(/@import|url\(/i);
    expect(page.html).not.toMatch(/\sstyle=/i);
    expect(page.html).not.toMatch(/\son[a-z]+=/i);
    expect([...page.html.matchAll(/\shref="([^"]*)"/g)].map((m) => m[1])).toEqual(['#main']);
  });

  it('stays under 60 KB gzipped', () => {
    expect(gzipSync(page.html).length).toBeLessThan(60 * 1024);
  });

  it('writes the page file the handler reads back unchanged', () => {
    const file = writeConsolePage(join(dir, 'out'));

    expect(file).toBe(join(dir, 'out', CONSOLE_PAGE_FILE));
    expect(readConsolePage(file)).toEqual(page);
  });
});

describe('the console response', () => {
  it('serves the document as HTML with the policy, nosniff and no referrer', () => {
    const response = consoleResponse(page);

    expect(response).toEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': page.contentSecurityPolicy,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-cache',
      },
      body: page.html,
    });
  });
});

describe('the console assets', () => {
  const out = () => join(dir, 'assets-out');
  const built = (() => {
    let manifest: Record<string, { type: string }> | undefined;
    return () => {
      if (manifest === undefined) {
        writeConsolePage(out());
        manifest = JSON.parse(readFileSync(join(out(), CONSOLE_ASSETS_FILE), 'utf8'));
      }
      return manifest as Record<string, { type: string }>;
    };
  })();
  const nameOf = (ext: string) => Object.keys(built()).find((n) => n.endsWith(ext)) ?? '';

  it('serves the worker as JavaScript under its own policy, cached for a year', () => {
    const response = consoleAssets(out())(nameOf('.js'));

    expect(response?.headers).toEqual({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Content-Security-Policy': WORKER_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    expect(response?.isBase64Encoded).toBe(false);
    expect(WORKER_CONTENT_SECURITY_POLICY).toBe(
      "default-src 'none'; script-src 'wasm-unsafe-eval'; connect-src 'self'",
    );
  });

  it("serves SQLite's WebAssembly build gzipped and base64-encoded, which inflates to the package's file", () => {
    const response = consoleAssets(out())(nameOf('.wasm'));
    const wasm = readFileSync(createRequire(import.meta.url).resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm'));

    expect(response).toMatchObject({
      statusCode: 200,
      isBase64Encoded: true,
      headers: { 'Content-Type': 'application/wasm', 'Content-Encoding': 'gzip' },
    });
    expect(gunzipSync(Buffer.from(response?.body ?? '', 'base64')).equals(wasm)).toBe(true);
  });

  it('knows no other name, not even a file beside the assets', () => {
    built();
    const asset = consoleAssets(out());

    expect(asset(CONSOLE_PAGE_FILE)).toBeUndefined();
    expect(asset(CONSOLE_ASSETS_FILE)).toBeUndefined();
    expect(asset('../package.json')).toBeUndefined();
    expect(asset('constructor')).toBeUndefined();
  });

  it('fails naming the manifest when it is missing', () => {
    expect(() => consoleAssets(join(dir, 'nowhere'))('x.js')).toThrow(/The console assets .*cannot be read/);
  });
});

describe('readConsolePage', () => {
  it('fails naming the file when the built page is missing', () => {
    const file = join(dir, 'missing.json');

    expect(() => readConsolePage(file)).toThrow(`The console page ${file} cannot be read`);
  });

  it.each([
    ['not JSON', '<html>'],
    ['no policy', JSON.stringify({ html: '<html>' })],
    ['a policy that does not start closed', JSON.stringify({ html: '<html>', contentSecurityPolicy: 'script-src *' })],
    ['an empty document', JSON.stringify({ html: '', contentSecurityPolicy: "default-src 'none'" })],
  ])('refuses a page file with %s', (_, content) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, content);

    expect(() => readConsolePage(file)).toThrow(/The console page .*bad\.json/);
  });
});
