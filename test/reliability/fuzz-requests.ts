import fc from 'fast-check';
import { GATEWAY_RESPONSES } from '#shared/gateway-responses';
import type { RawRequest, RawResponse } from './harness.ts';

/** Keys a prototype-pollution attempt or a sloppy `in` check would trip over. */
export const TRICKY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'teamId',
  'tmbId',
  'id',
  '',
] as const;

/** Any JSON text; objects are written by hand so `__proto__` arrives as a literal key, as it does on the wire. */
export function jsonText(fieldNames: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...TRICKY_KEYS, ...fieldNames), fc.string({ maxLength: 12 }));
  return fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('null', 'true', 'false', '0', '-0', '1e400', '-1e-400', '123456789012345678901234567890'),
      fc.double().map((n) => JSON.stringify(n)),
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => JSON.stringify(s)),
      fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
      // Lone surrogates, control characters, bidi overrides and a BOM, as JSON escapes.
      fc.constantFrom(
        '"\\ud800"',
        '"a\\udfffb"',
        '"\\u0000"',
        '"\\u001b[31m"',
        '"\\u2028\\u2029"',
        '"\\ufeff"',
        '"\\u202e"',
      ),
      fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
      fc
        .array(fc.tuple(key, tie('value')), { maxLength: 6 })
        .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
    ),
  })).value;
}

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` deep. */
export function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/**
 * Bodies that are broken in the ways clients and attackers break them: invalid or truncated JSON, wrong
 * types (from `objects`), huge strings, deep nesting, control characters, bad encodings.
 */
export function malformedBody(objects: fc.Arbitrary<Record<string, unknown>>, fieldNames: readonly string[]) {
  const text = jsonText(fieldNames);
  const field = fc.constantFrom(...fieldNames, 'unknown');
  return fc.oneof(
    { weight: 4, arbitrary: objects.map((o) => JSON.stringify(o)) },
    { weight: 3, arbitrary: text },
    // Truncated or damaged JSON.
    text.chain((t) => fc.nat({ max: Math.max(0, t.length - 1) }).map((n) => t.slice(0, n))),
    objects.map((o) => `${JSON.stringify(o)}garbage`),
    objects.map((o) => JSON.stringify(o).replace(/"/g, "'")),
    fc.constantFrom('', ' ', '{', '}', '{"name":"x",}', '{"name":NaN}', '{"name":"x"/*c*/}', '\ufeff{"name":"x"}'),
    fc.string({ unit: 'binary', maxLength: 200 }),
    // Raw (unescaped) control characters inside a string: invalid JSON.
    fc.constantFrom('\u0000', '\u0007', '\n', '\u001b', '\u007f').map((c) => `{"name":"a${c}b"}`),
    // Huge strings: just over the 64 KiB body limit, or a field far over its own limit.
    fc.tuple(field, fc.integer({ min: 66_000, max: 200_000 })).map(([f, n]) => `{"${f}":"${'x'.repeat(n)}"}`),
    fc
      .tuple(field, fc.integer({ min: 101, max: 60_000 }))
      .map(([f, n]) => `{"name":"n","${f}":"${'é'.repeat(n / 2)}"}`),
    // Deep nesting at the top or inside a field, within and beyond the body limit.
    fc
      .tuple(
        fc.integer({ min: 1_000, max: 30_000 }),
        fc.constantFrom('array', 'object') as fc.Arbitrary<'array' | 'object'>,
      )
      .chain(([depth, kind]) =>
        fc.constantFrom(
          nested(depth, kind),
          `{"name":"deep","${fieldNames[0]}":${nested(depth, kind)}}`,
          `{"name":"deep","junk":${nested(depth, kind)}}`,
        ),
      ),
    fc.integer({ min: 40_000, max: 400_000 }).map((depth) => nested(depth, 'array')),
    // Duplicate keys: the last one wins in JSON.parse.
    fc.tuple(field, text).map(([f, v]) => `{"name":"dup","${f}":${v},"${f}":null}`),
  );
}

/** How the body's bytes are encoded on the wire. */
export function encodedBody(body: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 8, arbitrary: body.map((b) => Buffer.from(b, 'utf8')) },
    body.map((b) => Buffer.from(b, 'utf16le')),
    body.map((b) => Buffer.from(b, 'latin1')),
    // Invalid UTF-8: lone continuation bytes, overlong encodings, a truncated sequence.
    fc
      .tuple(body, fc.constantFrom([0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xff, 0xfe], [0xed, 0xa0, 0x80]))
      .map(([b, bytes]) =>
        Buffer.concat([Buffer.from(b.slice(0, 8), 'utf8'), Buffer.from(bytes), Buffer.from(b.slice(8))]),
      ),
  );
}

/** Authorization headers: the valid one most of the time (so bodies reach the function), broken otherwise. */
export function authorizationHeaders(valid: string, wrongKind: string): fc.Arbitrary<Array<[string, string]>> {
  const visible = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 80,
  });
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant([['Authorization', `Bearer ${valid}`]] as Array<[string, string]>) },
    fc.constant<Array<[string, string]>>([]),
    fc.constantFrom<Array<[string, string]>>(
      [['authorization', `bearer ${valid}`]],
      [['AUTHORIZATION', `BEARER   ${valid}`]],
      [['Authorization', `Bearer\t${valid}`]],
      [['Authorization', `Bearer ${wrongKind}`]],
      [['Authorization', '']],
      [['Authorization', 'Bearer']],
      [['Authorization', `Basic ${Buffer.from(`x:${valid}`).toString('base64')}`]],
      [['Authorization', valid]],
      [
        ['Authorization', `Bearer ${valid}`],
        ['Authorization', `Bearer ${wrongKind}`],
      ],
      [
        ['Authorization', `Bearer ${wrongKind}`],
        ['Authorization', `Bearer ${valid}`],
      ],
      [
        ['Authorization', 'Bearer junk'],
        ['Authorization', `Bearer ${valid}`],
      ],
    ),
    visible.map((v) => [['Authorization', v]] as Array<[string, string]>),
    visible.map((v) => [['Authorization', `Bearer ${v}`]] as Array<[string, string]>),
  );
}

/** Content-Type: missing, wrong, odd parameters, duplicated, nonsense. */
export const contentTypeHeaders: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant([['Content-Type', 'application/json']] as Array<[string, string]>) },
  fc.constant<Array<[string, string]>>([]),
  fc
    .constantFrom(
      'text/plain',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'application/xml',
      '',
      '*/*',
      'application/json, text/plain',
      'application/json; charset="utf-8"; x=\u00ff',
    )
    .map((v) => [['Content-Type', v]] as Array<[string, string]>),
  fc.constant([
    ['Content-Type', 'application/json'],
    ['Content-Type', 'text/plain'],
  ] as Array<[string, string]>),
  fc
    .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 })
    .map((v) => [['Content-Type', v]] as Array<[string, string]>),
);

/** Headers that have no business changing the outcome. */
export const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ['Content-Encoding', 'gzip'],
      ['X-Forwarded-For', '169.254.169.254'],
      ['X-Amzn-Trace-Id', 'Root=1-00000000-000000000000000000000000'],
      ['Accept', 'text/html'],
      ['Origin', 'https://evil.example'],
      ['X-HTTP-Method-Override', 'DELETE'],
      ['Cookie', 'a=b'],
    ),
    fc.tuple(
      fc
        .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/)
        .filter(
          (n) => !/^(host|content-length|transfer-encoding|expect|connection|authorization|content-type)$/i.test(n),
        ),
      fc
        .string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 })
        .map((v) => v.trim()),
    ),
  ),
  { maxLength: 3 },
);

/** Where the request goes: the route itself (`method`, default POST) most of the time, else a near miss or another method. */
export function target(path: string, method = 'POST'): fc.Arbitrary<{ method: string; path: string }> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant({ method, path }) },
    fc
      .constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS')
      .filter((m) => m !== method)
      .map((m) => ({ method: m, path })),
    fc
      .constantFrom(
        `${path}/`,
        `${path}?x=1&x=2`,
        `${path}?__proto__[a]=1`,
        `${path.toUpperCase()}`,
        `${path}%00`,
        `/${path}`,
        `${path}/..`,
      )
      .map((p) => ({ method, path: p })),
  );
}

/** A whole malformed request; `query` (already encoded, without `?`) is appended to the path when given. */
export function malformedRequest(options: {
  path: string;
  method?: string;
  query?: fc.Arbitrary<string>;
  body: fc.Arbitrary<Buffer>;
  authorization: fc.Arbitrary<Array<[string, string]>>;
}): fc.Arbitrary<RawRequest> {
  const withQuery = options.query
    ? fc
        .tuple(target(options.path, options.method), options.query)
        .map(([t, q]) => ({ method: t.method, path: q ? `${t.path}${t.path.includes('?') ? '&' : '?'}${q}` : t.path }))
    : target(options.path, options.method);
  return fc
    .record({
      target: withQuery,
      authorization: options.authorization,
      contentType: contentTypeHeaders,
      extra: extraHeaders,
      body: options.body,
      order: fc.boolean(),
    })
    .map(({ target: t, authorization, contentType, extra, body, order }) => ({
      method: t.method,
      path: t.path,
      headers: order ? [...authorization, ...contentType, ...extra] : [...extra, ...contentType, ...authorization],
      body,
    }));
}

/** A short description of a request for a failure message (bodies cut to 300 characters). */
export function describeRequest(request: RawRequest): string {
  const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : (request.body ?? '');
  return JSON.stringify({
    method: request.method,
    path: request.path,
    headers: request.headers,
    bodyLength: body.length,
    body: body.length > 300 ? `${body.slice(0, 300)}...` : body,
  });
}

/**
 * The problems with a knowledge-base API reply: a 5xx, a body that is not exactly the four-key envelope,
 * or `data` on an error. Also returns the parsed body for checks of a particular call.
 */
export function datasetEnvelopeProblems(reply: RawResponse): { problems: string[]; body?: Record<string, unknown> } {
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  // A CORS preflight (an OPTIONS request on a route) is answered as FastGPT answers it: 200, no body, the allowed
  // methods (shared/cors.ts). Only that answer may leave the envelope.
  if (reply.status === 200 && reply.body === '' && reply.headers['access-control-allow-methods'] !== undefined) {
    return { problems };
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(reply.body) as Record<string, unknown>;
  } catch {
    return { problems: [...problems, `body is not JSON: ${reply.body.slice(0, 200)}`] };
  }
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : String(body);
  if (keys !== 'code,data,message,statusText') problems.push(`envelope keys ${keys}`);
  if (typeof body.code !== 'number' || typeof body.statusText !== 'string' || typeof body.message !== 'string') {
    problems.push('envelope field types');
  }
  if (reply.status !== 200 && body.data !== null) problems.push('data is not null');
  return { problems, body };
}

/**
 * The problems with one channel proxy API reply: a 5xx, a body that is not JSON, or one outside the envelope:
 * exactly `{success: true, data}` for a 200 (a problem in itself unless `successAllowed`), else exactly
 * `{success: false, message: <string>}`.
 */
export function proxyEnvelopeProblems(reply: RawResponse, options: { successAllowed: boolean }): string[] {
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  if (reply.status === 200 && !options.successAllowed) problems.push('a call succeeded');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(reply.body) as Record<string, unknown>;
  } catch {
    return [...problems, `body is not JSON: ${reply.body.slice(0, 200)}`];
  }
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : String(body);
  const ok =
    reply.status === 200
      ? keys === 'data,success' && body.success === true
      : keys === 'message,success' && body.success === false && typeof body.message === 'string';
  if (!ok) problems.push(`not the proxy envelope: ${reply.status} ${reply.body.slice(0, 200)}`);
  return problems;
}

// Locally both APIs share one host, so the gateway guesses the API of an unknown path from its prefix; in AWS the
// host decides. A near-miss path may therefore get the other API's 404: exactly that body is accepted, nothing else.
const OTHER_API_NOT_FOUND = JSON.stringify(GATEWAY_RESPONSES.dataset.MISSING_AUTHENTICATION_TOKEN.body);

/**
 * The problems with a reply of the channel proxy API: exactly its envelope (a success only where `successAllowed`),
 * or the knowledge-base API's 404 where `otherApi404` (a near-miss path, where both APIs share a host).
 */
export function proxyReplyProblems(
  reply: RawResponse,
  options: { successAllowed: boolean; otherApi404?: boolean },
): string[] {
  if ((options.otherApi404 ?? true) && reply.status === 404 && reply.body === OTHER_API_NOT_FOUND) return [];
  return proxyEnvelopeProblems(reply, { successAllowed: options.successAllowed });
}

/** Ids as a path segment: real ones (either case), well-formed ones of `hexLength`, hostile ones, percent-encoded. */
export function idSegments(ids: readonly string[], hexLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids, ...ids.map((id) => id.toUpperCase())) },
    fc.stringMatching(new RegExp(`^[0-9a-f]{${hexLength}}$`)),
    fc.string({ maxLength: 80 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom(
      '%00',
      '..',
      '%2F',
      '%2e%2e',
      '%E2%80%A6',
      '%ZZ',
      '{id}',
      '*',
      'a'.repeat(5_000),
      '0',
      '-1',
      'f'.repeat(64),
    ),
  );
}

/** Values every query parameter is tried with: empty, small, signed, exponent and huge numbers. */
const ODD_QUERY_VALUES = ['', '0', '1', '100', '101', '-1', '9'.repeat(30)];

/**
 * Query strings of up to five `name=value` pairs (repeats allowed), each part percent-encoded, '' for none: the
 * route's own parameters (most often), tricky and `oddNames`, or any short name; `values` (odd numbers added), or any
 * text or bytes, or what `more` generates.
 */
export function queryStrings(
  params: { known: readonly string[]; oddNames: readonly string[]; values: readonly string[] },
  ...more: fc.Arbitrary<string>[]
): fc.Arbitrary<string> {
  const names = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...params.known) },
    fc.constantFrom(...TRICKY_KEYS, ...params.oddNames),
    fc.string({ maxLength: 10 }),
  );
  const values = fc.oneof(
    fc.constantFrom(...ODD_QUERY_VALUES, ...params.values),
    ...more,
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  return fc
    .array(fc.tuple(names, values), { maxLength: 5 })
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
    );
}
