import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import { CORS_APIS, preflightHeaders } from '#shared/cors';
import {
  GATEWAY_RESPONSE_CORS_HEADERS,
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '#shared/gateway-responses';
import { LOCAL_UPLOAD_PATH } from '#shared/kb/sources/upload-stores';
import { isStreamingHandler } from '#shared/lambda-streaming';
import {
  APIS,
  type ApiDef,
  type ApiName,
  BINARY_MEDIA_TYPES,
  findRoute,
  type RouteDef,
  requiresAuthorizer,
} from '#shared/routes';
import type { LocalBackend } from './backend.ts';
import { evaluatePolicy } from './policy.ts';
import { API_IDS, LOCAL_ACCOUNT, LOCAL_REGION, proxyEvent, requestAuthorizerEvent, STAGE } from './proxy-event.ts';
import { streamThrough } from './streaming.ts';
import { serveLocalUpload } from './uploads.ts';

export interface ThrottleSettings {
  /** Steady-state requests per second. */
  rateLimit: number;
  /** Bucket size: requests allowed in a burst. */
  burstLimit: number;
}

export interface GatewayOptions {
  host?: string;
  /** 0 = random. */
  port?: number;
  /** Stage throttling (token bucket, like API Gateway's); none when omitted. */
  throttle?: ThrottleSettings;
  /** Receives one JSON access-log line per request (no headers, no body). */
  accessLog?: (line: string) => void;
  /** API Gateway's integration timeout (29 s). */
  integrationTimeoutMs?: number;
  /** Sees every response as it is sent (the tests check each against the API's OpenAPI document). */
  onResponse?: (exchange: GatewayExchange) => void;
}

/** One request and the response the gateway sent for it. */
export interface GatewayExchange {
  /** The API that answered (for an unknown path: the one whose envelope the 404 uses). */
  readonly api: ApiName;
  /** The matched route; undefined when none matched. */
  readonly route?: RouteDef;
  readonly method: string;
  readonly path: string;
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Buffer;
}

export interface LocalGateway {
  readonly url: string;
  close(): Promise<void>;
}

// API Gateway's own payload limit; the functions enforce their smaller limits themselves.
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** Token bucket with API Gateway's semantics: `burstLimit` tokens, refilled at `rateLimit` per second. */
function tokenBucket({ rateLimit, burstLimit }: ThrottleSettings): () => boolean {
  let tokens = burstLimit;
  let last = performance.now();
  return () => {
    const now = performance.now();
    tokens = Math.min(burstLimit, tokens + ((now - last) / 1000) * rateLimit);
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

// Locally the APIs share one host; an unknown path is answered in the envelope of the API whose
// routes share the longest path prefix with it (in AWS each API has its own host). Anything under `/v1` is the
// relay's, so an OpenAI SDK pointed at the local server reads every 404 as OpenAI's.
export function apiForPath(path: string): ApiDef {
  if (path === '/v1' || path.startsWith('/v1/')) return APIS.relay;
  let best: ApiDef = APIS.dataset;
  let bestLength = -1;
  for (const api of Object.values(APIS)) {
    for (const route of api.routes) {
      let n = 0;
      while (n < path.length && n < route.path.length && path[n] === route.path[n]) n++;
      if (n > bestLength) [best, bestLength] = [api, n];
    }
  }
  return best;
}

/** Whether some route of an API answering CORS has this path, whatever its method. */
function hasRoute(path: string): boolean {
  return ['GET', 'POST', 'PUT', 'DELETE'].some((method) => {
    const found = findRoute(method, path);
    return found !== undefined && CORS_APIS[found.api.name];
  });
}

class PayloadTooLarge extends Error {}

/**
 * Reads the whole body, or rejects with PayloadTooLarge as soon as it passes the limit. The rest of an
 * oversized body is then drained, not read into memory: the stream is never destroyed, so the socket stays
 * open for the 413 (closing it with unread data would reset the connection before the client reads the answer).
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData).off('end', onEnd);
      req.resume();
      reject(new PayloadTooLarge());
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData).on('end', onEnd).once('error', reject);
  });
}

/** Serves both APIs the way API Gateway does: throttling, TOKEN authorizer, policy, proxy events, gateway responses. */
export async function startGateway(backend: LocalBackend, options: GatewayOptions = {}): Promise<LocalGateway> {
  const allow = options.throttle ? tokenBucket(options.throttle) : () => true;
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 29_000;

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    sourceIp: string,
  ): Promise<number> {
    // Prefixed, not resolved against a base: `//host/path` must stay a path, as API Gateway sees it.
    const url = new URL(`http://local${req.url ?? '/'}`);
    const method = (req.method ?? 'GET').toUpperCase();
    const match = findRoute(method, url.pathname);
    const api = match?.api ?? apiForPath(url.pathname);

    const send = (statusCode: number, headers: Record<string, string | string[]>, body: Buffer): number => {
      res.writeHead(statusCode, headers);
      res.end(body);
      options.onResponse?.({
        api: api.name,
        route: match?.route,
        method,
        path: url.pathname,
        statusCode,
        headers,
        body,
      });
      return statusCode;
    };
    const gatewayResponse = (type: GatewayResponseType): number => {
      const { statusCode } = GATEWAY_RESPONSES[api.name][type];
      const headers = {
        'Content-Type': 'application/json',
        'x-amzn-RequestId': requestId,
        ...gatewayResponseHeaders(api.name, requestId),
        ...(CORS_APIS[api.name] ? GATEWAY_RESPONSE_CORS_HEADERS : {}),
      };
      return send(statusCode, headers, Buffer.from(gatewayResponseBody(api.name, type)));
    };

    if (!allow()) return gatewayResponse('THROTTLED');
    // Not an API route: the source bucket's stand-in for direct uploads (infra/local/uploads.ts).
    if (backend.uploads && url.pathname.startsWith(`${LOCAL_UPLOAD_PATH}/`)) {
      const answer = await serveLocalUpload(req, url, backend.uploads, new Date());
      res.writeHead(answer.statusCode, answer.headers);
      res.end(answer.body);
      return answer.statusCode;
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (error instanceof PayloadTooLarge) return gatewayResponse('REQUEST_TOO_LARGE');
      throw error;
    }
    // As the stack's OPTIONS methods (a mock integration, no authorizer) on each route of an API answering CORS.
    if (!match && method === 'OPTIONS' && CORS_APIS[api.name] && hasRoute(url.pathname)) {
      return send(
        200,
        { ...preflightHeaders(), 'Content-Type': 'application/json', 'x-amzn-RequestId': requestId },
        Buffer.alloc(0),
      );
    }
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');

    // A public route (`auth: 'none'`) has no authorizer, exactly as its API Gateway method.
    let authorization: APIGatewayAuthorizerResult | undefined;
    if (requiresAuthorizer(match.route)) {
      const outcome = await authorize(req, api, method, url, match.route.keyHeader);
      if (typeof outcome === 'string') return gatewayResponse(outcome);
      authorization = outcome;
    }

    const event = proxyEvent(req, url, method, match, body, authorization, requestId, sourceIp);
    const handler = backend.handlerFor(match.route);
    if (isStreamingHandler(handler)) {
      return streamThrough(
        handler,
        event,
        res,
        requestId,
        (statusCode, headers, captured) =>
          options.onResponse?.({
            api: api.name,
            route: match.route,
            method,
            path: url.pathname,
            statusCode,
            headers,
            body: captured,
          }),
        () => gatewayResponse('DEFAULT_5XX'),
      );
    }
    let result: APIGatewayProxyResult;
    try {
      result = await withTimeout(handler(event), integrationTimeoutMs);
    } catch (error) {
      if (error instanceof IntegrationTimeout) return gatewayResponse('INTEGRATION_TIMEOUT');
      // A function error with a proxy integration is a 5xx from the gateway, never the error text.
      return gatewayResponse('DEFAULT_5XX');
    }
    if (!result || typeof result.statusCode !== 'number') return gatewayResponse('DEFAULT_5XX');
    const responseHeaders: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[k] = v.map(String);
    // As API Gateway: a base64 body becomes bytes only for a request whose first Accept type is one of the API's
    // binary media types; any other request gets the base64 text.
    const responseBody =
      result.isBase64Encoded && acceptsBinary(req.headers.accept, BINARY_MEDIA_TYPES[api.name])
        ? Buffer.from(result.body ?? '', 'base64')
        : Buffer.from(result.body ?? '', 'utf8');
    return send(result.statusCode, responseHeaders, responseBody);
  }

  /** Runs the TOKEN authorizer and applies its policy: the result, or the gateway response that ends the request. */
  async function authorize(
    req: IncomingMessage,
    api: ApiDef,
    method: string,
    url: URL,
    keyHeader: RouteDef['keyHeader'],
  ): Promise<APIGatewayAuthorizerResult | GatewayResponseType> {
    const methodArn = `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${API_IDS[api.name]}/${STAGE}/${method}${url.pathname}`;
    // Identity source: an absent or empty Authorization header never reaches the TOKEN authorizer; a route taking its
    // key in another header has a REQUEST authorizer with no identity source, which sees both headers (shared/routes.ts).
    const token = req.headers.authorization;
    if (!token && keyHeader === undefined) return 'UNAUTHORIZED';
    let authorization: APIGatewayAuthorizerResult;
    try {
      authorization = await backend.authorizer(
        keyHeader === undefined
          ? { type: 'TOKEN', authorizationToken: token ?? '', methodArn }
          : requestAuthorizerEvent(req, methodArn, keyHeader),
      );
    } catch (error) {
      return error instanceof Error && error.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE';
    }
    const decision = evaluatePolicy(authorization, methodArn);
    if (decision === 'invalid') return 'AUTHORIZER_CONFIGURATION_ERROR';
    if (decision === 'deny') return 'ACCESS_DENIED';
    return authorization;
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const requestId = randomUUID();
    // Read now: once a request is answered before its body was read (413), Node may detach the socket, and
    // `req.socket` would be null by the time the access log is written.
    const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
    handle(req, res, requestId, sourceIp)
      .catch(() => {
        const api = apiForPath(req.url ?? '/').name;
        const headers = { 'Content-Type': 'application/json', ...gatewayResponseHeaders(api, requestId) };
        if (!res.headersSent) res.writeHead(500, headers);
        const body = Buffer.from(gatewayResponseBody(api, 'DEFAULT_5XX'));
        res.end(body);
        const path = (req.url ?? '').split('?')[0] ?? '';
        options.onResponse?.({ api, method: req.method ?? 'GET', path, statusCode: 500, headers, body });
        return 500;
      })
      .then((status) => {
        options.accessLog?.(
          JSON.stringify({
            requestId,
            ip: sourceIp,
            method: req.method,
            path: (req.url ?? '').split('?')[0],
            status,
            latencyMs: Math.round((performance.now() - started) * 10) / 10,
          }),
        );
      });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The API's own gateway-response headers (shared/gateway-responses.ts) with their mapping expressions evaluated as API
 * Gateway does: `context.requestId` is the request id, a quoted value is itself.
 */
export function gatewayResponseHeaders(api: ApiName, requestId: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, expression] of Object.entries(GATEWAY_RESPONSE_HEADERS[api])) {
    if (expression === 'context.requestId') headers[name] = requestId;
    else if (/^'.*'$/.test(expression)) headers[name] = expression.slice(1, -1);
  }
  return headers;
}

/** Whether the first media type of an Accept header is one of `binary` (API Gateway's rule for proxy responses). */
export function acceptsBinary(accept: string | undefined, binary: readonly string[]): boolean {
  const first = (accept ?? '').split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? '';
  return first !== '' && binary.includes(first);
}

class IntegrationTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new IntegrationTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
