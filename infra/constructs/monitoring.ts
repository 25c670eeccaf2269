import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '#shared/config';
import { BUSINESS_METRICS, METRICS_SERVICE } from '#shared/metrics';
import { RELAY_METRICS } from '#shared/relay/metrics';
import type { ApiName } from '#shared/routes';
import type { AlarmSpec, StageConfig } from '../stage-config.ts';
import type { AppApi } from './api.ts';
import type { AppFunction } from './function.ts';
import type { AppTable } from './table.ts';
import { MAX_ALARM_METRICS, sumOverOperations } from './table-metrics.ts';

/** The metric counting the authorizer's ERROR log lines (a metric filter on its log group, not EMF). */
export const AUTHORIZER_ERRORS_METRIC = 'AuthorizerErrors';

/** Where each alarm kind is explained, relative to the repository root; put in every alarm's description. */
export const RUNBOOK = 'docs/operations.md';

type BusinessMetricKey = keyof typeof BUSINESS_METRICS;

/** The dashboard's business widgets: every entry of BUSINESS_METRICS appears in exactly one. */
const BUSINESS_WIDGETS: readonly { title: string; metrics: readonly BusinessMetricKey[]; statistics: string[] }[] = [
  { title: 'Datasets created and deleted', metrics: ['datasetsCreated', 'datasetsDeleted'], statistics: ['Sum'] },
  { title: 'Import rows', metrics: ['importRowsImported', 'importRowsSkipped'], statistics: ['Sum'] },
  {
    title: 'Channels',
    metrics: ['channelsCreated', 'channelsUpdated', 'channelsUnchanged', 'channelsEdited'],
    statistics: ['Sum'],
  },
  { title: 'Import duration (ms)', metrics: ['importDuration'], statistics: ['p50', 'p99', 'Maximum'] },
  { title: 'Failed imports (5xx)', metrics: ['importsFailed'], statistics: ['Sum'] },
];

export interface MonitoringProps {
  readonly config: StageConfig['monitoring'];
  /**
   * Every function of the stack. Each is watched by a group throttles alarm and gets the metrics namespace; each but
   * the authorizer by a group errors alarm. A function added to the stack's map is covered without further code.
   */
  readonly functions: Readonly<Record<string, AppFunction>>;
  /** The TOKEN authorizer, one of `functions`. */
  readonly authorizer: AppFunction;
  readonly apis: Readonly<Partial<Record<ApiName, AppApi>>>;
  /** Each table's alarms watch the operations its functions were granted (AppTable.operations). */
  readonly tables: Readonly<Record<string, AppTable>>;
  /** Dead-letter queues: each gets an alarm on its first message (infra/kb.ts, the training queue's). */
  readonly deadLetterQueues?: readonly {
    readonly id: string;
    readonly queue: IQueue;
    readonly what: string;
    readonly runbook: string;
  }[];
}

/**
 * What a team on call needs: an alarm per API (5XX count, p99 latency), per group of at most 10 functions (the
 * worst function's errors, its throttles; the dashboard graphs each function),
 * on the authorizer failing closed, and per table (throttled requests, system errors), all notifying one
 * encrypted SNS topic (optionally e-mailed), and one dashboard with those figures and the business metrics.
 *
 * The authorizer has no Lambda-errors alarm: it must throw `Unauthorized` to make API Gateway answer 401
 * to a malformed header, and Lambda counts every such throw as an error. Its own alarm counts the ERROR
 * lines it logs when it fails closed (secret unreadable or malformed); a crash or timeout of it reaches
 * callers as a 5XX of the API, which the API's alarm sees.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  /** Encrypts the topic; CloudWatch may use it to publish. */
  readonly topicKey: Key;
  readonly dashboard: Dashboard;
  /** Every alarm, by construct id. */
  readonly alarms = new Map<string, Alarm>();
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { config } = props;
    const alarms = config.alarms;

    // SNS encryption with the AWS-managed key would drop every alarm: that key's policy cannot let
    // CloudWatch use it. A key of our own can.
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the alarm notifications topic',
      enableKeyRotation: true,
      // It encrypts notifications in flight only: nothing stored needs it once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topicKey = key;
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: 'kb-channel-gateway alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // The topic has a policy (enforceSSL), so CloudWatch's right to publish is written out, for this account's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*` },
        },
      }),
    );
    if (config.alarmEmail) this.topic.addSubscription(new EmailSubscription(config.alarmEmail));
    this.action = new SnsAction(this.topic);

    for (const fn of Object.values(props.functions)) {
      fn.setEnvironment(ENV.metricsNamespace, config.metricsNamespace);
    }

    const apiRows: GraphWidget[][] = [];
    for (const [name, api] of Object.entries(props.apis) as [ApiName, AppApi][]) {
      const stage = api.api.deploymentStage;
      const serverErrors = stage.metricServerError({ statistic: 'Sum' });
      this.alarm(`${name}Api5xx`, {
        metric: serverErrors,
        spec: alarms.apiServerErrors,
        what: `${name} API 5XX answers`,
        runbook: 'api-5xx',
      });
      this.alarm(`${name}ApiLatencyP99`, {
        metric: stage.metricLatency({ statistic: 'p99' }),
        spec: alarms.apiLatencyP99[name],
        what: `${name} API p99 latency (ms)`,
        runbook: 'api-latency',
      });
      apiRows.push([
        graph(`${name} API: requests and errors`, [
          stage.metricCount({ statistic: 'Sum', label: 'requests' }),
          stage.metricClientError({ statistic: 'Sum', label: '4XX' }),
          serverErrors.with({ label: '5XX' }),
        ]),
        graph(`${name} API: latency (ms)`, [
          stage.metricLatency({ statistic: 'p50', label: 'p50' }),
          stage.metricLatency({ statistic: 'p99', label: 'p99' }),
        ]),
      ]);
    }

    const functions = Object.entries(props.functions);
    // One alarm per signal and group of at most 10 functions (docs/operations.md, "Function alarms by group").
    const errorGroups = functionGroups(functions.filter(([, fn]) => fn !== props.authorizer));
    errorGroups.forEach((group, i) => {
      this.alarm(`FunctionErrors${i + 1}`, {
        metric: worstOf(group, (fn) => fn.function.metricErrors({ statistic: 'Sum' }), 'errors'),
        spec: alarms.functionErrors,
        what: `errors of the worst function of group ${i + 1} of ${errorGroups.length} (${groupNames(group)})`,
        runbook: 'function-errors',
      });
    });
    const throttleGroups = functionGroups(functions);
    throttleGroups.forEach((group, i) => {
      this.alarm(`FunctionThrottles${i + 1}`, {
        metric: worstOf(group, (fn) => fn.function.metricThrottles({ statistic: 'Sum' }), 'throttles'),
        spec: alarms.functionThrottles,
        what: `throttles of the worst function of group ${i + 1} of ${throttleGroups.length} (${groupNames(group)})`,
        runbook: 'function-throttles',
      });
    });

    const authorizerErrors = new MetricFilter(this, 'AuthorizerErrorLines', {
      logGroup: props.authorizer.logGroup,
      // Powertools logger JSON: the authorizer logs at ERROR only when it fails closed.
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.stringValue('$.level', '=', 'CRITICAL'),
      ),
      metricNamespace: config.metricsNamespace,
      metricName: AUTHORIZER_ERRORS_METRIC,
      metricValue: '1',
      defaultValue: 0,
    }).metric({ statistic: 'Sum' });
    this.alarm('AuthorizerErrors', {
      metric: authorizerErrors,
      spec: alarms.authorizerErrors,
      what: 'authorizer ERROR lines (failed closed)',
      runbook: 'authorizer-errors',
    });

    const tables = Object.entries(props.tables);
    const throttled = new Map<string, IMetric>();
    const systemErrors = new Map<string, IMetric>();
    for (const [name, table] of tables) {
      const t = sumOverOperations(table, 'ThrottledRequests', `${name} throttled requests`);
      const e = sumOverOperations(table, 'SystemErrors', `${name} system errors`);
      if (!t || !e) continue; // No function uses the table: nothing calls it, nothing to watch.
      throttled.set(name, t);
      systemErrors.set(name, e);
      this.alarm(`${name}TableThrottles`, {
        metric: t,
        spec: alarms.tableThrottles,
        what: `${name} table throttled requests`,
        runbook: 'table-throttles',
      });
      this.alarm(`${name}TableSystemErrors`, {
        metric: e,
        spec: alarms.tableSystemErrors,
        what: `${name} table system errors`,
        runbook: 'table-system-errors',
      });
    }

    // The relay's channels come and go with imports, so no alarm per channel can be made at synth: one Metrics Insights
    // query follows the channel with the highest error rate (RelayChannelErrors is 1 per failed attempt, 0 per answered
    // one) among whatever channels report (docs/relay.md, "Metrics"). Only a stack with the relay has it.
    if (props.functions.relay) this.relayChannelAlarm(config.metricsNamespace, alarms.relayChannelErrorRate);
    for (const dlq of props.deadLetterQueues ?? []) this.alarmOnDeadLetters(dlq.id, dlq.queue, dlq.what, dlq.runbook);

    const business = (key: BusinessMetricKey, statistic: string) =>
      new Metric({
        namespace: config.metricsNamespace,
        metricName: BUSINESS_METRICS[key].name,
        dimensionsMap: { service: METRICS_SERVICE },
        statistic,
        label: statistic === 'Sum' ? BUSINESS_METRICS[key].name : `${BUSINESS_METRICS[key].name} ${statistic}`,
      });

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown: `# kb-channel-gateway operations\nAlarms notify the alarm topic (stack output \`AlarmTopicArn\`). What each alarm means and what to do first: \`${RUNBOOK}\` in the repository. Business metrics: namespace \`${config.metricsNamespace}\`, dimension \`service=${METRICS_SERVICE}\`.`,
            width: 24,
            height: 2,
          }),
        ],
        [new AlarmStatusWidget({ title: 'Alarms', alarms: [...this.alarms.values()], width: 24, height: 4 })],
        ...apiRows,
        [
          graph(
            'Function errors',
            functions.map(([name, fn]) => fn.function.metricErrors({ statistic: 'Sum', label: name })),
          ),
          graph(
            'Function throttles',
            functions.map(([name, fn]) => fn.function.metricThrottles({ statistic: 'Sum', label: name })),
          ),
        ],
        [
          graph(
            'Function duration p99 (ms)',
            functions.map(([name, fn]) => fn.function.metricDuration({ statistic: 'p99', label: name })),
          ),
          graph('Authorizer errors (failed closed)', [authorizerErrors.with({ label: 'authorizer errors' })]),
        ],
        [
          graph('Table throttled requests', [...throttled.values()]),
          graph('Table system errors', [...systemErrors.values()]),
        ],
        BUSINESS_WIDGETS.map((w) =>
          graph(
            w.title,
            w.metrics.flatMap((m) => w.statistics.map((s) => business(m, s))),
            8,
          ),
        ),
      ],
    });
  }

  /** The alarm on the relay channel with the highest error rate (a Metrics Insights query over every channel). */
  private relayChannelAlarm(namespace: string, spec: AlarmSpec): void {
    const worstChannelErrorRate = new MathExpression({
      expression: `SELECT AVG(${RELAY_METRICS.errors}) FROM SCHEMA("${namespace}", channel, model, service) GROUP BY channel ORDER BY AVG() DESC LIMIT 1`,
      usingMetrics: {},
      label: 'worst channel error rate',
      period: Duration.minutes(spec.periodMinutes),
    });
    this.alarm('RelayChannelErrorRate', {
      metric: worstChannelErrorRate,
      spec,
      what: 'the error rate of the relay channel that fails most',
      runbook: 'relay-channel-errors',
    });
  }

  /** An alarm on the first message in a dead-letter queue (infra/kb.ts: the training queue's), on the same topic. */
  private alarmOnDeadLetters(id: string, queue: IQueue, what: string, runbook: string): Alarm {
    return this.alarm(id, {
      metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' }),
      spec: { threshold: 1, periodMinutes: 5, evaluationPeriods: 1, datapointsToAlarm: 1 },
      what,
      runbook,
    });
  }

  /** One alarm at or above `spec.threshold`, notifying the topic when it fires and when it recovers. */
  private alarm(
    id: string,
    watch: { metric: Metric | MathExpression; spec: AlarmSpec; what: string; runbook: string },
  ): Alarm {
    const { metric, spec, what, runbook } = watch;
    const period = Duration.minutes(spec.periodMinutes);
    const alarm = new Alarm(this, id, {
      metric: metric.with({ period }),
      threshold: spec.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: spec.evaluationPeriods,
      datapointsToAlarm: spec.datapointsToAlarm,
      // No traffic is not a failure: an idle API or table keeps its alarm OK.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${what} >= ${spec.threshold} in ${spec.datapointsToAlarm} of ${spec.evaluationPeriods} periods of ${spec.periodMinutes} min. Runbook: ${RUNBOOK}#${runbook}`,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.set(id, alarm);
    return alarm;
  }
}

type NamedFunction = readonly [name: string, fn: AppFunction];

/**
 * The functions in groups of at most MAX_ALARM_METRICS, by name: the order does not depend on how the stack assembles
 * its map, and a function added moves only the groups from its place in the alphabet on (each alarm is updated in
 * place, keeping its state).
 */
function functionGroups(functions: readonly NamedFunction[]): NamedFunction[][] {
  const sorted = [...functions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const groups: NamedFunction[][] = [];
  for (let i = 0; i < sorted.length; i += MAX_ALARM_METRICS) groups.push(sorted.slice(i, i + MAX_ALARM_METRICS));
  return groups;
}

const groupNames = (group: readonly NamedFunction[]): string => group.map(([name]) => name).join(', ');

/** The metric id of a function's line in a group alarm: its name, as CloudWatch ids allow (`^[a-z][a-zA-Z0-9_]*$`). */
export const functionMetricId = (name: string): string => `fn_${name.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;

/**
 * The highest per-function value of the group in each period: at or above a threshold exactly when one function's own
 * figure is, so a per-function threshold keeps its meaning. FILL makes a function without data count 0.
 */
function worstOf(group: readonly NamedFunction[], metric: (fn: AppFunction) => Metric, what: string): MathExpression {
  const usingMetrics = Object.fromEntries(
    group.map(([name, fn]) => [functionMetricId(name), metric(fn).with({ label: name })]),
  );
  return new MathExpression({
    expression: `MAX(FILL([${Object.keys(usingMetrics).join(', ')}], 0))`,
    usingMetrics,
    label: `worst function ${what}`,
  });
}

/** A 12-wide graph of `metrics` (half the dashboard), or `width` wide. */
function graph(title: string, metrics: IMetric[], width = 12): GraphWidget {
  return new GraphWidget({ title, left: metrics, width, height: 6 });
}
