import { connect } from 'node:net';
import fc from 'fast-check';
import { describeRequest } from './fuzz-requests.ts';

/** One HTTP request written byte for byte: duplicate headers, odd bodies and missing headers survive intact. */
export interface RawRequest {
  method: string;
  path: string;
  /** Sent in order; a name may repeat. `Host` and `Connection: close` are added. */
  headers: ReadonlyArray<readonly [string, string]>;
  body?: Buffer | string;
  /** Adds a Content-Length header matching the body (default true). */
  contentLength?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('truncated chunked body');
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Sends `request` over a fresh connection to `baseUrl` and reads the whole response (the server closes it). */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : (request.body ?? Buffer.alloc(0));
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.contentLength !== false) lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');

  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        const data = Buffer.concat(chunks);
        const split = data.indexOf('\r\n\r\n');
        if (split < 0) throw new Error(`no HTTP response head in ${data.length} bytes`);
        const [statusLine = '', ...headerLines] = data.subarray(0, split).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of headerLines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const rest = data.subarray(split + 4);
        const payload = headers['transfer-encoding']?.includes('chunked') ? decodeChunked(rest) : rest;
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: payload.toString('utf8') });
      } catch (error) {
        reject(error);
      }
    });
    // Not `end()`: a half-closed request makes the server drop the connection before it answers.
    socket.write(Buffer.concat([head, body]));
  });
}

/** Runs `task` over every item with at most `limit` in flight; results keep the items' order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * How hard the generated suites push: FUZZ_RUNS requests per API in the fuzz tests (default 2,000) and a
 * quarter of that as fast-check runs per property (at least 100).
 */
export const FUZZ_RUNS = (() => {
  const raw = process.env.FUZZ_RUNS;
  const value = raw === undefined || raw === '' ? 2_000 : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error('FUZZ_RUNS must be a positive integer');
  return value;
})();

/** fast-check runs per property, scaled by FUZZ_RUNS. */
export const PROPERTY_RUNS = Math.max(100, Math.ceil(FUZZ_RUNS / 4));

/** The seed of every fuzz sample of a run: FUZZ_SEED replays a failed run; otherwise taken from the clock. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/**
 * `runs` values drawn from `arbitrary` with the run's seed (the fuzz test names print it), moved by
 * `seedOffset` when one test samples several arbitraries.
 */
export function sampleFuzz<T>(arbitrary: fc.Arbitrary<T>, runs: number = FUZZ_RUNS, seedOffset = 0): T[] {
  return fc.sample(arbitrary, { numRuns: runs, seed: FUZZ_SEED + seedOffset });
}

/** What a fuzz run saw: every reply, the failures (`problems <- request`), and the statuses, sorted. */
export interface FuzzOutcome {
  readonly replies: RawResponse[];
  readonly failures: string[];
  readonly statuses: number[];
}

/**
 * Sends every request through the server at `baseUrl`, `concurrency` at a time, and checks each reply
 * with `problemsOf` (nothing = the reply is right).
 */
export async function fuzzThrough(
  baseUrl: string,
  requests: readonly RawRequest[],
  problemsOf: (reply: RawResponse, index: number) => string[],
  concurrency = 8,
): Promise<FuzzOutcome> {
  const replies = await mapConcurrent(requests, concurrency, (request) => rawRequest(baseUrl, request));
  const failures = replies.flatMap((reply, i) => {
    const problems = problemsOf(reply, i);
    return problems.length === 0 ? [] : [`${problems.join('; ')} <- ${describeRequest(requests[i]!)}`];
  });
  const statuses = [...new Set(replies.map((r) => r.status))].sort((a, b) => a - b);
  return { replies, failures, statuses };
}

/** One well-formed JSON request with a bearer credential (for the fixed cases beside the fuzzing). */
export function jsonRequest(
  baseUrl: string,
  request: { method?: string; path: string; bearer: string; body: Buffer | string },
): Promise<RawResponse> {
  return rawRequest(baseUrl, {
    method: request.method ?? 'POST',
    path: request.path,
    headers: [
      ['Authorization', `Bearer ${request.bearer}`],
      ['Content-Type', 'application/json'],
    ],
    body: request.body,
  });
}
