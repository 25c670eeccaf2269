import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestBaseUrl } from '#functions/openapi/base-url';
import { loadHandler } from '#test/support/handler';

// The function reads no environment; loaded like every handler, as a cold start.
const { handler } = await loadHandler<typeof import('#functions/openapi/handler')>('#functions/openapi/handler', {});

const sample = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'events', 'openapi.json'), 'utf8'),
) as APIGatewayProxyEvent;
const withHeaders = (headers: Record<string, string>, extra: Partial<APIGatewayProxyEvent> = {}) => ({
  ...sample,
  headers,
  ...extra,
});

describe('the OpenAPI document handler', () => {
  it('serves the document of the API the stage variable names', async () => {
    const dataset = await handler({ ...sample, stageVariables: { apiName: 'dataset' } });
    const proxy = await handler({ ...sample, stageVariables: { apiName: 'proxy' } });
    const relay = await handler({ ...sample, stageVariables: { apiName: 'relay' } });

    expect(JSON.parse(dataset.body).info.title).toBe('Knowledge-base API');
    expect(JSON.parse(proxy.body).info.title).toBe('Channel proxy API');
    expect(JSON.parse(relay.body).info.title).toBe('OpenAI-compatible relay API');
  });

  it("names the relay's stage as the server, so that its /v1 paths follow it", () => {
    const event = withHeaders(
      { Host: 'relay.example.com', 'X-Forwarded-Proto': 'https' },
      { path: '/v1/openapi.json', requestContext: { ...sample.requestContext, path: '/prod/v1/openapi.json' } },
    );

    expect(requestBaseUrl(event)).toBe('https://relay.example.com/prod');
  });

  it('fails on a stage variable naming no API', async () => {
    await expect(handler({ ...sample, stageVariables: { apiName: 'other' } })).rejects.toThrow(
      /Stage variable apiName/,
    );
  });

  it('fails, so that API Gateway answers its 5xx, when the stage variable is missing', async () => {
    await expect(handler({ ...sample, stageVariables: null })).rejects.toThrow(/Stage variable apiName/);
  });

  it('names the execute-api base URL with its stage as the server', () => {
    expect(requestBaseUrl(sample)).toBe('https://abcdef1234.execute-api.us-east-1.amazonaws.com/dev');
  });

  it('names a custom domain without a base path as the server', () => {
    const event = withHeaders(
      { Host: 'api.example.com', 'X-Forwarded-Proto': 'https' },
      { requestContext: { ...sample.requestContext, path: '/openapi.json' } },
    );

    expect(requestBaseUrl(event)).toBe('https://api.example.com');
  });

  it('keeps the committed servers when the Host header is not a plain host name', async () => {
    const event = { ...withHeaders({ Host: 'evil.example/"><script>' }), stageVariables: { apiName: 'dataset' } };

    const response = await handler(event);

    expect(requestBaseUrl(event)).toBeUndefined();
    expect(JSON.parse(response.body).servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:3000' })]);
    expect(response.body).not.toContain('evil');
  });

  it.each([
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['[::1]:3000', 'http://[::1]:3000'],
    ['localhost', 'http://localhost'],
  ])('accepts the local Host %s', (host, base) => {
    const event = withHeaders(
      { Host: host, 'X-Forwarded-Proto': 'http' },
      {
        requestContext: { ...sample.requestContext, path: '/openapi.json' },
      },
    );

    expect(requestBaseUrl(event)).toBe(base);
  });

  it.each(['a b', 'host:99999999', '[zz]:1', '1.2.3.999', 'h.example@evil', ''])('refuses the Host %j', (host) => {
    expect(requestBaseUrl(withHeaders({ Host: host }))).toBeUndefined();
  });

  it('refuses a scheme other than http or https', () => {
    expect(requestBaseUrl(withHeaders({ Host: 'h.example', 'X-Forwarded-Proto': 'javascript' }))).toBeUndefined();
  });
});
