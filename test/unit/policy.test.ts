import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { denyPolicy, type Principal, parseMethodArn, policyFor } from '#functions/authorizer/policy';
import { evaluatePolicy, resourceMatches } from '#infra/local/policy';
import { APIS, type ApiName, type RouteDef, requiresAuthorizer, routeResourcePatterns } from '#shared/routes';

const PREFIX = 'arn:aws:execute-api:eu-west-1:123456789012';
const methodArn = (apiId: string, route: { method: string; path: string }, stage = 'prod') =>
  `${PREFIX}:${apiId}/${stage}/${route.method}${route.path}`;
/** The Allow resources a policy lists for `routes`: each route's patterns, `{id}` as `*`, with and without a trailing slash. */
const allowedPatterns = (apiId: string, routes: readonly RouteDef[], stage = 'prod') =>
  routes.flatMap((r) => routeResourcePatterns(r).map((p) => `${PREFIX}:${apiId}/${stage}/${r.method}${p}`));
/** A concrete path of a route: a path parameter filled in as a client would. */
const concrete = (route: { method: string; path: string }) => ({
  method: route.method,
  path: route.path.replace(/\{[^}]+\}/g, 'c0ffee'.repeat(10).slice(0, 64)),
});
const datasetRoute = APIS.dataset.routes[0]!;
const proxyRoute = APIS.proxy.routes[0]!;

const ACCESS: Principal = {
  scope: 'dataset',
  tokenId: 'tok-1',
  teamId: '65a0c0ffee0000000000beef',
  tmbId: '65a0c0ffee0000000000f00d',
};
const ADMIN: Principal = { scope: 'admin', tokenId: 'admin', teamId: '', tmbId: '' };

function resources(result: APIGatewayAuthorizerResult, effect: 'Allow' | 'Deny'): string[] {
  return result.policyDocument.Statement.filter((s) => s.Effect === effect).flatMap((s) => {
    const r = (s as { Resource?: string | string[] }).Resource;
    return r === undefined ? [] : Array.isArray(r) ? r : [r];
  });
}

/** Every method ARN of `api` under a few API ids and stages, including the one the policy was made for. */
function methodArnsOf(api: ApiName, apiIds: string[]): string[] {
  return APIS[api].routes.flatMap((route) =>
    apiIds.flatMap((apiId) => ['prod', 'dev'].map((stage) => methodArn(apiId, concrete(route), stage))),
  );
}

describe('parseMethodArn', () => {
  it('splits a method ARN into its parts', () => {
    expect(parseMethodArn(methodArn('a1b2c3', datasetRoute))).toEqual({
      partition: 'aws',
      region: 'eu-west-1',
      accountId: '123456789012',
      apiId: 'a1b2c3',
      stage: 'prod',
      method: 'POST',
      resourcePath: '/api/core/dataset/create',
    });
  });

  it.each([
    [''],
    ['not an arn'],
    ['arn:aws:lambda:eu-west-1:123456789012:function:f'],
    [`${PREFIX}:a1b2c3`],
    [`${PREFIX}:*/prod/POST/api/core/dataset/create`],
    [`${PREFIX}:a1b2c3/*/POST/api/core/dataset/create`],
    [`${PREFIX}:a1b2c3/prod/POST/api/core/dataset/creat?`],
  ])('refuses %j', (arn) => {
    expect(parseMethodArn(arn)).toBeUndefined();
  });
});

describe('policyFor', () => {
  it('allows an access token exactly the dataset routes of the same API and stage, with its context', () => {
    const arn = methodArn('a1b2c3', datasetRoute);

    const { result, denied } = policyFor(arn, ACCESS);

    expect(denied).toBeUndefined();
    expect(result.principalId).toBe('tok-1');
    expect(resources(result, 'Allow')).toEqual(
      allowedPatterns('a1b2c3', APIS.dataset.routes.filter(requiresAuthorizer)),
    );
    expect(resources(result, 'Deny')).toEqual([]);
    expect(result.context).toEqual({
      scope: 'dataset',
      teamId: ACCESS.teamId,
      tmbId: ACCESS.tmbId,
      tokenId: 'tok-1',
    });
    expect(evaluatePolicy(result, arn)).toBe('allow');
  });

  it('allows the admin key the proxy routes, with empty team and member in the context', () => {
    const arn = methodArn('p9q8r7', proxyRoute, 'v1');

    const { result, denied } = policyFor(arn, ADMIN);

    expect(denied).toBeUndefined();
    expect(result.principalId).toBe('admin');
    expect(resources(result, 'Allow')).toEqual(
      allowedPatterns('p9q8r7', APIS.proxy.routes.filter(requiresAuthorizer), 'v1'),
    );
    expect(result.context).toEqual({ scope: 'admin', teamId: '', tmbId: '', tokenId: 'admin' });
  });

  it('allows the admin key every concrete path of the proxy routes, path parameters and a trailing slash included', () => {
    const { result } = policyFor(methodArn('p9q8r7', proxyRoute), ADMIN);
    const id = 'ab'.repeat(32);

    const decisions = [
      `GET/api/channels`,
      `GET/api/channels/`,
      `GET/api/channel/${id}`,
      `PUT/api/channel/${id}`,
      `DELETE/api/channel/${id}`,
      `POST/api/channels/batch_delete`,
    ].map((tail) => evaluatePolicy(result, `${PREFIX}:p9q8r7/prod/${tail}`));
    const otherMethod = evaluatePolicy(result, `${PREFIX}:p9q8r7/prod/POST/api/channel/${id}`);

    expect(decisions).toEqual(Array(6).fill('allow'));
    expect(otherMethod).toBe('deny');
  });

  it('finds the route of a method ARN that holds a concrete id and allows the admin key on it', () => {
    const arn = `${PREFIX}:p9q8r7/prod/GET/api/channel/${'0'.repeat(64)}`;

    const { result, denied } = policyFor(arn, ADMIN);

    expect(denied).toBeUndefined();
    expect(evaluatePolicy(result, arn)).toBe('allow');
  });

  it('gives an access token on the channel proxy API an Allow that covers none of its methods', () => {
    const arn = methodArn('p9q8r7', proxyRoute);

    const { result, denied, coversMethod } = policyFor(arn, ACCESS);

    expect(denied).toBeUndefined();
    expect(coversMethod).toBe(false);
    expect(resources(result, 'Allow')).toEqual(
      allowedPatterns('p9q8r7', APIS.dataset.routes.filter(requiresAuthorizer)),
    );
    for (const proxyArn of methodArnsOf('proxy', ['p9q8r7'])) expect(evaluatePolicy(result, proxyArn)).toBe('deny');
  });

  it('gives the admin key on the knowledge-base API an Allow that covers none of its methods', () => {
    const arn = methodArn('a1b2c3', datasetRoute);

    const { result, denied, coversMethod } = policyFor(arn, ADMIN);

    expect(denied).toBeUndefined();
    expect(coversMethod).toBe(false);
    for (const datasetArn of methodArnsOf('dataset', ['a1b2c3'])) {
      expect(evaluatePolicy(result, datasetArn)).toBe('deny');
    }
  });

  it('decides the same for a valid token whatever path or method it is asked about', () => {
    const asked = [
      concrete(proxyRoute),
      { method: 'GET', path: '/api/core/dataset/create' },
      { method: 'GET', path: '/api/channel/a/b' },
      { method: 'DELETE', path: '/no/such/route' },
      { method: 'GET', path: '/' },
    ];

    const policies = asked.map((route) => policyFor(methodArn('p9q8r7', route), ADMIN).result);

    for (const policy of policies) expect(policy).toEqual(policies[0]);
    expect(resources(policies[0]!, 'Deny')).toEqual([]);
  });

  // API Gateway caches the first decision for a token and applies it to every later call with it
  // (authorizer TTL, 60 s by default). An admin request to a path the route table does not match, such as
  // `/api/channel/a%2Fb` (a slash inside the id), used to cache a Deny that refused every call of the admin key.
  it('leaves every route of the API open after the first call went to a path no route matches', () => {
    const cached = policyFor(methodArn('p9q8r7', { method: 'GET', path: '/api/channel/a/b' }), ADMIN).result;

    const later = APIS.proxy.routes
      .filter(requiresAuthorizer)
      .map((route) => evaluatePolicy(cached, methodArn('p9q8r7', concrete(route))));

    expect(later.length).toBeGreaterThan(0);
    expect(later.every((decision) => decision === 'allow')).toBe(true);
  });

  it('denies everything when the method ARN cannot be parsed', () => {
    const { result, denied } = policyFor('arn:aws:execute-api:*', ACCESS);

    expect(denied).toBe('unparseable-method-arn');
    expect(resources(result, 'Deny')).toEqual(['*']);
    expect(resources(result, 'Allow')).toEqual([]);
  });

  it("never lets an access token's policy cover a method of the channel proxy API", () => {
    const { result } = policyFor(methodArn('a1b2c3', datasetRoute), ACCESS);
    const proxyArns = methodArnsOf('proxy', ['a1b2c3', 'p9q8r7']);

    const covered = resources(result, 'Allow').filter((r) => proxyArns.some((arn) => resourceMatches(r, arn)));

    expect(resources(result, 'Allow').length).toBeGreaterThan(0);
    expect(covered).toEqual([]);
    for (const arn of proxyArns) expect(evaluatePolicy(result, arn)).toBe('deny');
  });

  it("never lets the admin key's policy cover a method of the knowledge-base API", () => {
    const { result } = policyFor(methodArn('p9q8r7', proxyRoute), ADMIN);
    const datasetArns = methodArnsOf('dataset', ['a1b2c3', 'p9q8r7']);

    const covered = resources(result, 'Allow').filter((r) => datasetArns.some((arn) => resourceMatches(r, arn)));

    expect(resources(result, 'Allow').length).toBeGreaterThan(0);
    expect(covered).toEqual([]);
    for (const arn of datasetArns) expect(evaluatePolicy(result, arn)).toBe('deny');
  });

  it('never allows a method of the other scope, whatever method ARN it is asked about', () => {
    const part = fc.stringMatching(/^[a-zA-Z0-9*?-]{1,8}$/);
    const anyRoute = fc.constantFrom(...APIS.dataset.routes, ...APIS.proxy.routes, { method: 'GET', path: '/x' });
    fc.assert(
      fc.property(part, part, anyRoute, fc.constantFrom(ACCESS, ADMIN), (apiId, stage, route, principal) => {
        const { result } = policyFor(methodArn(apiId, route, stage), principal);
        const other: ApiName = principal.scope === 'dataset' ? 'proxy' : 'dataset';
        const otherArns = methodArnsOf(other, [apiId.replace(/[*?]/g, 'x'), 'zzz']);
        return resources(result, 'Allow').every((r) => otherArns.every((arn) => !resourceMatches(r, arn)));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the public routes (auth none) out of the Allow list: API Gateway never asks about them', () => {
    const publicRoutes = APIS.proxy.routes.filter((r) => r.auth === 'none');

    const { result } = policyFor(methodArn('p9q8r7', proxyRoute), ADMIN);

    expect(publicRoutes.length).toBeGreaterThan(0);
    for (const route of publicRoutes) expect(resources(result, 'Allow')).not.toContain(methodArn('p9q8r7', route));
  });
});

describe('denyPolicy', () => {
  it('denies the whole stage of the API the method belongs to', () => {
    const arn = methodArn('a1b2c3', datasetRoute);

    const { result, denied } = denyPolicy(arn, 'unknown', 'unknown-token');

    expect(denied).toBe('unknown-token');
    expect(result.principalId).toBe('unknown');
    expect(resources(result, 'Deny')).toEqual([`${PREFIX}:a1b2c3/prod/*`]);
    expect(result.context).toBeUndefined();
    expect(evaluatePolicy(result, arn)).toBe('deny');
  });
});
