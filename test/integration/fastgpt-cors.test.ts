import { describe, expect, it } from 'vitest';
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS } from '#shared/cors';
import { useTestServer } from '#test/support/local-server';
import { KB_PATHS, kbClient } from './knowledge-base.helpers.ts';

// docs/knowledge-base-api.md, "Cross-origin requests" and "Methods and unknown routes", against the local server:
// the knowledge-base API answers as FastGPT's withNextCors (packages/service/common/middle/cors.ts); the channel
// proxy API answers no cross-origin request.

const server = useTestServer();
const ORIGIN = 'https://kb-client.example';
const token = () => `Bearer ${server.credentials.accessTokens[0]?.token}`;

describe('the knowledge-base API from another origin', () => {
  it('answers the preflight of a route 200, any origin, with the methods and headers FastGPT clients use', async () => {
    const response = await fetch(`${server.url}${KB_PATHS.update}`, {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toBe(CORS_ALLOW_METHODS.join(','));
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(response.headers.get('access-control-allow-headers')).toBe(CORS_ALLOW_HEADERS.join(','));
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it("reflects the caller's Origin on a call's answer, success or error, as FastGPT does, and never allows credentials", async () => {
    const headers = { Origin: ORIGIN, Authorization: token(), 'Content-Type': 'application/json' };

    const ok = await fetch(`${server.url}${KB_PATHS.list}`, { method: 'POST', headers, body: '{}' });
    const bad = await fetch(`${server.url}${KB_PATHS.detail}`, { headers });

    for (const response of [ok, bad]) {
      expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(response.headers.get('vary')).toBe('Origin');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
    expect([ok.status, bad.status]).toEqual([200, 400]);
  });

  it("lets a page read the gateway's own 401 and 404", async () => {
    const unauthorized = await fetch(`${server.url}${KB_PATHS.list}`, { method: 'POST', headers: { Origin: ORIGIN } });
    const unknown = await fetch(`${server.url}/api/core/dataset/nope`, { headers: { Origin: ORIGIN } });

    expect([unauthorized.status, unknown.status]).toEqual([401, 404]);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe('*');
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
    expect(await unknown.json()).toEqual({ code: 404, statusText: 'notFound', message: 'No such route', data: null });
  });
});

describe('methods and unknown routes', () => {
  it("answers a method a route does not serve with the API's own 404, as an unknown route", async () => {
    const wrongMethod = await fetch(`${server.url}${KB_PATHS.create}`, { headers: { Authorization: token() } });
    const unknown = await fetch(`${server.url}/api/core/dataset/no-such-call`, {
      method: 'POST',
      headers: { Authorization: token() },
    });

    for (const response of [wrongMethod, unknown]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        code: 404,
        statusText: 'notFound',
        message: 'No such route',
        data: null,
      });
    }
  });
});

describe('update, as FastGPT takes it', () => {
  it('answers POST as it answers PUT', async () => {
    const api = kbClient(server, token());
    const id = await api.make({ name: 'before' });

    const response = await fetch(`${server.url}${KB_PATHS.update}`, {
      method: 'POST',
      headers: { Authorization: token(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ id, name: 'after POST' }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ code: 200, statusText: '', message: '', data: null });
    expect(((await api.detail({ id })).body.data as { name: string }).name).toBe('after POST');
  });
});

describe('the channel proxy API refuses cross-origin use', () => {
  it('answers no preflight and sends no CORS header, whatever the Origin', async () => {
    const preflight = await fetch(`${server.url}/api/channels/import/legacygw`, {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    const call = await fetch(`${server.url}/api/channels?page=1&per_page=1`, {
      headers: { Origin: ORIGIN, Authorization: `Bearer ${server.credentials.adminKey}` },
    });
    const denied = await fetch(`${server.url}/api/channels`, { headers: { Origin: ORIGIN } });

    expect([preflight.status, call.status, denied.status]).toEqual([404, 200, 401]);
    for (const response of [preflight, call, denied]) {
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
