import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { AppFunction } from '#infra/constructs/function';
import { bundledEnv, decodeBundledEnv, encodeBundledEnv } from '#shared/bundled-env';
import { ENV } from '#shared/config';
import { parseModelCatalog } from '#shared/model-catalog';
import { logicalId, removeTempDirs, tempDir } from './synth.ts';

// docs/deploy.md, "Model catalogue": a stage's catalogue is compiled into the bundles through a module esbuild
// injects, never through esbuild's command line, where 500 models passed the 128 KiB one argument may hold
// (spawnSync E2BIG).

afterAll(removeTempDirs);

const catalogueOf = (count: number) => {
  const names = Array.from(
    { length: count },
    (_, i) => `provider-${i % 17}/a-rather-long-vector-model-name-of-a-real-stage-${String(i).padStart(4, '0')}`,
  );
  return {
    vector: { models: names.slice(0, count - 20), default: names[0] },
    agent: { models: names.slice(count - 20, count - 10), default: names[count - 20] },
    vlm: { models: names.slice(count - 10), default: names[count - 10] },
  };
};

describe('a large model catalogue', () => {
  it('bundles a function with a 500-model catalogue, whose encoding is over what one argument may hold', () => {
    // As the stack compiles it (infra/stack.ts): the parsed catalogue, every model an item with its limits.
    const values = { [ENV.modelCatalog]: JSON.stringify(parseModelCatalog(catalogueOf(500))) };
    const encoded = encodeBundledEnv(values);
    expect(encoded.length).toBeGreaterThan(128 * 1024);
    const app = new App({ outdir: tempDir() });
    const stack = new Stack(app, 'Catalogue');
    const fn = new AppFunction(stack, 'ListDatasets', {
      name: 'list-datasets',
      description: 'list-datasets with a large catalogue',
      memorySize: 256,
      timeout: Duration.seconds(10),
      logRetention: RetentionDays.ONE_DAY,
      removalPolicy: RemovalPolicy.DESTROY,
      environment: {},
      bundledEnvironment: values,
    });

    const assembly = app.synth();

    const template = JSON.parse(readFileSync(join(assembly.directory, 'Catalogue.template.json'), 'utf8')) as {
      Resources: Record<string, { Properties: { Code: { S3Key: string } } }>;
    };
    const s3Key = template.Resources[logicalId(stack, fn.function)]?.Properties.Code.S3Key ?? '';
    const bundle = readFileSync(join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.mjs'), 'utf8');
    const compiled = bundle.match(/"([A-Za-z0-9+/=]{100000,})"/)?.[1];
    expect(compiled).toBe(encoded);
    expect(decodeBundledEnv(compiled ?? '')).toEqual(values);
    // Unbundled code (tests, npm start) sees no compiled values.
    expect(bundledEnv()).toEqual({});
  }, 120_000);
});
