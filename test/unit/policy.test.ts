import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  denyPolicy,
  type Principal,
  parseMethodArn,
  policyFor,
  UnusableMethodArnError,
} from '#functions/authorizer/policy';
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
const RELAY: Principal = {
  scope: 'relay',
  context: {
    scope: 'relay',
    keyId: '0123456789abcdef01234567',
    groups: '["vip","default"]',
    models: '',
    ips: '["10.0.0.0/8"]',
    expiresAt: '2999-01-01T00:00:00.000Z',
  },
};
const relayRoute = APIS.relay.routes[0]!;

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
    [`${PREFIX}:a1?2c3/prod/POST/api/core/dataset/create`],
    [`arn:aws:execute-api:eu-west-1:*:a1b2c3/prod/POST/api/core/dataset/create`],
    [`arn:aws:execute-api:eu-*:123456789012:a1b2c3/prod/POST/api/core/dataset/create`],
    [`arn:*:execute-api:eu-west-1:123456789012:a1b2c3/prod/POST/api/core/dataset/create`],
  ])("refuses %j: a part the policy copies holds a wildcard or is not API Gateway's shape", (arn) => {
    expect(parseMethodArn(arn)).toBeUndefined();
  });

  it.each([
    ['/api/core/dataset/creat?', '?'],
    ['/api/channel/*', '*'],
    ['/api/channel/a*b?c', 'both'],
  ])('keeps the path %j as sent (%s): the policy never copies it', (path) => {
    expect(parseMethodArn(`${PREFIX}:a1b2c3/prod/GET${path}`)?.resourcePath).toBe(path);
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

  it('refuses to build a policy for a valid credential when the API id, stage or account of the ARN cannot be used', () => {
    for (const arn of ['arn:aws:execute-api:*', `${PREFIX}:*/prod/GET/api/channels`, `${PREFIX}:p9q8r7/pro?/GET/x`]) {
      expect(() => policyFor(arn, ACCESS), arn).toThrow(UnusableMethodArnError);
      expect(() => policyFor(arn, ADMIN), arn).toThrow(UnusableMethodArnError);
    }
  });

  // The Allow never depends on the method ARN's characters. The first request of a valid credential to a path
  // holding `*` or `?` used to get a Deny of `*`, which API Gateway cached for every route of the token.
  it.each(['/api/channel/*', '/api/channel/a?b', '/api/channels/*/?', '/*'])(
    'gives the admin key its full scoped Allow after a first request to %j, never a Deny',
    (path) => {
      const reference = policyFor(methodArn('p9q8r7', concrete(proxyRoute)), ADMIN).result;

      const { result, denied } = policyFor(`${PREFIX}:p9q8r7/prod/GET${path}`, ADMIN);

      expect(denied).toBeUndefined();
      expect(result).toEqual(reference);
      expect(resources(result, 'Deny')).toEqual([]);
      const later = APIS.proxy.routes
        .filter(requiresAuthorizer)
        .map((route) => evaluatePolicy(result, methodArn('p9q8r7', concrete(route))));
      expect(later.every((decision) => decision === 'allow')).toBe(true);
    },
  );

  it('gives an access token its scoped Allow whatever wildcard its first path holds', () => {
    const reference = policyFor(methodArn('a1b2c3', datasetRoute), ACCESS).result;

    const policies = ['/api/core/dataset/*', '/api/core/dataset/li?t', '/**'].map(
      (path) => policyFor(`${PREFIX}:a1b2c3/prod/POST${path}`, ACCESS).result,
    );

    for (const policy of policies) expect(policy).toEqual(reference);
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
      fc.property(part, part, anyRoute, fc.constantFrom(ACCESS, ADMIN, RELAY), (apiId, stage, route, principal) => {
        let result: APIGatewayAuthorizerResult;
        try {
          result = policyFor(methodArn(apiId, route, stage), principal).result;
        } catch (error) {
          // A wildcard in the API id or stage: no policy at all (the authorizer fails closed, nothing is cached).
          return error instanceof UnusableMethodArnError && /[*?]/.test(apiId + stage);
        }
        const others = (Object.keys(APIS) as ApiName[]).filter((api) => APIS[api].scope !== principal.scope);
        const otherArns = others.flatMap((other) => methodArnsOf(other, [apiId, 'zzz']));
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

describe('policyFor a relay key', () => {
  it('allows exactly the relay routes of the same API and stage, with the key id as principal and its limits as context', () => {
    const arn = methodArn('r1e2l3', relayRoute);

    const { result, denied, coversMethod } = policyFor(arn, RELAY);

    expect(denied).toBeUndefined();
    expect(coversMethod).toBe(true);
    expect(result.principalId).toBe('0123456789abcdef01234567');
    // Its public document (`auth: 'none'`) never reaches the authorizer, so the policy does not list it.
    expect(resources(result, 'Allow')).toEqual(allowedPatterns('r1e2l3', APIS.relay.routes.filter(requiresAuthorizer)));
    expect(result.context).toEqual(RELAY.scope === 'relay' ? RELAY.context : undefined);
    for (const route of APIS.relay.routes.filter(requiresAuthorizer))
      expect(evaluatePolicy(result, methodArn('r1e2l3', route))).toBe('allow');
  });

  it('opens no method of the knowledge-base or channel proxy API, whichever API it was asked about', () => {
    for (const asked of [methodArn('a1b2c3', datasetRoute), methodArn('p9q8r7', proxyRoute)]) {
      const { result } = policyFor(asked, RELAY);
      const otherArns = [
        ...methodArnsOf('dataset', ['a1b2c3', 'p9q8r7']),
        ...methodArnsOf('proxy', ['a1b2c3', 'p9q8r7']),
      ];
      for (const arn of otherArns) expect(evaluatePolicy(result, arn)).toBe('deny');
    }
  });

  it('is never opened by the admin key or an access token: their Allow covers no relay route', () => {
    for (const principal of [ADMIN, ACCESS]) {
      const { result, coversMethod } = policyFor(methodArn('r1e2l3', relayRoute), principal);

      expect(coversMethod).toBe(false);
      for (const arn of methodArnsOf('relay', ['r1e2l3'])) expect(evaluatePolicy(result, arn)).toBe('deny');
    }
  });

  it('keeps its scoped Allow after a first request whose path holds * or ?', () => {
    const reference = policyFor(methodArn('r1e2l3', relayRoute), RELAY).result;

    const { result } = policyFor(`${PREFIX}:r1e2l3/prod/POST/v1/*/completions?`, RELAY);

    expect(result).toEqual(reference);
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
