import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { committedDocuments } from '#test/support/contract';
import { startTestServer, type TestServer } from '#test/support/local-server';

const committed = committedDocuments();

// Public routes only: no authorizer and no function that logs, so nothing to quieten.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('GET /openapi.json on the local server', () => {
  it("answers the knowledge-base API's document without a token, its server the local base URL", async () => {
    const response = await fetch(`${server.url}/openapi.json`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ ...committed.dataset, servers: [{ url: server.url }] });
  });

  it("answers the channel proxy API's document at /api/channels/openapi.json without a token", async () => {
    const response = await fetch(`${server.url}/api/channels/openapi.json`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...committed.proxy, servers: [{ url: server.url }] });
  });

  it("answers the relay API's document at /v1/openapi.json without a key", async () => {
    const response = await fetch(`${server.url}/v1/openapi.json`, { headers: { Authorization: 'Bearer sk-nope' } });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({ ...committed.relay, servers: [{ url: server.url }] });
  });

  it('answers another method of /v1/openapi.json in the relay envelope (no such route)', async () => {
    const response = await fetch(`${server.url}/v1/openapi.json`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'unknown_url' } });
  });

  it('answers whatever Authorization header comes along: the route has no authorizer', async () => {
    const admin = await fetch(`${server.url}/openapi.json`, {
      headers: { Authorization: `Bearer ${server.credentials.adminKey}` },
    });
    const garbage = await fetch(`${server.url}/api/channels/openapi.json`, {
      headers: { Authorization: 'Bearer nope' },
    });

    expect([admin.status, garbage.status]).toEqual([200, 200]);
    expect(((await admin.json()) as { info: { title: string } }).info.title).toBe('Knowledge-base API');
    expect(((await garbage.json()) as { info: { title: string } }).info.title).toBe('Channel proxy API');
  });

  it('lets a browser-based API tool on another origin read it', async () => {
    const response = await fetch(`${server.url}/openapi.json`, { headers: { Origin: 'https://editor.example' } });

    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps the other methods of the path unrouted (404 in the API envelope), token or not', async () => {
    const response = await fetch(`${server.url}/openapi.json`, { method: 'POST', body: '{}' });

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 404, statusText: 'notFound', message: 'No such route', data: null });
  });

  it('still requires a token on every other route', async () => {
    const response = await fetch(`${server.url}/api/core/dataset/create`, { method: 'POST', body: '{"name":"x"}' });

    expect(response.status).toBe(401);
  });
});
