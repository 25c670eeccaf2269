import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '#shared/config';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '#shared/gateway-responses';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import { APIS, type ApiName, type FunctionName } from '#shared/routes';
import { TABLES, type TableName } from '#shared/tables';
import { arnOf, logicalId, permissionsOf, refOf, removeTempDirs, synthStack } from './synth.ts';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;

// One synthesis for the default (dev) stage, shared by the read-only assertions below.
const { stack, template } = synthStack();
const id = {
  table: (name: TableName) => logicalId(stack, stack.tables[name].table),
  role: (name: FunctionName) => logicalId(stack, stack.functions[name].role),
  fn: (name: FunctionName) => logicalId(stack, stack.functions[name].function),
  logs: (name: FunctionName) => logicalId(stack, stack.functions[name].logGroup),
  api: (name: ApiName) => logicalId(stack, stack.apis[name].api),
  adminKey: () => logicalId(stack, stack.secrets.adminKey),
  accessTokens: () => logicalId(stack, stack.secrets.accessTokens),
};
const resourcesOf = (type: string): [string, Json][] =>
  Object.entries(template.findResources(type)).map(([key, r]) => [key, r.Properties as Json]);
const functionProps = (name: FunctionName): Json => template.toJSON().Resources[id.fn(name)].Properties as Json;

/** The full path of an API Gateway resource (`/a/b`), from its chain of PathParts. */
function resourcePath(resourceRef: unknown): string {
  const ref = (resourceRef as { Ref?: string }).Ref;
  if (!ref) return '';
  const resource = template.toJSON().Resources[ref].Properties as Json;
  return `${resourcePath(resource.ParentId)}/${resource.PathPart as string}`;
}
/** Each method of the stack with its API and full resource path. */
const methodsByRoute = () =>
  resourcesOf('AWS::ApiGateway::Method').map(([, m]) => ({
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
  it('defines exactly the two REST APIs of the shared route table, each with its routes as Lambda proxy methods', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 2);
    const methods = resourcesOf('AWS::ApiGateway::Method');
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
    }
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

  it("puts every method of both APIs, except the public `auth: 'none'` routes, behind a TOKEN authorizer of the same API", () => {
    const authorizers = new Map(resourcesOf('AWS::ApiGateway::Authorizer'));
    expect(authorizers.size).toBe(2);
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
      expect(authorizer).toMatchObject({
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: 300,
        RestApiId: method.RestApiId,
      });
      expect(JSON.stringify(authorizer?.AuthorizerUri)).toContain(`"${id.fn('authorizer')}"`);
    }
    expect(publicRoutes.size).toBeGreaterThan(0);
  });

  it('leaves exactly the routes marked auth none without an authorizer: the console page and the OpenAPI documents', () => {
    const functionOf = (m: Json) =>
      (Object.keys(stack.functions) as FunctionName[]).find((name) =>
        JSON.stringify((m.Integration as Json).Uri).includes(`"${id.fn(name)}"`),
      );
    const open = methodsByRoute()
      .filter((m) => m.props.AuthorizationType === 'NONE')
      .map((m) => {
        expect(m.props.AuthorizerId).toBeUndefined();
        const api = m.apiRef === id.api('dataset') ? 'dataset' : 'proxy';
        return `${api} ${m.method} ${m.path} -> ${functionOf(m.props)}`;
      });

    expect(open.sort()).toEqual([
      'dataset GET /openapi.json -> openapi',
      'proxy GET /api/channels/openapi.json -> openapi',
      'proxy GET /console -> console',
      'proxy GET /openapi.json -> openapi',
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
    const { template: custom } = synthStack({ authorizerCacheTtlSeconds: 60 });

    const ttls = Object.values(custom.findResources('AWS::ApiGateway::Authorizer')).map(
      (a) => (a.Properties as Json).AuthorizerResultTtlInSeconds,
    );

    expect(ttls).toEqual([60, 60]);
  });

  it('logs JSON access logs without headers, throttles, traces and never logs request data on both stages', () => {
    const stages = resourcesOf('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(2);
    for (const [, stage] of stages) {
      const access = stage.AccessLogSetting as Json;
      expect(JSON.stringify(access.DestinationArn)).toMatch(/AccessLogs/);
      const format = JSON.parse(access.Format as string) as Record<string, string>;
      expect(format.requestId).toBe('$context.requestId');
      expect(format.status).toBe('$context.status');
      expect(JSON.stringify(format)).not.toMatch(/header|body|querystring/i);
      expect(stage.TracingEnabled).toBe(true);
      expect(stage.MethodSettings).toEqual([
        expect.objectContaining({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
      ]);
    }
  });

  it('applies the configured throttling to both stages', () => {
    const { template: custom } = synthStack({ throttling: { rateLimit: 7, burstLimit: 9 } });

    custom.allResourcesProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 })],
    });
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

    expect(envOf('create-dataset')).toEqual({
      [ENV.datasetsTable]: { Ref: id.table('datasets') },
      [ENV.modelCatalog]: JSON.stringify(BUILT_IN_MODEL_CATALOG),
      [ENV.logLevel]: 'INFO',
    });
    expect(envOf('import-legacygw')).toEqual({
      [ENV.channelsTable]: { Ref: id.table('channels') },
      [ENV.legacygwMaxRows]: '50000',
      [ENV.legacygwDeadlineMs]: '25000',
      [ENV.legacygwAllowedHosts]: '',
      [ENV.logLevel]: 'INFO',
    });
    for (const name of [
      'list-channels',
      'get-channel',
      'update-channel',
      'delete-channel',
      'batch-delete-channels',
    ] as const) {
      expect(envOf(name)).toEqual({ [ENV.channelsTable]: { Ref: id.table('channels') }, [ENV.logLevel]: 'INFO' });
    }
    expect(envOf('authorizer')).toEqual({
      [ENV.accessTokensSecretId]: { Ref: id.accessTokens() },
      [ENV.adminKeySecretId]: { Ref: id.adminKey() },
      [ENV.secretsMaxAgeS]: '60',
      [ENV.logLevel]: 'INFO',
    });
    expect(functionProps('openapi').Environment).toBeUndefined();
  });

  it('uses roles without managed policies (no AWSLambdaBasicExecutionRole logs:* on every log group)', () => {
    for (const name of Object.keys(stack.functions) as FunctionName[]) {
      const role = template.toJSON().Resources[id.role(name)].Properties as Json;
      expect(role.ManagedPolicyArns).toBeUndefined();
      expect(JSON.stringify(role.AssumeRolePolicyDocument)).toContain('lambda.amazonaws.com');
    }
  });
});

describe('least privilege', () => {
  it('lets create-dataset only GetItem and PutItem on the datasets table', () => {
    const expected = baseline('create-dataset');
    expected.set('dynamodb:GetItem', new Set([arnOf(id.table('datasets'))]));
    expected.set('dynamodb:PutItem', new Set([arnOf(id.table('datasets'))]));

    expect(permissionsOf(template, id.role('create-dataset'))).toEqual(expected);
  });

  it('lets the authorizer only GetSecretValue on the two secrets', () => {
    const expected = baseline('authorizer');
    expected.set('secretsmanager:GetSecretValue', new Set([refOf(id.accessTokens()), refOf(id.adminKey())]));

    expect(permissionsOf(template, id.role('authorizer'))).toEqual(expected);
  });

  it('lets the OpenAPI document function do nothing but write its own logs and traces', () => {
    expect(permissionsOf(template, id.role('openapi'))).toEqual(baseline('openapi'));
  });

  it('lets the console function only write its own logs and traces: no table, no secret', () => {
    expect(permissionsOf(template, id.role('console'))).toEqual(baseline('console'));
  });

  /** Each channel function and the DynamoDB actions it is granted, on the channels table only. */
  const CHANNEL_FUNCTIONS = {
    'import-legacygw': ['BatchGetItem', 'BatchWriteItem'],
    'list-channels': ['Scan', 'BatchGetItem'],
    'get-channel': ['GetItem'],
    'update-channel': ['GetItem', 'UpdateItem'],
    'delete-channel': ['DeleteItem'],
    'batch-delete-channels': ['BatchGetItem', 'BatchWriteItem'],
  } as const;
  const WRITES = /dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)/;

  it.each(Object.entries(CHANNEL_FUNCTIONS))('lets %s only %j on the channels table', (name, actions) => {
    const fn = name as keyof typeof CHANNEL_FUNCTIONS;
    const expected = baseline(fn);
    for (const action of actions) expected.set(`dynamodb:${action}`, new Set([arnOf(id.table('channels'))]));

    expect(permissionsOf(template, id.role(fn))).toEqual(expected);
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

  it('grants create-dataset exactly the DynamoDB operations its repository sends (shared/repositories/datasets.ts)', () => {
    const source = readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'repositories', 'datasets.ts'), 'utf8');
    const imported = /import \{([^}]*)\} from '@aws-sdk\/lib-dynamodb'/.exec(source)?.[1] ?? '';
    const sent = [...imported.matchAll(/\b(\w+)Command\b/g)].map(([, op]) =>
      op === 'Query' || op === 'Scan' ? `dynamodb:${op}` : `dynamodb:${op}Item`,
    );

    const granted = [...permissionsOf(template, id.role('create-dataset')).keys()].filter((a) =>
      a.startsWith('dynamodb:'),
    );

    expect(sent.length).toBeGreaterThan(0);
    expect(granted.sort()).toEqual(sent.sort());
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
    };
    for (const name of Object.keys(CHANNEL_FUNCTIONS) as (keyof typeof CHANNEL_FUNCTIONS)[]) {
      const source = readFileSync(join(import.meta.dirname, '..', '..', 'functions', name, `${name}.ts`), 'utf8');
      const repo = /repo: (Pick<ChannelReviewStore, ([^>]*)>|ChannelStore);/.exec(source);
      const methods = repo?.[2]
        ? [...repo[2].matchAll(/'(\w+)'/g)].map(([, m]) => m as string)
        : ['getMany', 'putMany'];
      const sent = new Set(methods.flatMap((m) => SENDS[m] ?? [`unknown method ${m}`]).map((a) => `dynamodb:${a}`));

      const granted = [...permissionsOf(template, id.role(name)).keys()].filter((a) => a.startsWith('dynamodb:'));

      expect(repo, name).not.toBeNull();
      expect(granted.sort(), name).toEqual([...sent].sort());
    }
  });

  it('grants no function anything on the other table, the secrets or a DynamoDB index', () => {
    const mentions = (name: FunctionName) =>
      JSON.stringify(
        [...permissionsOf(template, id.role(name))].map(([action, resources]) => [action, [...resources]]),
      );

    expect(mentions('create-dataset')).not.toContain(id.table('channels'));
    for (const name of Object.keys(CHANNEL_FUNCTIONS) as (keyof typeof CHANNEL_FUNCTIONS)[]) {
      expect(mentions(name)).not.toContain(id.table('datasets'));
    }
    for (const name of ['create-dataset', ...Object.keys(CHANNEL_FUNCTIONS)] as FunctionName[]) {
      expect(mentions(name)).not.toContain(id.adminKey());
      expect(mentions(name)).not.toContain(id.accessTokens());
      expect(mentions(name)).not.toMatch(/secretsmanager:|\/index\/|dynamodb:\*/);
    }
    for (const name of ['create-dataset', 'import-legacygw'] as const) {
      expect(mentions(name)).not.toMatch(/DeleteItem|Scan/);
    }
    expect(mentions('authorizer')).not.toMatch(/dynamodb:/);
    expect(mentions('console')).not.toMatch(/dynamodb:|secretsmanager:/);
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

  it('deletes tables, secrets and log groups with a dev stack but retains and protects them in prod', () => {
    const { template: prod } = synthStack({}, 'prod');

    for (const type of ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      for (const r of Object.values(template.findResources(type))) expect(r.DeletionPolicy).toBe('Delete');
      for (const r of Object.values(prod.findResources(type))) expect(r.DeletionPolicy).toBe('Retain');
    }
    prod.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    template.allResourcesProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
  });
});

describe('log groups', () => {
  it('sets the stage retention on every log group of the stack', () => {
    const { template: custom } = synthStack({ logRetentionDays: 14 });

    const groups = Object.values(custom.findResources('AWS::Logs::LogGroup'));

    // One per function, and access plus execution logs per API.
    expect(groups).toHaveLength(Object.keys(stack.functions).length + 2 * 2);
    for (const group of groups) expect((group.Properties as Json).RetentionInDays).toBe(14);
  });

  it('keeps production logs for a year and other stages for 30 days unless configured', () => {
    const { template: prod } = synthStack({}, 'prod');

    prod.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 365 });
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
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
  it('outputs both API URLs, both secret ARNs and both table names', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;

    expect(Object.keys(outputs).sort()).toEqual(
      [
        'AccessTokensSecretArn',
        'AdminKeySecretArn',
        'ChannelsTableName',
        'DatasetApiUrl',
        'DatasetsTableName',
        'ProxyApiUrl',
      ].sort(),
    );
    expect(outputs.AdminKeySecretArn?.Value).toEqual({ Ref: id.adminKey() });
    expect(outputs.AccessTokensSecretArn?.Value).toEqual({ Ref: id.accessTokens() });
    expect(outputs.DatasetsTableName?.Value).toEqual({ Ref: id.table('datasets') });
    expect(outputs.ChannelsTableName?.Value).toEqual({ Ref: id.table('channels') });
    expect(JSON.stringify(outputs.DatasetApiUrl?.Value)).toContain(id.api('dataset'));
    expect(JSON.stringify(outputs.ProxyApiUrl?.Value)).toContain(id.api('proxy'));
  });
});

describe('VPC placement', () => {
  const vpc = {
    vpcId: 'vpc-0a1b2c3d',
    subnetIds: ['subnet-0a1b2c3d', 'subnet-4e5f6a7b'],
    securityGroupId: 'sg-0a1b2c3d',
  };

  it('places only the import function in the configured subnets and security group', () => {
    const { stack: placed, template: custom } = synthStack({ vpc });
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
    const { stack: placed } = synthStack({ vpc });

    expect(Annotations.fromStack(placed).findWarning('*', Match.anyValue())).toEqual([]);
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('keeps every function out of any VPC when none is configured', () => {
    for (const name of ['authorizer', 'create-dataset', 'import-legacygw', 'console'] as const) {
      expect(functionProps(name).VpcConfig).toBeUndefined();
      expect(permissionsOf(template, id.role(name)).has('ec2:CreateNetworkInterface')).toBe(false);
    }
  });
});
