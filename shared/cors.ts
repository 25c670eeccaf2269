import type { ApiName } from './routes.ts';

/*
 * Cross-origin answers of the knowledge-base API, as FastGPT gives them (docs/knowledge-base-api.md, "Cross-origin
 * requests"): every FastGPT API handler runs `withNextCors` first (packages/service/common/middle/cors.ts and
 * middle/entry.ts, labring/FastGPT at 85dcae8cf33827be8f6f0cae2629d8c44817ffce and e46fb23ae31652c6917b8413a1f702bd1b7c5cca):
 * the `cors` package with the request's own Origin as the allowed origin, no credentials, methods GET, HEAD, PUT,
 * PATCH, POST, DELETE, and a preflight answered 200. The channel proxy API answers no cross-origin request: its
 * admin key must never be usable from another site's page.
 */

/** Which API answers cross-origin requests (one definition for the stack and the local server). */
// The relay answers none either for now: a relay key in a web page is readable by anyone who opens it (docs/relay.md,
// "Browsers").
export const CORS_APIS: Readonly<Record<ApiName, boolean>> = { dataset: true, proxy: false, relay: false };

/** The methods a preflight allows (FastGPT's list; its source spells HEAD `eHEAD`, a typo no browser reads). */
export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'] as const;

/**
 * The request headers a preflight allows. FastGPT echoes whatever the browser asks for; API Gateway's preflight is a
 * mock integration that can only answer fixed values, so these are the headers FastGPT's clients send.
 */
export const CORS_ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Requested-With',
  'Accept',
  'Accept-Language',
] as const;

/**
 * The CORS headers of an answer to a request of the knowledge-base API: the caller's Origin reflected (FastGPT's
 * `origin: req.headers.origin`) with `Vary: Origin`, or `*` without one. No `Allow-Credentials`: a cookie is never
 * what authenticates a call here, so a page of another site can send its bearer token and nothing else.
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  return origin ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } : { 'Access-Control-Allow-Origin': '*' };
}

/** The headers of the 200 answer to a preflight (OPTIONS): the same fixed values API Gateway's mock answers. */
export function preflightHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': CORS_ALLOW_METHODS.join(','),
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(','),
  };
}
