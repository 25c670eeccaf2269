import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { Authorizer } from '#functions/authorizer/authorizer';
import { policyFor } from '#functions/authorizer/policy';
import type { LocalBackend } from '#infra/local/backend';
import { EXTERNAL_ENGINE_CREDENTIALS } from '#infra/local/dynamo-engine';
import { type LocalGateway, startGateway } from '#infra/local/gateway';
import { findRoute } from '#shared/routes';

// The local gateway in front of a recording backend: the real authorizer policy, handlers that only record.
const seen: { events: APIGatewayProxyEvent[]; methodArns: string[] } = { events: [], methodArns: [] };
const backend: LocalBackend = {
  dynamoEndpoint: 'http://unused',
  dynamo: { endpoint: 'http://unused', credentials: EXTERNAL_ENGINE_CREDENTIALS },
  credentialsFile: '/unused',
  credentials: { adminKey: 'unused', accessTokens: [] },
  createdCredentials: false,
  embeddedEngine: true,
  tableNames: {
    datasets: 'datasets',
    channels: 'channels',
    relayKeys: 'relayKeys',
    relayState: 'relayState',
    usage: 'usage',
    kbContent: 'kbContent',
  },
  async authorizer(event: Parameters<Authorizer>[0]) {
    seen.methodArns.push(event.methodArn);
    return policyFor(event.methodArn, { scope: 'admin', tokenId: 'admin', teamId: '', tmbId: '' }).result;
  },
  handlerFor: () => async (event: APIGatewayProxyEvent) => {
    seen.events.push(event);
    return { statusCode: 200, body: '{"success":true,"data":null}' };
  },
  close: async () => {},
};

let gateway: LocalGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  seen.events.length = 0;
  seen.methodArns.length = 0;
});

const get = async (path: string, method = 'GET') => {
  gateway ??= await startGateway(backend, { port: 0 });
  return fetch(`${gateway.url}${path}`, { method, headers: { Authorization: 'Bearer x' } });
};

describe('findRoute', () => {
  it('matches a template and returns its path parameters, literal routes first', () => {
    const id = 'ab'.repeat(32);

    expect(findRoute('GET', `/api/channel/${id}`)).toMatchObject({
      route: { path: '/api/channel/{id}', function: 'get-channel' },
      pathParameters: { id },
    });
    expect(findRoute('POST', '/api/channels/batch_delete')?.route.function).toBe('batch-delete-channels');
    expect(findRoute('POST', '/api/channels/import/legacygw')?.pathParameters).toEqual({});
  });

  it('ignores one trailing slash, and never matches an empty or extra segment', () => {
    expect(findRoute('GET', '/api/channels/')?.route.function).toBe('list-channels');
    expect(findRoute('GET', '/api/channels')?.route.function).toBe('list-channels');
    expect(findRoute('GET', '/api/channel/')).toBeUndefined();
    expect(findRoute('GET', '/api/channel//')).toBeUndefined();
    expect(findRoute('GET', '/api/channel/a/b')).toBeUndefined();
    expect(findRoute('GET', '/api/channels//')).toBeUndefined();
    expect(findRoute('PATCH', '/api/channel/a')).toBeUndefined();
  });
});

describe('the local gateway with path parameters', () => {
  it('fills pathParameters (decoded), resource (the template) and a method ARN with the concrete path', async () => {
    const res = await get('/api/channel/AB%2Fcd');

    expect(res.status).toBe(200);
    const [event] = seen.events;
    expect(event).toMatchObject({
      resource: '/api/channel/{id}',
      path: '/api/channel/AB%2Fcd',
      httpMethod: 'GET',
      pathParameters: { id: 'AB/cd' },
      requestContext: { resourcePath: '/api/channel/{id}' },
    });
    expect(seen.methodArns).toEqual([
      'arn:aws:execute-api:us-east-1:000000000000:localproxy/local/GET/api/channel/AB%2Fcd',
    ]);
  });

  it('passes null pathParameters for a route without parameters, and serves the list with or without its slash', async () => {
    const withSlash = await get('/api/channels/?page=2');
    const without = await get('/api/channels?page=2');

    expect([withSlash.status, without.status]).toEqual([200, 200]);
    expect(seen.events.map((e) => [e.resource, e.path, e.pathParameters, e.queryStringParameters])).toEqual([
      ['/api/channels', '/api/channels/', null, { page: '2' }],
      ['/api/channels', '/api/channels', null, { page: '2' }],
    ]);
  });

  it('gives a parameter named __proto__ to the function as an own property of the query maps', async () => {
    await get('/api/channels/?__proto__=1&__proto__=2');

    const [event] = seen.events;
    expect(Object.hasOwn(event?.multiValueQueryStringParameters ?? {}, '__proto__')).toBe(true);
    expect(Object.entries(event?.multiValueQueryStringParameters ?? {})).toEqual([['__proto__', ['1', '2']]]);
  });
});
