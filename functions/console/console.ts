import { readFileSync } from 'node:fs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as z from '#shared/zod';

/** The built console: one HTML document and the Content-Security-Policy that lets exactly it run. */
export interface ConsolePage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/** Name of the built page beside the function's bundle (written by scripts/build-console.ts). */
export const CONSOLE_PAGE_FILE = 'console-page.json';

/**
 * The policy of the page: nothing is allowed (`default-src 'none'`) but its own inline script and
 * style, named by their SHA-256 hashes, and calls to its own origin. `base-uri` and `form-action`
 * do not fall back to `default-src`, so they are closed explicitly; `frame-ancestors 'none'` keeps
 * the page out of any frame (no clickjacking of the delete buttons).
 */
export function contentSecurityPolicy(hashes: { readonly script: string; readonly style: string }): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${hashes.script}'`,
    `style-src 'sha256-${hashes.style}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

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
