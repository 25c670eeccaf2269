import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type RelayCore, type RelayReply, serveRelay } from '#functions/relay/relay-http';
import type { RelayCaller, RelayRequest } from '#shared/relay/contract';

function event(overrides: Partial<APIGatewayProxyEvent> & { context?: Record<string, string>; ip?: string }) {
  const { context, ip, ...rest } = overrides;
  return {
    resource: '/v1/chat/completions',
    path: '/v1/chat/completions',
    httpMethod: 'POST',
    headers: {},
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    isBase64Encoded: false,
    requestContext: {
      authorizer: context ?? { scope: 'relay', keyId: 'key-1', groups: '["default"]', models: '', ips: '' },
      identity: { sourceIp: ip ?? '203.0.113.7' },
    },
    ...rest,
  } as unknown as APIGatewayProxyEvent;
}

function fakeCore() {
  const requests: RelayRequest[] = [];
  const core: RelayCore = {
    async handle(request) {
      requests.push(request);
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': request.requestId },
        body: (async function* () {
          yield Buffer.from('{"ok":true}');
        })(),
        done: Promise.resolve({} as never),
      };
    },
    async listModels(caller: RelayCaller) {
      return caller.groups.includes('vip') ? ['vip-model'] : ['gpt-4o-mini'];
    },
  };
  return { core, requests };
}

async function text(reply: RelayReply): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of reply.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const serve = (e: APIGatewayProxyEvent, core: RelayCore, now = new Date('2026-11-27T00:00:00Z')) =>
  serveRelay(e, { core, requestId: 'req-1', signal: new AbortController().signal, now: () => now });

describe('the /v1 front door', () => {
  it('hands a chat request to the core with the caller the authorizer named', async () => {
    const { core, requests } = fakeCore();
    const reply = await serve(event({}), core);
    expect(reply.status).toBe(200);
    expect(reply.headers['x-request-id']).toBe('req-1');
    expect(requests[0]).toMatchObject({ endpoint: 'chat', caller: { keyId: 'key-1', groups: ['default'] } });
    expect(requests[0]?.body.model).toBe('gpt-4o-mini');
  });

  it("lists the models of the caller's groups in OpenAI's list shape", async () => {
    const { core } = fakeCore();
    const reply = await serve(
      event({
        resource: '/v1/models',
        path: '/v1/models',
        httpMethod: 'GET',
        body: null,
        context: { scope: 'relay', keyId: 'k', groups: '["vip"]' },
      }),
      core,
    );
    expect(JSON.parse(await text(reply))).toEqual({
      object: 'list',
      data: [{ id: 'vip-model', object: 'model', created: 0, owned_by: 'kb-channel-gateway' }],
    });
  });

  it("refuses a model outside the key's allow-list with 403 before any upstream is asked", async () => {
    const { core, requests } = fakeCore();
    const reply = await serve(
      event({ context: { scope: 'relay', keyId: 'k', groups: '["default"]', models: '["gpt-4o"]' } }),
      core,
    );
    expect(reply.status).toBe(403);
    expect(JSON.parse(await text(reply)).error).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    expect(requests).toHaveLength(0);
  });

  it("refuses a caller outside the key's IP allow-list with 403", async () => {
    const { core, requests } = fakeCore();
    const context = { scope: 'relay', keyId: 'k', groups: '["default"]', ips: '["10.0.0.0/8","192.0.2.1"]' };
    const outside = await serve(event({ context, ip: '203.0.113.7' }), core);
    const inside = await serve(event({ context, ip: '10.1.2.3' }), core);
    expect(outside.status).toBe(403);
    expect(JSON.parse(await text(outside)).error.code).toBe('ip_not_allowed');
    expect(inside.status).toBe(200);
    expect(requests).toHaveLength(1);
  });

  it("refuses a key that expired while the authorizer's Allow was cached", async () => {
    const { core, requests } = fakeCore();
    const context = { scope: 'relay', keyId: 'k', groups: '["default"]', expiresAt: '2026-11-26T00:00:00Z' };
    const reply = await serve(event({ context }), core);
    expect(reply.status).toBe(401);
    expect(JSON.parse(await text(reply)).error.code).toBe('invalid_api_key');
    expect(requests).toHaveLength(0);
  });

  it("answers 401 in OpenAI's envelope to any credential that is not a relay key", async () => {
    const { core } = fakeCore();
    for (const context of [{ scope: 'admin', tokenId: 'admin' }, { scope: 'dataset', tokenId: 't' }, {}]) {
      const reply = await serve(event({ context: context as Record<string, string> }), core);
      expect(reply.status).toBe(401);
      expect(JSON.parse(await text(reply))).toEqual({
        error: {
          message: 'A relay key (sk-...) is required for this API',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
  });

  it('answers 400 naming the field for a body without a model, and for a body that is not a JSON object', async () => {
    const { core, requests } = fakeCore();
    const noModel = await serve(event({ body: '{"messages":[]}' }), core);
    const notJson = await serve(event({ body: '{"model":' }), core);
    const array = await serve(event({ body: '[]' }), core);
    expect(noModel.status).toBe(400);
    expect(JSON.parse(await text(noModel)).error.param).toBe('model');
    expect(notJson.status).toBe(400);
    expect(array.status).toBe(400);
    expect(requests).toHaveLength(0);
  });
});
