import type { ApiName } from './routes.ts';

/**
 * Errors API Gateway produces itself (before or instead of a function), rendered in each API's
 * own envelope. One definition: the CDK stack turns it into GatewayResponses, the local server
 * renders the same bodies.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'THROTTLED'
  | 'REQUEST_TOO_LARGE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseDef {
  readonly statusCode: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * Headers every gateway response of an API carries, as API Gateway response-parameter mapping expressions (the
 * stack passes them as the GatewayResponse's `responseHeaders`): the relay's callers expect `x-request-id` on every
 * answer, also on the ones API Gateway makes by itself. The local server sets the same header to its
 * request id.
 */
export const GATEWAY_RESPONSE_HEADERS: Readonly<Record<ApiName, Readonly<Record<string, string>>>> = {
  dataset: {},
  proxy: {},
  relay: { 'x-request-id': 'context.requestId' },
};

const fastgpt = (statusCode: number, code: number, statusText: string, message: string) => ({
  statusCode,
  body: { code, statusText, message, data: null },
});
const proxy = (statusCode: number, message: string) => ({
  statusCode,
  body: { success: false, message },
});
/**
 * OpenAI's error envelope, which OpenAI's SDKs read: `type` and `code` as OpenAI's API answers (401
 * `invalid_request_error` / `invalid_api_key`, 429 `rate_limit_exceeded`, 5xx `server_error`); `param` is always null.
 */
const openai = (statusCode: number, type: string, code: string | null, message: string) => ({
  statusCode,
  body: { error: { message, type, param: null, code } },
});

export const GATEWAY_RESPONSES: Readonly<Record<ApiName, Readonly<Record<GatewayResponseType, GatewayResponseDef>>>> = {
  dataset: {
    // No or malformed Authorization header (the authorizer said "Unauthorized").
    UNAUTHORIZED: fastgpt(
      401,
      403,
      'unAuthorization',
      'Missing or malformed Authorization header; expected "Bearer <token>"',
    ),
    // A well-formed token the authorizer denied: unknown, expired or of the wrong kind.
    ACCESS_DENIED: fastgpt(401, 514, 'unAuthApiKey', 'The API key is invalid, expired or not valid for this API'),
    MISSING_AUTHENTICATION_TOKEN: fastgpt(404, 404, 'notFound', 'No such route'),
    THROTTLED: fastgpt(429, 429, 'tooManyRequests', 'Too many requests; retry later'),
    REQUEST_TOO_LARGE: fastgpt(413, 507000, 'invalidParams', 'Request body is too large'),
    AUTHORIZER_FAILURE: fastgpt(500, 500, 'error', 'Internal error'),
    AUTHORIZER_CONFIGURATION_ERROR: fastgpt(500, 500, 'error', 'Internal error'),
    INTEGRATION_TIMEOUT: fastgpt(504, 504, 'timeout', 'The request timed out'),
    DEFAULT_4XX: fastgpt(400, 400, 'badRequest', 'Bad request'),
    DEFAULT_5XX: fastgpt(500, 500, 'error', 'Internal error'),
  },
  proxy: {
    UNAUTHORIZED: proxy(401, 'Missing or malformed Authorization header; expected "Bearer <admin key>"'),
    ACCESS_DENIED: proxy(401, 'The admin key is invalid or not valid for this API'),
    MISSING_AUTHENTICATION_TOKEN: proxy(404, 'No such route'),
    THROTTLED: proxy(429, 'Too many requests; retry later'),
    REQUEST_TOO_LARGE: proxy(413, 'Request body is too large'),
    AUTHORIZER_FAILURE: proxy(500, 'Internal error'),
    AUTHORIZER_CONFIGURATION_ERROR: proxy(500, 'Internal error'),
    INTEGRATION_TIMEOUT: proxy(504, 'The request timed out'),
    DEFAULT_4XX: proxy(400, 'Bad request'),
    DEFAULT_5XX: proxy(500, 'Internal error'),
  },
  relay: {
    // A missing or malformed header and a key the authorizer denied read alike, as OpenAI's 401 does: the SDKs
    // raise AuthenticationError for both, and the answer says nothing about which keys exist.
    UNAUTHORIZED: openai(
      401,
      'invalid_request_error',
      'invalid_api_key',
      'Missing or malformed Authorization header; expected "Bearer sk-..." with a relay key',
    ),
    ACCESS_DENIED: openai(
      401,
      'invalid_request_error',
      'invalid_api_key',
      'Incorrect API key provided: it is unknown, disabled, expired or not a relay key',
    ),
    MISSING_AUTHENTICATION_TOKEN: openai(404, 'invalid_request_error', 'unknown_url', 'Invalid URL: no such route'),
    THROTTLED: openai(429, 'rate_limit_error', 'rate_limit_exceeded', 'Too many requests; retry later'),
    REQUEST_TOO_LARGE: openai(413, 'invalid_request_error', 'request_too_large', 'Request body is too large'),
    AUTHORIZER_FAILURE: openai(500, 'server_error', null, 'Internal error'),
    AUTHORIZER_CONFIGURATION_ERROR: openai(500, 'server_error', null, 'Internal error'),
    INTEGRATION_TIMEOUT: openai(504, 'server_error', 'timeout', 'The request timed out'),
    DEFAULT_4XX: openai(400, 'invalid_request_error', null, 'Bad request'),
    DEFAULT_5XX: openai(500, 'server_error', null, 'Internal error'),
  },
};

/**
 * The CORS header of every gateway response of an API that answers cross-origin requests (shared/cors.ts), so a
 * page can read a 401 or a 404: a fixed `*`, as a gateway response cannot reflect the request's Origin.
 */
export const GATEWAY_RESPONSE_CORS_HEADERS: Readonly<Record<string, string>> = { 'Access-Control-Allow-Origin': '*' };

/** The JSON body API Gateway sends for a gateway response (also the CDK template). */
export function gatewayResponseBody(api: ApiName, type: GatewayResponseType): string {
  return JSON.stringify(GATEWAY_RESPONSES[api][type].body);
}
