import type { IncomingMessage } from 'node:http';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { API_NAME_STAGE_VARIABLE, type ApiName, BINARY_MEDIA_TYPES, type RouteMatch } from '#shared/routes';

/*
 * The REST proxy event the local server hands a function, shaped as API Gateway shapes it (infra/local/gateway.ts): the
 * same headers, query and path parameters, stage variables and request context, so handlers cannot tell the two apart.
 */

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';
export const STAGE = 'local';
export const API_IDS: Readonly<Record<ApiName, string>> = {
  dataset: 'localdataset',
  proxy: 'localproxy',
  relay: 'localrelay',
};

// Built through Maps and Object.fromEntries, so a header or parameter named `__proto__`, `toString` or `constructor`
// becomes an own property, as it does in the event JSON.parse makes in Lambda, and never touches a prototype.
function headerMaps(req: IncomingMessage) {
  const headers = new Map<string, string>();
  const multiValueHeaders = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers.set(name, value);
    multiValueHeaders.set(name, [...(multiValueHeaders.get(name) ?? []), value]);
  }
  // API Gateway sets this header itself (overwriting the client's); locally the scheme is plain HTTP.
  for (const name of [...headers.keys()]) {
    if (name.toLowerCase() === 'x-forwarded-proto') {
      headers.delete(name);
      multiValueHeaders.delete(name);
    }
  }
  headers.set('X-Forwarded-Proto', 'http');
  multiValueHeaders.set('X-Forwarded-Proto', ['http']);
  return { headers: Object.fromEntries(headers), multiValueHeaders: Object.fromEntries(multiValueHeaders) };
}

function queryMaps(url: URL) {
  if ([...url.searchParams.keys()].length === 0) {
    return { queryStringParameters: null, multiValueQueryStringParameters: null };
  }
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) {
    single.set(k, v);
    multi.set(k, [...(multi.get(k) ?? []), v]);
  }
  return {
    queryStringParameters: Object.fromEntries(single),
    multiValueQueryStringParameters: Object.fromEntries(multi),
  };
}

/** The REST proxy event API Gateway hands a function for this request (with the authorizer's context when it ran). */
export function proxyEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  { api, route, pathParameters }: RouteMatch,
  body: Buffer,
  authorization: APIGatewayAuthorizerResult | undefined,
  requestId: string,
  sourceIp: string,
): APIGatewayProxyEvent {
  const now = Date.now();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: method,
    ...headerMaps(req),
    ...queryMaps(url),
    // As API Gateway: the template's values, percent-decoded; null for a route without parameters.
    pathParameters: Object.keys(pathParameters).length > 0 ? decodeParameters(pathParameters) : null,
    stageVariables: { [API_NAME_STAGE_VARIABLE]: api.name },
    // As API Gateway: a body whose Content-Type is one of the API's binary media types arrives base64-encoded.
    ...(isBinaryBody(req.headers['content-type'], BINARY_MEDIA_TYPES[api.name])
      ? { body: body.length > 0 ? body.toString('base64') : null, isBase64Encoded: true }
      : { body: body.length > 0 ? body.toString('utf8') : null, isBase64Encoded: false }),
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: API_IDS[api.name],
      // API Gateway sends no authorizer context to a method without an authorizer.
      authorizer: authorization
        ? { ...(authorization.context ?? {}), principalId: authorization.principalId }
        : undefined,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
      // The full request path, as on a custom domain: local URLs carry no stage segment.
      path: url.pathname,
      stage: STAGE,
      requestId,
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: route.path,
    },
  };
}

/** Whether API Gateway would hand a request body of this Content-Type to the function in base64 (`type/*` matches too). */
export function isBinaryBody(contentType: string | undefined, binary: readonly string[]): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === '') return false;
  return binary.some((b) => b === type || b === '*/*' || (b.endsWith('/*') && type.startsWith(b.slice(0, -1))));
}

/** Percent-decodes path parameter values; a value that is not valid percent-encoding is passed as sent. */
function decodeParameters(parameters: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      decoded[name] = value;
    }
  }
  return decoded;
}

/**
 * The REQUEST authorizer's event for a route that takes its key in another header too (shared/routes.ts `keyHeader`):
 * the request's headers as API Gateway passes them (the authorizer reads `Authorization` or that header).
 */
export function requestAuthorizerEvent(
  req: IncomingMessage,
  methodArn: string,
  keyHeader: string,
): APIGatewayRequestAuthorizerEvent {
  const { headers, multiValueHeaders } = headerMaps(req);
  return {
    type: 'REQUEST',
    methodArn,
    resource: '',
    path: '',
    httpMethod: req.method ?? 'POST',
    headers,
    multiValueHeaders,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    // Only the headers the authorizer reads are named here; the whole request context is not needed by it.
    requestContext: { keyHeader } as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}
