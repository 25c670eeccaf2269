import { App, CfnResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { AppFunction } from '#infra/constructs/function';
import { AUTHORIZER_ERRORS_METRIC, functionMetricId, Monitoring } from '#infra/constructs/monitoring';
import { AppTable } from '#infra/constructs/table';
import type { ServiceStack } from '#infra/stack';
import { parseStageConfig } from '#infra/stage-config';
import { ENV } from '#shared/config';
import { BUSINESS_METRICS, METRICS_SERVICE } from '#shared/metrics';
import { APIS, type ApiName, type FunctionName } from '#shared/routes';
import { TABLES, type TableName } from '#shared/tables';
import { logicalId, NO_BUNDLING, parametersPassedTo, removeTempDirs, synthStack, tempDir } from './synth.ts';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;

// One synthesis of the default (dev) stage, shared by the read-only assertions below.
const dev = synthStack();
/** A synthesis: the parent's template, and the monitoring nested stack's with the parent's values for its parameters. */
type Synth = { stack: ServiceStack; template: Template; monitoring: Template };
const resources = (template: Template) => template.toJSON().Resources as Record<string, { Properties: Json }>;
/** The logical id of a construct of the monitoring nested stack, in that stack's template. */
const nestedId = (s: { stack: ServiceStack }, construct: Parameters<typeof logicalId>[1]) =>
  logicalId(s.stack.monitoringStack, construct);
const alarmOf = (s: Synth, id: string): Json => {
  const alarm = s.stack.monitoring.alarms.get(id);
  if (!alarm) throw new Error(`no alarm ${id}`);
  return resources(s.monitoring)[nestedId(s, alarm)]?.Properties as Json;
};
const ref = (s: { stack: ServiceStack }, construct: Parameters<typeof logicalId>[1]) => ({
  Ref: logicalId(s.stack, construct),
});
const topicRef = (s: { stack: ServiceStack }) => ({ Ref: nestedId(s, s.stack.monitoring.topic) });
const envOf = (s: { stack: ServiceStack; template: Template }, fn: AppFunction): Json => {
  const props = resources(s.template)[logicalId(s.stack, fn.function)]?.Properties;
  return ((props?.Environment as Json | undefined)?.Variables ?? {}) as Json;
};

/** What every alarm of the stack shares: fires at or above its threshold, idle is fine, tells the topic both ways. */
const notifying = (s: { stack: ServiceStack }) => ({
  ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  TreatMissingData: 'notBreaching',
  AlarmActions: [topicRef(s)],
  OKActions: [topicRef(s)],
});

/** The dashboard body with each CloudFormation token replaced by a readable marker, parsed. */
function dashboardOf(s: Synth): { widgets: Json[] } {
  const body = resources(s.monitoring)[nestedId(s, s.stack.monitoring.dashboard)]?.Properties.DashboardBody as {
    'Fn::Join': [string, unknown[]];
  };
  const text = body['Fn::Join'][1]
    .map((part) => (typeof part === 'string' ? part : `<${JSON.stringify(part).replaceAll('"', "'")}>`))
    .join('');
  return JSON.parse(text);
}
const widgetTitled = (dashboard: { widgets: Json[] }, title: string): Json => {
  const widget = dashboard.widgets.find((w) => (w.properties as Json).title === title);
  if (!widget) throw new Error(`no widget ${title}`);
  return widget.properties as Json;
};
const tokenOf = (s: { stack: ServiceStack }, construct: Parameters<typeof logicalId>[1]) =>
  `<{'Ref':'${logicalId(s.stack, construct)}'}>`;

/** The group alarms of one Lambda signal, in order, with their properties. */
const groupAlarms = (s: Synth, signal: 'Errors' | 'Throttles') =>
  [...s.stack.monitoring.alarms.keys()]
    .filter((id) => id.startsWith(`Function${signal}`))
    .map((id) => ({ id, props: alarmOf(s, id) }));
const functionsOf = (alarm: Json): string[] =>
  (alarm.Metrics as Json[]).filter((m) => m.MetricStat).map((m) => m.Label as string);
const lambdaDimensionsOf = (alarm: Json, metricName: string): unknown[] =>
  ((alarm.Metrics as Json[] | undefined) ?? [])
    .map((m) => (m.MetricStat as { Metric: Json } | undefined)?.Metric)
    .filter((m): m is Json => m?.Namespace === 'AWS/Lambda' && m.MetricName === metricName)
    .map((m) => m.Dimensions);
const names = (Object.keys(dev.stack.functions) as FunctionName[]).sort();

describe('alarms', () => {
  it.each(Object.keys(APIS) as ApiName[])('alarms on the %s API 5XX count of its stage, Sum over 5 minutes', (api) => {
    const stage = dev.stack.apis[api].api.deploymentStage;

    expect(alarmOf(dev, `${api}Api5xx`)).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: [
        { Name: 'ApiName', Value: `Test-${api}` },
        { Name: 'Stage', Value: ref(dev, stage) },
      ],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 5,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      ...notifying(dev),
    });
  });

  it('alarms on each API p99 latency for 15 minutes: 3 s on the knowledge-base API, the import deadline on the proxy API', () => {
    const latency = (api: ApiName) => ({
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      Dimensions: [
        { Name: 'ApiName', Value: `Test-${api}` },
        { Name: 'Stage', Value: ref(dev, dev.stack.apis[api].api.deploymentStage) },
      ],
      ExtendedStatistic: 'p99',
      Period: 300,
      EvaluationPeriods: 3,
      ...notifying(dev),
    });

    expect(alarmOf(dev, 'datasetApiLatencyP99')).toMatchObject({
      ...latency('dataset'),
      Threshold: 3000,
      DatapointsToAlarm: 3,
    });
    expect(alarmOf(dev, 'proxyApiLatencyP99')).toMatchObject({
      ...latency('proxy'),
      Threshold: 25_000,
      DatapointsToAlarm: 2,
    });
  });

  it('names each REST API after the stack and its definition, so API Gateway metrics of two APIs never mix', () => {
    const names = Object.values(dev.template.findResources('AWS::ApiGateway::RestApi')).map(
      (r) => (r.Properties as Json).Name,
    );

    expect(names.sort()).toEqual(['Test-dataset', 'Test-proxy', 'Test-relay']);
  });

  // Throttles for every function; errors for every function but the authorizer (see the next test). Each alarm
  // watches the worst function of a group of at most 10, by name.

  it.each(['Errors', 'Throttles'] as const)(
    'alarms on function %s in groups of at most 10 functions by name, each function in exactly one, Sum over 5 minutes',
    (metricName) => {
      const expected = metricName === 'Errors' ? names.filter((n) => n !== 'authorizer') : names;
      const groups = groupAlarms(dev, metricName);

      expect(groups.map((g) => g.id)).toEqual(
        Array.from({ length: Math.ceil(expected.length / 10) }, (_, i) => `Function${metricName}${i + 1}`),
      );
      expect(groups.flatMap((g) => functionsOf(g.props))).toEqual(expected);
      for (const { props } of groups) {
        const members = functionsOf(props);
        expect(members.length).toBeLessThanOrEqual(10);
        const ids = members.map((n) => functionMetricId(n));
        expect(props).toMatchObject({ Threshold: 1, EvaluationPeriods: 1, DatapointsToAlarm: 1, ...notifying(dev) });
        expect(props.Metrics).toEqual([
          expect.objectContaining({ Expression: `MAX(FILL([${ids.join(', ')}], 0))`, ReturnData: true }),
          ...members.map((name, i) => ({
            Id: ids[i],
            Label: name,
            MetricStat: {
              Metric: {
                Namespace: 'AWS/Lambda',
                MetricName: metricName,
                Dimensions: [
                  { Name: 'FunctionName', Value: ref(dev, dev.stack.functions[name as FunctionName].function) },
                ],
              },
              Period: 300,
              Stat: 'Sum',
            },
            ReturnData: false,
          })),
        ]);
        // The operator learns from the notification which functions to look at on the dashboard.
        expect(props.AlarmDescription).toContain(`(${members.join(', ')})`);
      }
    },
  );

  it('has no Lambda-errors alarm on the authorizer (every 401 to a malformed header is a thrown error) but one on its ERROR log lines', () => {
    const lambdaErrorDimensions = Object.values(dev.monitoring.findResources('AWS::CloudWatch::Alarm')).flatMap((a) =>
      lambdaDimensionsOf(a.Properties as Json, 'Errors'),
    );
    const filter = Object.values(dev.monitoring.findResources('AWS::Logs::MetricFilter'));

    expect(lambdaErrorDimensions).toHaveLength(names.length - 1);
    expect(lambdaErrorDimensions).not.toContainEqual([
      { Name: 'FunctionName', Value: ref(dev, dev.stack.functions.authorizer.function) },
    ]);
    expect(filter).toHaveLength(1);
    expect(filter[0]?.Properties).toEqual({
      LogGroupName: ref(dev, dev.stack.functions.authorizer.logGroup),
      FilterPattern: '{ ($.level = "ERROR") || ($.level = "CRITICAL") }',
      MetricTransformations: [
        {
          MetricNamespace: 'KbChannelGateway/dev',
          MetricName: AUTHORIZER_ERRORS_METRIC,
          MetricValue: '1',
          DefaultValue: 0,
        },
      ],
    });
    expect(alarmOf(dev, 'AuthorizerErrors')).toMatchObject({
      Namespace: 'KbChannelGateway/dev',
      MetricName: AUTHORIZER_ERRORS_METRIC,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      ...notifying(dev),
    });
  });

  const GRANTED: Record<TableName, string[]> = {
    datasets: ['GetItem', 'PutItem', 'Query', 'UpdateItem', 'BatchWriteItem', 'BatchGetItem'],
    channels: ['BatchGetItem', 'BatchWriteItem', 'Scan', 'GetItem', 'UpdateItem', 'DeleteItem'],
    // The relay's BatchWriteItem of the records, the usage API's Query.
    usage: ['BatchWriteItem', 'Query'],
    // The authorizer's GetItem by keyed hash; the token import's GetItem and PutItem; the relay's quota UpdateItem and
    // Query by id; the key API's list, create, lookup by id, update and delete.
    relayKeys: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'Scan', 'DeleteItem'],
    // The token import's PutItem of the ratios; the relay's one health Query, its UpdateItem and DeleteItem.
    relayState: ['PutItem', 'Query', 'UpdateItem', 'DeleteItem'],
    // The content functions', the training function's and the knowledge-base delete's calls (infra/kb.ts), and the
    // search's reads (infra/kb-search.ts): chunks and collections by key, term counters and postings.
    kbContent: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem', 'BatchGetItem'],
    kbVectors: ['BatchWriteItem', 'Query', 'UpdateItem'],
    // The search's GetItem of the `n` item; the index writers' read and rewrite of `n` and of a block cut on removal.
    kbTerms: ['GetItem', 'BatchGetItem', 'Query', 'BatchWriteItem', 'PutItem', 'DeleteItem', 'UpdateItem'],
  };
  // A table no function calls item operations on yet (kbVectors: SearchVectors only, until the training core writes it).
  it.each((Object.keys(TABLES) as TableName[]).filter((name) => GRANTED[name].length > 0))(
    'alarms on the %s table throttled requests and system errors, summed over the operations its functions may call',
    (name) => {
      const table = ref(dev, dev.stack.tables[name].table);
      const sumOf = (metricName: string) => {
        const ids = GRANTED[name].map((op) => `${name.toLowerCase()}table_${op.toLowerCase()}`);
        return [
          { Id: 'expr_1', Expression: ids.map((i) => `FILL(${i}, 0)`).join(' + '), ReturnData: true },
          ...GRANTED[name].map((operation, i) => ({
            Id: ids[i],
            MetricStat: {
              Metric: {
                Namespace: 'AWS/DynamoDB',
                MetricName: metricName,
                Dimensions: [
                  { Name: 'Operation', Value: operation },
                  { Name: 'TableName', Value: table },
                ],
              },
              Period: 300,
              Stat: 'Sum',
            },
            ReturnData: false,
          })),
        ];
      };

      const throttles = alarmOf(dev, `${name}TableThrottles`);
      const systemErrors = alarmOf(dev, `${name}TableSystemErrors`);

      for (const [alarm, metricName] of [
        [throttles, 'ThrottledRequests'],
        [systemErrors, 'SystemErrors'],
      ] as const) {
        expect(alarm).toMatchObject({ Threshold: 1, EvaluationPeriods: 1, DatapointsToAlarm: 1, ...notifying(dev) });
        const metrics = (alarm.Metrics as Json[]).map(({ Label: _label, ...rest }) => rest);
        expect(metrics).toEqual(sumOf(metricName));
      }
    },
  );

  it('has exactly these alarms: 2 per API, 1 per signal and 10 functions (errors without the authorizer), 1 on authorizer failures, 2 per table, 1 on the worst relay channel, 1 on the training dead-letter queue', () => {
    const apis = Object.keys(dev.stack.apis).length;
    const functions = Object.keys(dev.stack.functions).length;
    // A table no function calls item operations on has nothing to alarm on (kbVectors, until the training core writes it).
    const tables = Object.values(dev.stack.tables).filter((t) => t.operations.length > 0).length;
    const expected = 2 * apis + Math.ceil((functions - 1) / 10) + Math.ceil(functions / 10) + 1 + 2 * tables + 1;

    dev.monitoring.resourceCountIs('AWS::CloudWatch::Alarm', expected + 1);
    // All of them in the monitoring nested stack (docs/deploy.md, "Resource budget").
    dev.template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    expect(dev.stack.monitoring.alarms.size).toBe(expected + 1);
  });

  it('alarms on the relay channel with the highest error rate through one Metrics Insights query over every channel', () => {
    const alarm = dev.stack.monitoring.alarms.get('RelayChannelErrorRate');
    const props = resources(dev.monitoring)[nestedId(dev, alarm as Alarm)]?.Properties as Json;

    expect(props).toMatchObject({
      Threshold: 0.5,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(props.Metrics).toEqual([
      {
        Id: expect.any(String),
        Expression:
          'SELECT AVG(RelayChannelErrors) FROM SCHEMA("KbChannelGateway/dev", channel, model, service) GROUP BY channel ORDER BY AVG() DESC LIMIT 1',
        Label: 'worst channel error rate',
        Period: 300,
        ReturnData: true,
      },
    ]);
  });

  it('says in each alarm description what crossed which threshold and where the runbook is', () => {
    const alarms = Object.values(dev.monitoring.findResources('AWS::CloudWatch::Alarm'));

    expect(alarms).toHaveLength(dev.stack.monitoring.alarms.size);
    for (const alarm of alarms) {
      expect((alarm.Properties as Json).AlarmDescription).toMatch(
        /^.+ >= \d+(\.\d+)? in \d+ of \d+ periods of \d+ min\. Runbook: docs\/operations\.md#[a-z0-9-]+$/,
      );
    }
  });
});

describe('alarm topic', () => {
  it('encrypts the topic with a rotated key that CloudWatch may use and that goes with the stack, and refuses publishing without TLS', () => {
    const topic = resources(dev.monitoring)[nestedId(dev, dev.stack.monitoring.topic)]?.Properties as Json;
    const keyId = nestedId(dev, dev.stack.monitoring.topicKey);
    const key = resources(dev.monitoring)[keyId]?.Properties as Json;
    const policy = Object.values(dev.monitoring.findResources('AWS::SNS::TopicPolicy'))[0]?.Properties as Json;

    expect(topic.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.EnableKeyRotation).toBe(true);
    // Even where data is retained (the default): it encrypts notifications in flight, nothing stored.
    expect(dev.monitoring.toJSON().Resources[keyId].DeletionPolicy).toBe('Delete');
    expect((key.KeyPolicy as Json).Statement).toContainEqual({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Resource: '*',
    });
    const statements = (policy.PolicyDocument as Json).Statement as Json[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sns:Publish',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
      }),
    );
  });

  it('subscribes no address unless the stage config names one', () => {
    dev.monitoring.resourceCountIs('AWS::SNS::Subscription', 0);
    dev.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('dashboard', () => {
  const dashboard = dashboardOf(dev);
  const metricsOf = (title: string) => widgetTitled(dashboard, title).metrics as unknown[][];

  it('shows the state of every alarm', () => {
    const alarms = widgetTitled(dashboard, 'Alarms').alarms as string[];

    expect(alarms).toHaveLength(dev.stack.monitoring.alarms.size);
    for (const alarm of dev.stack.monitoring.alarms.values()) {
      expect(alarms).toContain(`<{'Fn::GetAtt':['${nestedId(dev, alarm)}','Arn']}>`);
    }
  });

  it.each(Object.keys(APIS) as ApiName[])(
    'graphs the %s API requests, 4XX and 5XX sums and its p50 and p99 latency',
    (api) => {
      const stage = tokenOf(dev, dev.stack.apis[api].api.deploymentStage);
      const dims = ['ApiName', `Test-${api}`, 'Stage', stage];

      expect(metricsOf(`${api} API: requests and errors`)).toEqual([
        ['AWS/ApiGateway', 'Count', ...dims, { label: 'requests', stat: 'Sum' }],
        ['AWS/ApiGateway', '4XXError', ...dims, { label: '4XX', stat: 'Sum' }],
        ['AWS/ApiGateway', '5XXError', ...dims, { label: '5XX', stat: 'Sum' }],
      ]);
      expect(metricsOf(`${api} API: latency (ms)`)).toEqual([
        ['AWS/ApiGateway', 'Latency', ...dims, { label: 'p50', stat: 'p50' }],
        ['AWS/ApiGateway', 'Latency', ...dims, { label: 'p99', stat: 'p99' }],
      ]);
    },
  );

  it('graphs errors, throttles and p99 duration of every function, one line each', () => {
    const lines = (metric: string, stat: string) =>
      (Object.keys(dev.stack.functions) as FunctionName[]).map((name) => [
        'AWS/Lambda',
        metric,
        'FunctionName',
        tokenOf(dev, dev.stack.functions[name].function),
        { label: name, stat },
      ]);

    expect(metricsOf('Function errors')).toEqual(lines('Errors', 'Sum'));
    expect(metricsOf('Function throttles')).toEqual(lines('Throttles', 'Sum'));
    expect(metricsOf('Function duration p99 (ms)')).toEqual(lines('Duration', 'p99'));
    expect(metricsOf('Authorizer errors (failed closed)')).toEqual([
      ['KbChannelGateway/dev', AUTHORIZER_ERRORS_METRIC, { label: 'authorizer errors', stat: 'Sum' }],
    ]);
  });

  it('graphs each table throttled requests and system errors as one summed line', () => {
    for (const title of ['Table throttled requests', 'Table system errors']) {
      const expressions = metricsOf(title)
        .map((m) => m[0])
        .filter((m): m is Json => typeof m === 'object' && m !== null && 'expression' in m)
        .map((m) => m.label);
      const suffix = title === 'Table throttled requests' ? 'throttled requests' : 'system errors';
      const watched = (Object.keys(TABLES) as TableName[]).filter((t) => dev.stack.tables[t].operations.length > 0);
      expect(expressions).toEqual(watched.map((t) => `${t} ${suffix}`));
    }
  });

  it('graphs every business metric from its namespace with the service dimension', () => {
    const businessLines = dashboard.widgets
      .flatMap((w) => ((w.properties as Json).metrics as unknown[][] | undefined) ?? [])
      .filter((m) => m[0] === 'KbChannelGateway/dev' && m[1] !== AUTHORIZER_ERRORS_METRIC);

    for (const metric of Object.values(BUSINESS_METRICS)) {
      expect(businessLines).toContainEqual([
        'KbChannelGateway/dev',
        metric.name,
        'service',
        METRICS_SERVICE,
        expect.anything(),
      ]);
    }
    expect(metricsOf('Import duration (ms)').map((m) => (m[4] as Json).stat)).toEqual(['p50', 'p99', 'Maximum']);
    expect(metricsOf('Channels').map((m) => m[1])).toEqual([
      'ChannelsCreated',
      'ChannelsUpdated',
      'ChannelsUnchanged',
      'ChannelsEdited',
    ]);
  });
});

describe('per stage', () => {
  it('gives every function the stage metrics namespace', () => {
    for (const fn of Object.values(dev.stack.functions)) {
      expect(envOf(dev, fn)[ENV.metricsNamespace]).toBe('KbChannelGateway/dev');
    }
  });

  it('tolerates a few failures in a disposable stage and takes namespace, e-mail and overrides from the config file', () => {
    const scratch = synthStack(
      {
        retainData: false,
        monitoring: {
          metricsNamespace: 'Acme/Gateway',
          alarmEmail: 'oncall@example.com',
          alarms: {
            functionErrors: { threshold: 3, periodMinutes: 1, evaluationPeriods: 5, datapointsToAlarm: 3 },
            apiLatencyP99: { proxy: { threshold: 20_000 } },
          },
        },
      },
      'scratch',
    );

    expect(alarmOf(scratch, 'datasetApi5xx')).toMatchObject({ Threshold: 10, Period: 300 });
    expect(alarmOf(scratch, 'datasetApiLatencyP99')).toMatchObject({ Threshold: 5000 });
    expect(alarmOf(scratch, 'proxyApiLatencyP99')).toMatchObject({ Threshold: 20_000, EvaluationPeriods: 3 });
    for (const { props } of groupAlarms(scratch, 'Throttles')) expect(props).toMatchObject({ Threshold: 5 });
    expect(alarmOf(scratch, 'channelsTableSystemErrors')).toMatchObject({ Threshold: 5 });
    expect(alarmOf(scratch, 'AuthorizerErrors')).toMatchObject({ Threshold: 1 });
    const errorGroups = groupAlarms(scratch, 'Errors');
    expect(errorGroups.flatMap((g) => functionsOf(g.props))).toContain('import-legacygw');
    for (const { props } of errorGroups) {
      expect(props).toMatchObject({ Threshold: 3, EvaluationPeriods: 5, DatapointsToAlarm: 3 });
      for (const m of (props.Metrics as Json[]).filter((q) => q.MetricStat)) {
        expect(m.MetricStat).toMatchObject({ Period: 60 });
      }
    }
    scratch.monitoring.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: topicRef(scratch),
    });
    scratch.monitoring.hasResourceProperties('AWS::Logs::MetricFilter', {
      MetricTransformations: [Match.objectLike({ MetricNamespace: 'Acme/Gateway' })],
    });
    expect(envOf(scratch, scratch.stack.functions['create-dataset'])[ENV.metricsNamespace]).toBe('Acme/Gateway');
  });
});

/** CloudFormation's limit of parameters in one template. */
const CLOUDFORMATION_PARAMETERS_LIMIT = 200;

/** Every `Ref` and `Fn::GetAtt` target in `value`, and every name a `Fn::Sub` string refers to. */
function referencesIn(value: unknown, found = { refs: new Set<string>(), getAtts: new Set<string>() }) {
  if (Array.isArray(value)) {
    for (const v of value) referencesIn(v, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'Ref' && typeof v === 'string') found.refs.add(v);
      else if (key === 'Fn::GetAtt' && Array.isArray(v)) found.getAtts.add(String(v[0]));
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(v) ? v[0] : v;
        for (const [, name] of String(text).matchAll(/\$\{([^!}][^}]*)\}/g)) found.refs.add(name?.split('.')[0] ?? '');
      }
      referencesIn(v, found);
    }
  }
  return found;
}

describe('the monitoring nested stack', () => {
  const nested = dev.stack.monitoringStack;
  const raw = Template.fromStack(nested).toJSON() as {
    Parameters?: Record<string, unknown>;
    Resources: Record<string, Json>;
    Outputs?: Record<string, Json>;
  };
  const declared = Object.keys(raw.Parameters ?? {}).sort();

  it('holds the Monitoring construct and nothing else, and is one resource of the parent', () => {
    const own = dev.stack.monitoring.node
      .findAll()
      .filter(CfnResource.isCfnResource)
      .map((r) => nested.getLogicalId(r));

    expect(Object.keys(raw.Resources).sort()).toEqual(own.sort());
    dev.template.resourceCountIs('AWS::CloudFormation::Stack', 1);
    for (const type of ['AWS::CloudWatch::Dashboard', 'AWS::SNS::Topic', 'AWS::Logs::MetricFilter']) {
      dev.template.resourceCountIs(type, 0);
    }
  });

  it("is passed exactly the parameters it declares, each a resource of the parent, within CloudFormation's 200", () => {
    const passed = parametersPassedTo(nested, dev.template);
    const parentIds = new Set(Object.keys(dev.template.toJSON().Resources));

    expect(declared.length).toBeGreaterThan(0);
    expect(declared.length).toBeLessThanOrEqual(CLOUDFORMATION_PARAMETERS_LIMIT);
    expect(Object.keys(passed).sort()).toEqual(declared);
    for (const [name, value] of Object.entries(passed)) {
      const { refs, getAtts } = referencesIn(value);
      expect([...refs, ...getAtts], name).toHaveLength(1);
      expect(parentIds.has([...refs, ...getAtts][0] ?? ''), `${name} names no resource of the parent`).toBe(true);
    }
  });

  it('refers only to its own parameters, its own resources and pseudo parameters', () => {
    const { refs, getAtts } = referencesIn({ Resources: raw.Resources, Outputs: raw.Outputs });
    const own = new Set(Object.keys(raw.Resources));

    expect([...refs].filter((r) => !own.has(r) && !declared.includes(r) && !r.startsWith('AWS::'))).toEqual([]);
    expect([...getAtts].filter((r) => !own.has(r))).toEqual([]);
    // Every parameter is used: none is passed for nothing.
    expect(declared.filter((p) => !refs.has(p))).toEqual([]);
  });
});

describe('Monitoring construct', () => {
  it('watches every function and table it is given, so one added to the stack maps is covered without further code', () => {
    const app = new App({ context: NO_BUNDLING, outdir: tempDir() });
    const stack = new Stack(app, 'Covered');
    const common = {
      description: 'test',
      memorySize: 128,
      timeout: Duration.seconds(3),
      logRetention: RetentionDays.ONE_DAY,
      removalPolicy: RemovalPolicy.DESTROY,
      environment: {},
    };
    const authorizer = new AppFunction(stack, 'Auth', { name: 'authorizer', ...common });
    const extra = new AppFunction(stack, 'Extra', { name: 'create-dataset', ...common });
    const table = new AppTable(stack, 'ExtraTable', {
      definition: TABLES.datasets,
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
    });
    extra.useTable(table, 'EXTRA_TABLE', ['Query', 'UpdateItem']);
    const unused = new AppTable(stack, 'Unused', {
      definition: TABLES.channels,
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
    });

    const monitoring = new Monitoring(stack, 'Monitoring', {
      config: parseStageConfig('dev').monitoring,
      functions: { authorizer, 'some-new-function': extra },
      authorizer,
      apis: {},
      tables: { extra: table, unused },
    });

    expect([...monitoring.alarms.keys()].sort()).toEqual(
      [
        'AuthorizerErrors',
        'extraTableSystemErrors',
        'extraTableThrottles',
        'FunctionErrors1',
        'FunctionThrottles1',
      ].sort(),
    );
    const throttles = Template.fromStack(stack).toJSON().Resources[
      stack.getLogicalId(monitoring.alarms.get('extraTableThrottles')?.node.defaultChild as never)
    ].Properties.Metrics as Json[];
    expect(throttles[0]).toMatchObject({ Expression: 'FILL(extratable_query, 0) + FILL(extratable_updateitem, 0)' });
  });
});
