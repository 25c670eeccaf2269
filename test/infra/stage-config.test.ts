import { App, RemovalPolicy } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { loadStageConfig, MAX_IMPORT_DEADLINE_MS, parseStageConfig } from '#infra/stage-config';
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
      'a malformed security group id',
      { vpc: { vpcId: 'vpc-0a1b2c3d', subnetIds: ['subnet-0a1b2c3d'], securityGroupId: 'default' } },
      /vpc\.securityGroupId/,
    ],
  ])('rejects %s', (_, file, message) => {
    expect(() => parseStageConfig('dev', file)).toThrow(message);
  });

  it('rejects a stage name that cannot name a stack or an API stage', () => {
    expect(() => parseStageConfig('Prod_1')).toThrow(/stage/);
  });

  it('rejects a config file that is not JSON', () => {
    const file = writeConfigFile('{ not json');

    expect(() => loadStageConfig(appWith({ config: file }).node)).toThrow(/not readable JSON/);
  });
});
