import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '#test/support/local-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Sends a request with a raw request-target (fetch would normalise `//x/...`). */
function raw(method: string, target: string, body = ''): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  const token = server.credentials.accessTokens[0]?.token;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method,
        path: target,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const NOT_FOUND = { code: 404, statusText: 'notFound', message: 'No such route', data: null };

describe('the local gateway', () => {
  it('does not read a path that starts with // as a host name', async () => {
    const res = await raw('POST', '//x/api/core/dataset/create', '{"name":"n"}');

    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual(NOT_FOUND);
  });

  it('answers a method the route does not have with the 404 gateway response', async () => {
    const res = await raw('GET', '/api/core/dataset/create');

    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual(NOT_FOUND);
  });

  it("answers an unknown proxy path in the proxy API's envelope", async () => {
    const res = await raw('POST', '/api/channels/import/unknown', '{}');

    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ success: false, message: 'No such route' });
  });

  it('keeps query parameters and headers named __proto__ or toString as plain entries instead of failing', async () => {
    const res = await fetch(`${server.url}/console?__proto__=1&toString=2&hasOwnProperty=3`, {
      headers: { toString: 'x', __proto__: 'y' } as unknown as Record<string, string>,
    });

    expect(res.status).toBe(200);
  });

  it('rejects a body over API Gateway payload limit with 413 in the envelope', async () => {
    const res = await raw('POST', '/api/core/dataset/create', 'x'.repeat(10 * 1024 * 1024 + 1));

    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 507000, statusText: 'invalidParams', data: null });
  });

  it('passes the query string and path to the function as a REST proxy event would', async () => {
    const res = await raw('POST', '/api/core/dataset/create?x=1', '{"name":"with query"}');

    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ code: 200 });
  });

  it('hands GET query parameters to the function, the last of a repeated name winning, as API Gateway does', async () => {
    const id = JSON.parse((await raw('POST', '/api/core/dataset/create', '{"name":"queried"}')).body).data as string;

    const res = await raw('GET', `/api/core/dataset/detail?id=ffffffffffffffffffffffff&id=${id}`);

    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data).toMatchObject({ _id: id, name: 'queried' });
  });

  it('passes a query parameter named __proto__ as a plain name instead of failing with a 500', async () => {
    const res = await raw('GET', '/api/core/dataset/detail?__proto__=1&__proto__=2');

    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 507004, statusText: 'missingParams' });
  });
});

describe('the public console route (auth none)', () => {
  it('serves GET /console without any Authorization header, with the page headers', async () => {
    const res = await fetch(`${server.url}/console`);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'sha256-/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toMatch(/^<!doctype html>/);
  });

  it('never runs the authorizer for it: a wrong bearer token still gets the page', async () => {
    const res = await fetch(`${server.url}/console`, { headers: { Authorization: 'Bearer not-a-key' } });

    expect(res.status).toBe(200);
  });

  it('keeps the authorizer on every other proxy route: the import without a token is a 401 in the proxy envelope', async () => {
    const res = await fetch(`${server.url}/api/channels/import/legacygw`, { method: 'POST', body: '{}' });

    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ success: false, message: expect.stringMatching(/Authorization/) });
  });

  it("answers a method the console route does not have with the proxy API's 404", async () => {
    const res = await raw('POST', '/console', '{}');

    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ success: false, message: 'No such route' });
  });
});
