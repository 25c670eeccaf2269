import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsolePage, cspHash, writeConsolePage } from '#functions/console/build';
import { CONSOLE_PAGE_FILE, consoleResponse, contentSecurityPolicy, readConsolePage } from '#functions/console/console';

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

  it('makes a policy that allows nothing but those hashes and calls to its own origin', () => {
    expect(contentSecurityPolicy({ script: 'c2NyaXB0', style: 'c3R5bGU=' })).toBe(
      "default-src 'none'; script-src 'sha256-c2NyaXB0'; style-src 'sha256-c3R5bGU='; connect-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
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
