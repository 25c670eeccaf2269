import { App, RemovalPolicy } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { defaultAlarms, loadStageConfig, MAX_IMPORT_DEADLINE_MS, parseStageConfig } from '#infra/stage-config';
import { ConfigError } from '#shared/errors';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import { NO_BUNDLING, removeTempDirs, tempDir, writeConfigFile } from './synth.ts';

afterAll(removeTempDirs);

/** An App with the given context whose cloud assembly goes under the test's temp root. */
const appWith = (context: Record<string, unknown> = {}) => new App({ context, outdir: tempDir() });

const badCatalog = {
  vector: { models: ['text-embedding-3-small'], default: 'bge-m3' },
  agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
  vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
};

describe('stage config', () => {
  it('defaults to the dev stage with the built-in catalogue, 300 s authorizer TTL and the SPEC import limits', () => {
    const config = loadStageConfig(appWith().node);

    expect(config).toMatchObject({
      stage: 'dev',
      isProduction: false,
      removalPolicy: RemovalPolicy.DESTROY,
      modelCatalog: BUILT_IN_MODEL_CATALOG,
      authorizerCacheTtlSeconds: 300,
      secretsMaxAgeSeconds: 60,
      legacygw: { maxRows: 50_000, deadlineMs: 25_000, allowedHosts: [] },
    });
    expect(config.vpc).toBeUndefined();
  });

  it('retains resources for the prod stage', () => {
    const config = loadStageConfig(appWith({ stage: 'prod' }).node);

    expect(config.removalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(config.isProduction).toBe(true);
  });

  it('reads the file named by -c config', () => {
    const file = writeConfigFile({
      logRetentionDays: 90,
      legacygw: { maxRows: 1000, deadlineMs: 20_000, allowedHosts: ['10.0.0.0/8'] },
    });

    const config = loadStageConfig(appWith({ stage: 'staging', config: file }).node);

    expect(config.stage).toBe('staging');
    expect(config.logRetention).toBe(90);
    expect(config.legacygw).toEqual({ maxRows: 1000, deadlineMs: 20_000, allowedHosts: ['10.0.0.0/8'] });
  });

  it('fails synth on a model catalogue whose default is not in its list, naming MODEL_CATALOG', () => {
    const file = writeConfigFile({ modelCatalog: badCatalog });

    expect(() => buildApp({ context: { ...NO_BUNDLING, config: file }, outdir: tempDir() })).toThrow(
      /MODEL_CATALOG is invalid at vector\.default/,
    );
  });

  it('fails synth on a model catalogue with an empty model list', () => {
    const file = writeConfigFile({ modelCatalog: { ...badCatalog, vector: { models: [], default: 'x' } } });

    expect(() => buildApp({ context: { ...NO_BUNDLING, config: file }, outdir: tempDir() })).toThrow(ConfigError);
  });

  it.each([
    [
      'an import deadline the function timeout cannot cover',
      { legacygw: { deadlineMs: MAX_IMPORT_DEADLINE_MS + 1 } },
      /legacygw\.deadlineMs/,
    ],
    ['a log retention CloudWatch does not offer', { logRetentionDays: 31 }, /logRetentionDays/],
    ['an unknown key (a typo must not be ignored)', { throttle: { rateLimit: 1 } }, /throttle/],
    [
      'a VPC without subnets',
      { vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: [], securityGroupId: 'sg-0a1b2c3d' } },
      /vpc\.subnetIds/,
    ],
    [
      'an alarm that needs more breaching periods than it evaluates',
      { monitoring: { alarms: { tableThrottles: { evaluationPeriods: 2, datapointsToAlarm: 3 } } } },
      /monitoring\.alarms\.tableThrottles\.datapointsToAlarm must be at most its evaluationPeriods/,
    ],
    [
      'an alarm that evaluates more than one day',
      { monitoring: { alarms: { apiLatencyP99: { proxy: { periodMinutes: 60, evaluationPeriods: 25 } } } } },
      /monitoring\.alarms\.apiLatencyP99\.proxy: periodMinutes x evaluationPeriods must be at most 1440/,
    ],
    [
      'an alarm of an unknown kind',
      { monitoring: { alarms: { lambdaErrors: { threshold: 1 } } } },
      /monitoring\.alarms/,
    ],
    [
      'a zero alarm threshold',
      { monitoring: { alarms: { functionErrors: { threshold: 0 } } } },
      /functionErrors\.threshold/,
    ],
    ['a metrics namespace of AWS', { monitoring: { metricsNamespace: 'AWS/Lambda' } }, /monitoring\.metricsNamespace/],
    ['an alarm e-mail that is not an address', { monitoring: { alarmEmail: 'on-call' } }, /monitoring\.alarmEmail/],
    [
      'a malformed security group id',
      { vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'default' } },
      /vpc\.securityGroupId/,
    ],
  ])('rejects %s', (_, file, message) => {
    expect(() => parseStageConfig('dev', file)).toThrow(message);
  });

  it('defaults to tolerant alarms outside prod, the stage namespace, no e-mail, and a proxy p99 alarm at the import deadline', () => {
    const config = parseStageConfig('staging', { legacygw: { deadlineMs: 20_000 } });

    expect(config.monitoring.metricsNamespace).toBe('KbChannelGateway/staging');
    expect(config.monitoring.alarmEmail).toBeUndefined();
    expect(config.monitoring.alarms).toEqual(defaultAlarms(false, 20_000));
    expect(config.monitoring.alarms.functionErrors).toEqual({
      threshold: 5,
      periodMinutes: 5,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
    });
    expect(config.monitoring.alarms.apiLatencyP99.proxy.threshold).toBe(20_000);
  });

  it('pages on the first function error, throttle or table error in prod', () => {
    const { alarms } = parseStageConfig('prod').monitoring;

    for (const kind of [
      'functionErrors',
      'functionThrottles',
      'authorizerErrors',
      'tableThrottles',
      'tableSystemErrors',
    ] as const) {
      expect(alarms[kind].threshold).toBe(1);
    }
    expect(alarms.apiServerErrors.threshold).toBe(5);
    expect(alarms.apiLatencyP99.dataset.threshold).toBe(3000);
  });

  it('overrides single fields of single alarms and keeps the rest of the stage defaults', () => {
    const { monitoring } = parseStageConfig('prod', {
      monitoring: {
        alarmEmail: 'oncall@example.com',
        alarms: { apiServerErrors: { threshold: 20 }, apiLatencyP99: { dataset: { evaluationPeriods: 6 } } },
      },
    });

    expect(monitoring.alarmEmail).toBe('oncall@example.com');
    expect(monitoring.alarms.apiServerErrors).toEqual({
      ...defaultAlarms(true, 25_000).apiServerErrors,
      threshold: 20,
    });
    expect(monitoring.alarms.apiLatencyP99.dataset).toEqual({
      threshold: 3000,
      periodMinutes: 5,
      evaluationPeriods: 6,
      datapointsToAlarm: 3,
    });
    expect(monitoring.alarms.apiLatencyP99.proxy).toEqual(defaultAlarms(true, 25_000).apiLatencyP99.proxy);
  });

  it('rejects a stage name that cannot name a stack or an API stage', () => {
    expect(() => parseStageConfig('Prod_1')).toThrow(/stage/);
  });

  it('rejects a config file that is not JSON', () => {
    const file = writeConfigFile('{ not json');

    expect(() => loadStageConfig(appWith({ config: file }).node)).toThrow(/not readable JSON/);
  });
});
