import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type Authorizer, requestCredential } from '#functions/authorizer/authorizer';
import { policyFor } from '#functions/authorizer/policy';
import { apiForPath, type LocalGateway, startGateway } from '#infra/local/gateway';
import { GATEWAY_RESPONSE_HEADERS, GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/gateway-responses';
import { type RelayAuthorizerContext, relayCallerFromContext } from '#shared/relay-keys';
import { APIS, BINARY_MEDIA_TYPES, FUNCTION_ENTRIES, findRoute } from '#shared/routes';
import { gatewayOnlyBackend } from '#test/support/gateway-backend';

// The relay API as the route table declares it and the local gateway serves it, before its function exists:
// a recording backend whose authorizer allows one relay key.

const CONTEXT: RelayAuthorizerContext = {
  scope: 'relay',
  keyId: '0123456789abcdef01234567',
  groups: '["vip","default"]',
  models: '["gpt-4o"]',
  ips: '',
  expiresAt: '',
};
const RELAY_KEY = `sk-${'a'.repeat(48)}`;
const seen: APIGatewayProxyEvent[] = [];
const backend = gatewayOnlyBackend({
  async authorizer(event: Parameters<Authorizer>[0]) {
    const token = event.type === 'REQUEST' ? requestCredential(event.headers) : event.authorizationToken;
    if (token !== `Bearer ${RELAY_KEY}`) {
      return {
        principalId: 'unknown',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Deny', Action: 'execute-api:Invoke', Resource: '*' }],
        },
      };
    }
    return policyFor(event.methodArn, { scope: 'relay', context: CONTEXT }).result;
  },
  handlerFor: () => async (event: APIGatewayProxyEvent) => {
    seen.push(event);
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"object":"list","data":[]}' };
  },
});

let gateway: LocalGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  seen.length = 0;
});

const request = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  gateway ??= await startGateway(backend, { port: 0 });
  const res = await fetch(`${gateway.url}${path}`, { method, headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
};

describe('the relay API in the route table', () => {
  it('serves the /v1 routes through one streaming function, its document publicly, and the admin calls on the proxy API', () => {
    expect(APIS.relay.routes.map((r) => [r.method, r.path, r.function, r.streaming, r.auth, r.keyHeader])).toEqual([
      ['POST', '/v1/chat/completions', 'relay', true, undefined, undefined],
      ['POST', '/v1/embeddings', 'relay', true, undefined, undefined],
      ['GET', '/v1/models', 'relay', true, undefined, undefined],
      ['POST', '/v1/messages', 'relay', true, undefined, 'x-api-key'],
      ['POST', '/v1/messages/count_tokens', 'relay', true, undefined, 'x-api-key'],
      ['POST', '/v1/responses', 'relay', true, undefined, undefined],
      ['GET', '/v1/openapi.json', 'openapi', undefined, 'none', undefined],
    ]);
    expect(APIS.relay.scope).toBe('relay');
    expect(findRoute('POST', '/api/channel/abc/test')).toMatchObject({
      api: { name: 'proxy' },
      route: { function: 'test-channel' },
    });
    expect(findRoute('GET', '/api/usage')).toMatchObject({ api: { name: 'proxy' }, route: { function: 'usage' } });
    expect(BINARY_MEDIA_TYPES.relay).toEqual([]);
    expect([FUNCTION_ENTRIES.relay, FUNCTION_ENTRIES['test-channel'], FUNCTION_ENTRIES.usage]).toEqual([
      'functions/relay/handler.ts',
      'functions/test-channel/handler.ts',
      'functions/usage/handler.ts',
    ]);
    // The relay streams, and of the knowledge-base API only the export (a CSV beyond a buffered answer's 6 MB).
    const streaming = Object.values(APIS).flatMap((api) =>
      api.routes.filter((r) => r.streaming).map((r) => (api.name === 'relay' ? 'relay' : `${api.name} ${r.path}`)),
    );
    expect(new Set(streaming)).toEqual(new Set(['relay', 'dataset /api/core/dataset/collection/export']));
  });

  it("answers every gateway response of the relay API in OpenAI's error envelope", () => {
    for (const [type, { statusCode, body }] of Object.entries(GATEWAY_RESPONSES.relay)) {
      expect(body, type).toEqual({
        error: {
          message: expect.any(String),
          type: expect.any(String),
          param: null,
          code: expect.toBeOneOf([null, expect.any(String)]),
        },
      });
      expect(statusCode, type).toBeGreaterThanOrEqual(400);
    }
    const codes = (types: GatewayResponseType[]) =>
      types.map((t) => [
        GATEWAY_RESPONSES.relay[t].statusCode,
        (GATEWAY_RESPONSES.relay[t].body.error as { code: unknown }).code,
      ]);
    expect(
      codes(['UNAUTHORIZED', 'ACCESS_DENIED', 'THROTTLED', 'REQUEST_TOO_LARGE', 'MISSING_AUTHENTICATION_TOKEN']),
    ).toEqual([
      [401, 'invalid_api_key'],
      [401, 'invalid_api_key'],
      [429, 'rate_limit_exceeded'],
      [413, 'request_too_large'],
      [404, 'unknown_url'],
    ]);
    expect(GATEWAY_RESPONSE_HEADERS.relay).toEqual({ 'x-request-id': 'context.requestId' });
  });

  it.each(['/v1', '/v1/', '/v1/completions', '/v1/models/gpt-4o', '/v1/chat/completions/x'])(
    'answers an unknown path %j in the relay envelope locally',
    (path) => {
      expect(apiForPath(path).name).toBe('relay');
    },
  );
});

describe('the local gateway in front of the relay API', () => {
  it.each([
    ['x-api-key', { 'x-api-key': RELAY_KEY }],
    ['a bearer token', { Authorization: `Bearer ${RELAY_KEY}` }],
  ])('opens /v1/messages to a relay key in %s (Anthropic SDK apiKey and authToken)', async (_how, headers) => {
    const res = await request('POST', '/v1/messages', { ...headers, 'content-type': 'application/json' }, '{}');

    expect(res.status).toBe(200);
    expect(relayCallerFromContext(seen[0]?.requestContext.authorizer)?.keyId).toBe(CONTEXT.keyId);
  });

  it('refuses /v1/messages without a key, and x-api-key on a route that reads Authorization only', async () => {
    const none = await request('POST', '/v1/messages', { 'content-type': 'application/json' }, '{}');
    const chat = await request('POST', '/v1/chat/completions', { 'x-api-key': RELAY_KEY }, '{}');

    expect([none.status, chat.status]).toEqual([401, 401]);
    expect(seen).toEqual([]);
  });

  it("hands the relay key's context to the function's event, with the key id as principal", async () => {
    const res = await request('GET', '/v1/models', { Authorization: `Bearer ${RELAY_KEY}` });

    expect(res.status).toBe(200);
    const [event] = seen;
    expect(event?.requestContext.authorizer).toEqual({ ...CONTEXT, principalId: CONTEXT.keyId });
    expect(event?.stageVariables).toEqual({ apiName: 'relay' });
    expect(relayCallerFromContext(event?.requestContext.authorizer)).toEqual({
      keyId: CONTEXT.keyId,
      groups: ['vip', 'default'],
      models: ['gpt-4o'],
      expiresAt: null,
    });
  });

  it.each([
    ['no Authorization header', 'POST', '/v1/chat/completions', {}, 401, 'invalid_api_key'],
    [
      'a key the authorizer denies',
      'POST',
      '/v1/chat/completions',
      { Authorization: 'Bearer sk-nope' },
      401,
      'invalid_api_key',
    ],
    ['an unknown /v1 route', 'POST', '/v1/completions', { Authorization: `Bearer ${RELAY_KEY}` }, 404, 'unknown_url'],
    [
      'a method the route does not have',
      'DELETE',
      '/v1/models',
      { Authorization: `Bearer ${RELAY_KEY}` },
      404,
      'unknown_url',
    ],
  ] as const)(
    'answers %s in the OpenAI envelope with x-request-id',
    async (_case, method, path, headers, status, code) => {
      const res = await request(method, path, headers);

      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error: { code, param: null } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-request-id')).toBe(res.headers.get('x-amzn-requestid'));
      expect(seen).toEqual([]);
    },
  );

  it("keeps the other APIs' gateway responses without x-request-id", async () => {
    const res = await request('GET', '/api/channels/nope', {});

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, message: 'No such route' });
    expect(res.headers.get('x-request-id')).toBeNull();
  });
});

describe('relayCallerFromContext', () => {
  it.each([
    ['another scope', { scope: 'admin', tokenId: 'admin' }],
    ['no key id', { ...CONTEXT, keyId: '' }],
    ['no groups', { ...CONTEXT, groups: '[]' }],
    ['groups that are not JSON', { ...CONTEXT, groups: 'vip' }],
    ['models that are not strings', { ...CONTEXT, models: '[1]' }],
    ['nothing', undefined],
  ])('reads no caller from a context with %s (the relay answers 401)', (_case, context) => {
    expect(relayCallerFromContext(context)).toBeUndefined();
  });
});
