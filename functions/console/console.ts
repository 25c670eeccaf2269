import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as z from '#shared/zod';

/** The built console: one HTML document and the Content-Security-Policy that lets exactly it run. */
export interface ConsolePage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/** Name of the built page beside the function's bundle (written by scripts/build-console.ts). */
export const CONSOLE_PAGE_FILE = 'console-page.json';
/** Name of the manifest of the page's assets beside the function's bundle (each asset is a file of its name). */
export const CONSOLE_ASSETS_FILE = 'console-assets.json';
/** The resource of the page's assets: the SQLite worker and SQLite's WebAssembly build. */
export const CONSOLE_ASSET_RESOURCE = '/console/assets/{name}';

/** Each asset's media type and size, by its content-hashed name. */
export type AssetManifest = Record<string, { type: string; bytes: number; encoding?: 'gzip' }>;

/**
 * The policy of the page: nothing is allowed (`default-src 'none'`) but its own inline script and
 * style, named by their SHA-256 hashes, and calls to its own origin. `base-uri` and `form-action`
 * do not fall back to `default-src`, so they are closed explicitly; `frame-ancestors 'none'` keeps
 * the page out of any frame (no clickjacking of the delete buttons). For the import from a SQLite file
 * (docs/console.md): `worker-src 'self'` lets the page start its SQLite worker from its own origin, and
 * `'wasm-unsafe-eval'` lets SQLite's WebAssembly build compile (never JavaScript's eval).
 */
export function contentSecurityPolicy(hashes: { readonly script: string; readonly style: string }): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${hashes.script}' 'wasm-unsafe-eval'`,
    `style-src 'sha256-${hashes.style}'`,
    "connect-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The policy of the SQLite worker's script (a worker runs under its own response's policy): it may compile
 * WebAssembly and fetch SQLite's binary from its own origin; nothing else.
 */
export const WORKER_CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'wasm-unsafe-eval'; connect-src 'self'";

/** The response headers of GET /console. */
export function consoleHeaders(page: ConsolePage): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': page.contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Revalidate on each visit, so a deploy's new page and its new hashes arrive together.
    'Cache-Control': 'no-cache',
  };
}

/** GET /console: the page, whatever the request (it carries no data and needs no token). */
export function consoleResponse(page: ConsolePage): APIGatewayProxyResult {
  return { statusCode: 200, headers: consoleHeaders(page), body: page.html };
}

/**
 * The page's assets read from `dir` on first request (most page loads never pick a file). A name not in the
 * manifest is undefined: the handler answers 404.
 */
export function consoleAssets(dir: string): (name: string) => APIGatewayProxyResult | undefined {
  let manifest: AssetManifest | undefined;
  const read = new Map<string, APIGatewayProxyResult>();
  return (name) => {
    manifest ??= readManifest(join(dir, CONSOLE_ASSETS_FILE));
    const entry = Object.hasOwn(manifest, name) ? manifest[name] : undefined;
    if (entry === undefined) return undefined;
    let response = read.get(name);
    if (response === undefined) {
      response = assetResponse(entry.type, readFileSync(join(dir, name)), entry.encoding);
      read.set(name, response);
    }
    return response;
  };
}

/**
 * One asset: a content-hashed name never changes content, so it is cached for a year. A binary asset travels
 * base64-encoded: API Gateway turns it back into bytes for a request whose Accept names a binary media type of the
 * API (shared/routes.ts, BINARY_MEDIA_TYPES); the worker asks for the wasm so.
 */
export function assetResponse(type: string, bytes: Buffer, encoding?: 'gzip'): APIGatewayProxyResult {
  const binary = encoding !== undefined || !type.startsWith('text/');
  return {
    statusCode: 200,
    headers: {
      'Content-Type': type,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'public, max-age=31536000, immutable',
      ...(encoding ? { 'Content-Encoding': encoding } : {}),
      ...(type.startsWith('text/javascript') ? { 'Content-Security-Policy': WORKER_CONTENT_SECURITY_POLICY } : {}),
    },
    body: binary ? bytes.toString('base64') : bytes.toString('utf8'),
    isBase64Encoded: binary,
  };
}

const manifestSchema = z.record(
  z.string().check(z.regex(/^[a-z0-9-]+\.(js|wasm)$/)),
  z.object({ type: z.string(), bytes: z.int(), encoding: z.optional(z.literal('gzip')) }),
);

function readManifest(file: string): AssetManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`The console assets ${file} cannot be read`, { cause: error });
  }
  const result = z.safeParse(manifestSchema, parsed);
  if (!result.success) throw new Error(`The console assets ${file} are not a built manifest`);
  return result.data;
}

const pageFileSchema = z.object({
  html: z.string().check(z.minLength(1)),
  contentSecurityPolicy: z.string().check(z.startsWith("default-src 'none'")),
});

/** Reads a built page file; a missing or malformed file fails the cold start, naming the file. */
export function readConsolePage(file: string): ConsolePage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`The console page ${file} cannot be read`, { cause: error });
  }
  const result = z.safeParse(pageFileSchema, parsed);
  if (!result.success) throw new Error(`The console page ${file} is not a built page`);
  return Object.freeze(result.data);
}
