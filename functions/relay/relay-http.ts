import type { APIGatewayProxyEvent } from 'aws-lambda';
import { openAiErrorBody, RelayHttpError } from '#shared/envelopes/openai';
import type { RelayCaller, RelayEndpoint, RelayRequest, RelayResponse, UsageRecord } from '#shared/relay/contract';
import { QuotaExhaustedError, type QuotaMeter } from '#shared/relay/quota';
import { type RelayKeyCaller, relayCallerFromContext, relayKeyExpired, relayKeyIpAllowed } from '#shared/relay-keys';
import type { ModelList } from '#shared/schemas/relay';
import { inAnthropicEnvelope } from './anthropic-errors.ts';

/*
 * The `/v1` front door (docs/relay.md): turns an API Gateway proxy event into a RelayRequest for the routing core,
 * checks what a TOKEN authorizer cannot (the caller's IP, the key's model allow-list, an expiry reached while the
 * authorizer's decision was cached), and answers the core's response or an error in OpenAI's envelope. It knows no
 * Lambda stream: the handler writes what this returns.
 */

/** The routing core as the front door uses it (shared/relay/relay.ts). */
export interface RelayCore {
  handle(request: RelayRequest): Promise<RelayResponse>;
  listModels(caller: RelayCaller): Promise<string[]>;
}

/** What the handler writes: a head, then the body chunk by chunk, then waits for `done` (the usage record). */
export interface RelayReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AsyncIterable<Uint8Array>;
  /** The request's usage record once written (undefined for an answer the front door gave itself). */
  readonly done?: Promise<UsageRecord>;
}

export interface ServeOptions {
  readonly core: RelayCore;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly now?: () => Date;
  /** Quota admission (docs/relay.md, "Quotas"); its sink meters the core's usage records. */
  readonly quota?: Pick<QuotaMeter, 'admit' | 'release'>;
}

/** API Gateway's payload limit: a larger body never reaches the function deployed; locally the server refuses it too. */
export const MAX_RELAY_BODY_BYTES = 10 * 1024 * 1024;

const ENDPOINTS: Readonly<Record<string, RelayEndpoint>> = {
  '/v1/chat/completions': 'chat',
  '/v1/embeddings': 'embeddings',
  '/v1/messages': 'messages',
  '/v1/responses': 'responses',
  '/v1/messages/count_tokens': 'count_tokens',
};

/** The routes that answer errors in Anthropic's envelope. */
const ANTHROPIC_ROUTES = new Set(['/v1/messages', '/v1/messages/count_tokens']);

/** Protocol headers a caller's request carries to the adapters (Anthropic's version and beta flags). */
const PASSED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/** Answers one `/v1` request; never throws. `/v1/messages*` answer errors in Anthropic's envelope, the rest OpenAI's. */
export async function serveRelay(event: APIGatewayProxyEvent, options: ServeOptions): Promise<RelayReply> {
  const reply = await serveOpenAi(event, options);
  return ANTHROPIC_ROUTES.has(event.resource) ? inAnthropicEnvelope(reply) : reply;
}

function passedHeaders(event: APIGatewayProxyEvent): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    const lower = name.toLowerCase();
    if (typeof value === 'string' && (PASSED_HEADERS as readonly string[]).includes(lower)) out[lower] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Every failure as an OpenAI error reply. */
async function serveOpenAi(event: APIGatewayProxyEvent, options: ServeOptions): Promise<RelayReply> {
  try {
    const caller = relayPrincipal(event);
    checkPrincipal(caller, event.requestContext?.identity?.sourceIp, (options.now ?? (() => new Date()))());
    if (event.httpMethod === 'GET' && event.resource === '/v1/models') {
      return jsonReply(200, modelList(await options.core.listModels(caller)), options.requestId);
    }
    const endpoint = event.httpMethod === 'POST' ? ENDPOINTS[event.resource] : undefined;
    if (endpoint === undefined) {
      throw new RelayHttpError(
        404,
        `Unknown route ${event.httpMethod} ${event.path}`,
        'invalid_request_error',
        'unknown_url',
      );
    }
    const body = requestBody(event);
    // Anthropic's token counting has no stream: never asked of an upstream.
    if (endpoint === 'count_tokens') delete body.stream;
    const model = body.model;
    if (typeof model !== 'string' || model.trim() === '') {
      throw new RelayHttpError(400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
    }
    if (caller.models !== undefined && !caller.models.includes(model)) {
      throw new RelayHttpError(
        403,
        `This key may not use the model ${model}`,
        'permission_error',
        'model_not_allowed',
        'model',
      );
    }
    await admit(options, caller, endpoint, body, event);
    const headers = passedHeaders(event);
    let response: RelayResponse;
    try {
      response = await options.core.handle({
        requestId: options.requestId,
        endpoint,
        body,
        caller,
        signal: options.signal,
        ...(headers ? { headers } : {}),
      });
    } catch (error) {
      await options.quota?.release(options.requestId);
      throw error;
    }
    return {
      status: response.status,
      headers: { ...response.headers, 'x-request-id': options.requestId },
      body: response.body,
      done: response.done,
    };
  } catch (error) {
    if (error instanceof RelayHttpError) return jsonReply(error.httpStatus, error.body, options.requestId);
    throw error;
  }
}

/** Reserves the request's cost for a key with a limited quota; One API's message with 429 when none is left. */
async function admit(
  options: ServeOptions,
  caller: RelayKeyCaller,
  endpoint: RelayEndpoint,
  body: Record<string, unknown>,
  event: APIGatewayProxyEvent,
): Promise<void> {
  // Counting tokens is free at Anthropic and Bedrock alike: nothing is reserved, and its record carries no usage.
  if (!options.quota || caller.limitedQuota !== true || endpoint === 'count_tokens') return;
  try {
    await options.quota.admit({
      requestId: options.requestId,
      keyId: caller.keyId,
      limitedQuota: true,
      group: caller.groups[0] ?? 'default',
      model: body.model as string,
      body,
      bodyBytes: Buffer.byteLength(event.body ?? ''),
      endpoint,
    });
  } catch (error) {
    if (error instanceof QuotaExhaustedError) {
      throw new RelayHttpError(429, error.message, 'rate_limit_error', 'insufficient_quota');
    }
    throw error;
  }
}

/** The error reply for anything unexpected: generic, never the cause's text. */
export function internalErrorReply(requestId: string): RelayReply {
  return jsonReply(500, openAiErrorBody('Internal error', 'server_error'), requestId);
}

function jsonReply(status: number, body: unknown, requestId: string): RelayReply {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: (async function* () {
      yield bytes;
    })(),
  };
}

/** OpenAI's `GET /v1/models` list shape (its schema is the OpenAPI document's: shared/schemas/relay.ts). */
function modelList(models: readonly string[]): ModelList {
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'kb-channel-gateway' })),
  };
}

/** The relay key's caller from the authorizer's context (strings only, as API Gateway passes them). */
export function relayPrincipal(event: Pick<APIGatewayProxyEvent, 'requestContext'>): RelayKeyCaller {
  const caller = relayCallerFromContext(event.requestContext?.authorizer as Record<string, unknown> | null | undefined);
  if (caller === undefined) {
    throw new RelayHttpError(
      401,
      'A relay key (sk-...) is required for this API',
      'invalid_request_error',
      'invalid_api_key',
    );
  }
  return caller;
}

/** Refuses an expired key (the authorizer's Allow may be cached past the expiry) and a caller outside the IP list. */
function checkPrincipal(caller: RelayKeyCaller, sourceIp: string | undefined, now: Date): void {
  if (relayKeyExpired(caller, now)) {
    throw new RelayHttpError(401, 'This key has expired', 'invalid_request_error', 'invalid_api_key');
  }
  if (!relayKeyIpAllowed(caller.ips, sourceIp ?? '')) {
    throw new RelayHttpError(403, 'This key may not be used from this address', 'permission_error', 'ip_not_allowed');
  }
}

/** The request's JSON object body, read once (it is reused for every attempt). */
function requestBody(event: APIGatewayProxyEvent): Record<string, unknown> {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text) > MAX_RELAY_BODY_BYTES) {
    throw new RelayHttpError(413, 'Request body is too large', 'invalid_request_error', 'request_too_large');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RelayHttpError(
      400,
      'We could not parse the JSON body of your request. The body must be a JSON object.',
      'invalid_request_error',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new RelayHttpError(400, 'The request body must be a JSON object', 'invalid_request_error');
  }
  return parsed as Record<string, unknown>;
}
