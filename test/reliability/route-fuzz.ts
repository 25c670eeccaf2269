import type fc from 'fast-check';
import { type TestServer, useTestServer } from '#test/support/local-server';
import {
  authorizationHeaders,
  datasetEnvelopeProblems,
  encodedBody,
  malformedBody,
  malformedRequest,
} from './fuzz-requests.ts';
import { type RawRequest, type RawResponse, sampleFuzz } from './harness.ts';

/** A local server's access token (docs/authorization.md): the knowledge-base API's credential. */
export type AccessToken = TestServer['credentials']['accessTokens'][number];

/** Where fuzzed requests go: a route's path and method (POST unless given), and any query (encoded, without `?`). */
export interface FuzzTarget {
  readonly path: string;
  readonly method?: string;
  readonly query?: fc.Arbitrary<string> | undefined;
}

/** What fuzzed JSON bodies are made of: `objects`, broken around their `fields`. */
export interface FuzzBody {
  readonly objects: fc.Arbitrary<Record<string, unknown>>;
  readonly fields: readonly string[];
}

/**
 * `runs` malformed JSON requests to `target` (FUZZ_RUNS unless given), authorization headers around the `valid`
 * credential (`wrongKind` is a credential of the other API).
 */
export function malformedJsonRequests(
  target: FuzzTarget,
  body: FuzzBody,
  credentials: { valid: string; wrongKind: string },
  runs?: number,
): RawRequest[] {
  const request = malformedRequest({
    path: target.path,
    ...(target.method ? { method: target.method } : {}),
    ...(target.query ? { query: target.query } : {}),
    body: encodedBody(malformedBody(body.objects, body.fields)),
    authorization: authorizationHeaders(credentials.valid, credentials.wrongKind),
  });
  return sampleFuzz(request, runs);
}

/** A fuzz suite's local server, its first access token, and malformed requests to either API through it. */
export interface FuzzServer {
  readonly server: TestServer;
  /** The first access token, once the server has started (inside a test or a hook). */
  token(): AccessToken;
  /** Malformed requests to a knowledge-base route: around the access token (the admin key is the wrong kind). */
  datasetRequests(target: FuzzTarget, body: FuzzBody, runs?: number): RawRequest[];
  /** Malformed requests to a channel proxy route: around the admin key (an access token is the wrong kind). */
  proxyRequests(target: FuzzTarget, body: FuzzBody, runs?: number): RawRequest[];
}

/** A fuzz suite's local server, started with `env` as `useTestServer` starts it. */
export function useFuzzServer(env: Readonly<Record<string, string>> = {}): FuzzServer {
  const server = useTestServer(env);
  const token = () => {
    const first = server.credentials.accessTokens[0];
    if (!first) throw new Error('the local server made no access token');
    return first;
  };
  return {
    server,
    token,
    datasetRequests: (target, body, runs) =>
      malformedJsonRequests(target, body, { valid: token().token, wrongKind: server.credentials.adminKey }, runs),
    proxyRequests: (target, body, runs) =>
      malformedJsonRequests(target, body, { valid: server.credentials.adminKey, wrongKind: token().token }, runs),
  };
}

/**
 * The problems with a knowledge-base API reply to a request carrying `token`: those of `datasetEnvelopeProblems`,
 * a 200 whose envelope's code is not 200, and the token echoed.
 */
export function datasetReplyProblems(token: () => AccessToken): (reply: RawResponse) => string[] {
  return (reply) => {
    const { problems, body } = datasetEnvelopeProblems(reply);
    if (reply.status === 200 && body !== undefined && body.code !== 200) problems.push('200 without code 200');
    if (reply.body.includes(token().token)) problems.push('the token is echoed');
    return problems;
  };
}
