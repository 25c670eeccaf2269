import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsBinary } from '#infra/local/gateway';
import { useTestServer } from '#test/support/local-server';

// docs/console.md, "Import from a SQLite file": the console's SQLite assets through the local server, which applies
// API Gateway's rule for binary responses (shared/routes.ts, BINARY_MEDIA_TYPES) as the deployed API does.

const server = useTestServer();

/** The asset names the served page was built with. */
async function assetNames(): Promise<{ worker: string; wasm: string }> {
  const html = await (await fetch(`${server.url}/console`)).text();
  const worker = /sqlite-worker-[0-9a-f]{16}\.js/.exec(html)?.[0];
  const wasm = /sqlite3-[0-9a-f]{16}\.wasm/.exec(html)?.[0];
  if (worker === undefined || wasm === undefined) throw new Error('the page names no SQLite assets');
  return { worker, wasm };
}

const PACKAGE_WASM = readFileSync(createRequire(import.meta.url).resolve('@sqlite.org/sqlite-wasm/sqlite3.wasm'));

describe('GET /console/assets/{name} through the local server', () => {
  it('returns the WebAssembly build as its gzipped bytes to a request that accepts application/wasm', async () => {
    const { wasm } = await assetNames();

    const response = await fetch(`${server.url}/console/assets/${wasm}`, { headers: { Accept: 'application/wasm' } });
    const bytes = Buffer.from(await response.arrayBuffer());

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/wasm');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // fetch inflates a gzip Content-Encoding itself: the bytes are the package's wasm.
    expect(bytes.equals(PACKAGE_WASM)).toBe(true);
  });

  it('returns the base64 text, as API Gateway does, to a request whose first Accept type is not binary', async () => {
    const { wasm } = await assetNames();

    // node:http, not fetch: fetch would try to inflate the base64 text the Content-Encoding header announces.
    const text = await new Promise<string>((resolve, reject) => {
      get(`${server.url}/console/assets/${wasm}`, { headers: { Accept: '*/*' } }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });

    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(gunzipSync(Buffer.from(text, 'base64')).equals(PACKAGE_WASM)).toBe(true);
  });

  it('serves the worker as JavaScript with its own policy, and 404 in the proxy envelope for an unknown name', async () => {
    const { worker } = await assetNames();

    const script = await fetch(`${server.url}/console/assets/${worker}`);
    const missing = await fetch(`${server.url}/console/assets/sqlite-worker-0000000000000000.js`);

    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'wasm-unsafe-eval'; connect-src 'self'",
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ success: false, message: 'No such console asset' });
  });
});

describe('the rule for binary responses', () => {
  it.each([
    ['application/wasm', true],
    ['application/wasm;q=0.9, */*', true],
    ['APPLICATION/WASM', true],
    ['*/*', false],
    ['text/html, application/wasm', false],
    [undefined, false],
    ['', false],
  ])('Accept %s -> bytes: %s', (accept, binary) => {
    expect(acceptsBinary(accept, ['application/wasm'])).toBe(binary);
  });
});
