import { createVerify, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServable } from '#shared/relay/providers/index';
import { VERTEX_SCOPE, VertexTokens, vertexBaseUrl, vertexTokens } from '#shared/relay/providers/vertex';
import { type FakeUpstream, startFakeOpenAi } from '#test/support/fake-upstreams';
import { channel, chatRequest, complete, testRelay } from '#test/support/relay-fixtures';

// Vertex AI (docs/relay.md, "Providers"): the service account exchanged for a token at a fake token endpoint written
// from Google's server-to-server OAuth reference, then Vertex's OpenAI-compatible endpoint (the fake OpenAI upstream).

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ACCESS_TOKEN = 'ya29.fake-access-token-0123456789';

let tokenServer: Server;
let tokenUri: string;
let upstream: FakeUpstream;
const exchanges: Record<string, unknown>[] = [];
let refuse = false;

beforeAll(async () => {
  tokenServer = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const [header = '', claims = '', signature = ''] = (form.get('assertion') ?? '').split('.');
    const valid = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
    exchanges.push({
      grant: form.get('grant_type'),
      valid,
      header: JSON.parse(Buffer.from(header, 'base64url').toString()),
      payload,
    });
    if (refuse || !valid) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":"invalid_grant","error_description":"Invalid JWT Signature."}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: ACCESS_TOKEN, expires_in: 3599, token_type: 'Bearer' }));
  });
  tokenServer.listen(0, '127.0.0.1');
  await once(tokenServer, 'listening');
  tokenUri = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
  upstream = await startFakeOpenAi({ key: ACCESS_TOKEN });
});

afterAll(async () => {
  tokenServer.close();
  await upstream.close();
});

const serviceAccount = () =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'json-project',
    private_key_id: 'kid-1',
    private_key: PRIVATE_PEM,
    client_email: 'relay@json-project.iam.gserviceaccount.com',
    token_uri: tokenUri,
  });

const vertexChannel = (id: string) =>
  channel({
    id,
    provider: 'vertex-ai',
    baseUrl: upstream.url,
    key: `europe-west4|my-project|${serviceAccount()}`,
    models: ['gemini-2.0-flash'],
  });

describe('Vertex AI through the relay', () => {
  it('exchanges the service account for a token once, then calls the OpenAI endpoint with it', async () => {
    vertexTokens.clear();
    exchanges.length = 0;
    const { relay, usage } = testRelay([vertexChannel('v1')]);

    const first = await complete(await relay.handle(chatRequest({ model: 'gemini-2.0-flash' })));
    const second = await complete(await relay.handle(chatRequest({ model: 'gemini-2.0-flash', stream: true })));

    expect(JSON.parse(first.text).choices[0].message.content).toBe('Hello from the fake');
    expect(second.text).toContain('data: [DONE]');
    expect(exchanges).toEqual([
      {
        grant: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        valid: true,
        header: { alg: 'RS256', typ: 'JWT', kid: 'kid-1' },
        payload: {
          iss: 'relay@json-project.iam.gserviceaccount.com',
          scope: VERTEX_SCOPE,
          aud: tokenUri,
          iat: expect.any(Number),
          exp: expect.any(Number),
        },
      },
    ]);
    const sent = upstream.requests.slice(-2);
    expect(sent.map((r) => r.path)).toEqual([
      '/v1/projects/my-project/locations/europe-west4/endpoints/openapi/chat/completions',
      '/v1/projects/my-project/locations/europe-west4/endpoints/openapi/chat/completions',
    ]);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(sent[0]?.body?.model).toBe('google/gemini-2.0-flash');
    expect(usage.records.map((r) => r.status)).toEqual([200, 200]);
  });

  it('fails the attempt when the exchange is refused, never showing the key or the assertion', async () => {
    vertexTokens.clear();
    refuse = true;
    const { relay, usage } = testRelay([vertexChannel('v2')]);

    const answer = await complete(await relay.handle(chatRequest({ model: 'gemini-2.0-flash' })));
    refuse = false;

    expect(answer.record.status).toBe(503);
    expect(answer.text).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(usage.records)).not.toContain('PRIVATE KEY');
    expect(answer.record.attempts).toEqual([{ channelId: 'v2', status: 0, errorClass: 'connect' }]);
  });

  it('reuses a token until a minute before it expires', async () => {
    let now = 1_000_000;
    const tokens = new VertexTokens(() => now);
    let calls = 0;
    const post = async () => {
      calls++;
      return { status: 200, text: JSON.stringify({ access_token: `t${calls}`, expires_in: 3600 }) };
    };

    const a = await tokens.token(serviceAccount(), post);
    now += 3600_000 - 61_000;
    const b = await tokens.token(serviceAccount(), post);
    now += 2_000;
    const c = await tokens.token(serviceAccount(), post);

    expect([a, b, c, calls]).toEqual(['t1', 't1', 't2', 2]);
  });

  it('is servable, with the region and project of the key, else of the settings and the JSON', () => {
    const bare = channel({ id: 'b', provider: 'vertex-ai', key: serviceAccount(), settings: { region: 'global' } });

    expect(isServable('vertex-ai')).toBe(true);
    expect(vertexBaseUrl(bare)).toBe(
      'https://aiplatform.googleapis.com/v1/projects/json-project/locations/global/endpoints/openapi',
    );
  });
});
