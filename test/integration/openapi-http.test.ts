import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DOCUMENT_FILES } from '#openapi/document';
import type { ApiName } from '#shared/routes';
import { startTestServer, type TestServer } from '#test/support/local-server';

const committed = (api: ApiName) =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', DOCUMENT_FILES[api]), 'utf8')) as Record<
    string,
    unknown
  >;

let server: TestServer;
beforeAll(async () => {
  vi.stubEnv('LOG_LEVEL', 'SILENT');
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
});

describe('GET /openapi.json on the local server', () => {
  it("answers the knowledge-base API's document without a token, its server the local base URL", async () => {
    const response = await fetch(`${server.url}/openapi.json`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ ...committed('dataset'), servers: [{ url: server.url }] });
  });

  it("answers the channel proxy API's document at /api/channels/openapi.json without a token", async () => {
    const response = await fetch(`${server.url}/api/channels/openapi.json`);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ...committed('proxy'), servers: [{ url: server.url }] });
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
