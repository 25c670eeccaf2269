import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { copyCredentialsBesideBundle, loadSamMode, SAM_CREDENTIALS_PATH, SAM_DYNAMODB_ENDPOINT } from '#infra/sam';
import { ENV } from '#shared/config';
import { LOCAL_CREDENTIALS_FILE_ENV } from '#shared/local-credentials';
import { TABLES } from '#shared/tables';
import { removeTempDirs, synthStack, tempDir } from './synth.ts';

afterAll(removeTempDirs);

type Json = Record<string, unknown>;

const SAM_ENV = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'sam-env.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;

const functionsOf = (template: ReturnType<typeof synthStack>['template']) =>
  new Map(Object.entries(template.findResources('AWS::Lambda::Function')).map(([id, r]) => [id, r.Properties as Json]));
const declared = (fn: Json | undefined) =>
  ((fn?.Environment as Json | undefined)?.Variables ?? {}) as Record<string, unknown>;

describe('the SAM-ready template (npm run synth:sam)', () => {
  const { stack, template } = synthStack({}, 'dev', { sam: true });
  const functions = functionsOf(template);

  it.each(Object.entries(SAM_ENV))(
    'declares every variable the committed sam-env.json sets for %s, so SAM applies them',
    (logicalId, variables) => {
      const fn = functions.get(logicalId);

      expect(fn, `${logicalId} is not a function of the template`).toBeDefined();
      expect(Object.keys(variables).length).toBeGreaterThan(0);
      for (const name of Object.keys(variables)) expect([name, name in declared(fn)]).toEqual([name, true]);
    },
  );

  it('has sam-env.json entries for the authorizer and every function with a table, pointing at the npm start engine', () => {
    const stackId = (name: 'authorizer' | 'create-dataset' | 'import-legacygw') =>
      stack.getLogicalId(stack.functions[name].function.node.defaultChild as never);

    expect(SAM_ENV[stackId('authorizer')]?.[LOCAL_CREDENTIALS_FILE_ENV]).toBe(SAM_CREDENTIALS_PATH);
    expect(SAM_ENV[stackId('create-dataset')]).toMatchObject({
      [ENV.datasetsTable]: TABLES.datasets.logicalName,
      [ENV.dynamodbEndpoint]: SAM_DYNAMODB_ENDPOINT,
    });
    expect(SAM_ENV[stackId('import-legacygw')]).toMatchObject({
      [ENV.channelsTable]: TABLES.channels.logicalName,
      [ENV.dynamodbEndpoint]: SAM_DYNAMODB_ENDPOINT,
    });
  });

  it('declares the local engine on every function that uses a table and local credentials on the authorizer', () => {
    for (const [name, fn] of Object.entries(stack.functions)) {
      const vars = declared(functions.get(stack.getLogicalId(fn.function.node.defaultChild as never)));
      expect([name, vars[ENV.dynamodbEndpoint]]).toEqual([name, fn.usesTables ? SAM_DYNAMODB_ENDPOINT : undefined]);
    }
    expect(
      declared(functions.get(stack.getLogicalId(stack.functions.authorizer.function.node.defaultChild as never)))[
        LOCAL_CREDENTIALS_FILE_ENV
      ],
    ).toBe(SAM_CREDENTIALS_PATH);
  });

  it('never declares the local engine or local credentials in the template that deploys', () => {
    const { template: deployable } = synthStack();

    for (const [id, fn] of functionsOf(deployable)) {
      expect([id, ENV.dynamodbEndpoint in declared(fn)]).toEqual([id, false]);
      expect([id, LOCAL_CREDENTIALS_FILE_ENV in declared(fn)]).toEqual([id, false]);
      expect((fn.Architectures as string[])[0]).toBe('arm64');
    }
  });

  it('builds for the architecture named by samArchitecture (an x86 override for hosts without arm64 emulation)', () => {
    const { template: x86 } = synthStack({}, 'dev', { sam: true, samArchitecture: 'x86_64' });
    const { template: arm } = synthStack({}, 'dev', { sam: 'true', samArchitecture: 'arm64' });

    for (const fn of functionsOf(x86).values()) expect(fn.Architectures).toEqual(['x86_64']);
    for (const fn of functionsOf(arm).values()) expect(fn.Architectures).toEqual(['arm64']);
  });
});

describe('SAM mode', () => {
  const node = (context: Record<string, unknown>) => new App({ context, outdir: tempDir() }).node;

  it("follows the host's architecture unless told, and takes DATA_DIR's credentials file", () => {
    const onArm = loadSamMode(node({ sam: true }), { DATA_DIR: '/srv/kb' }, 'arm64');
    const onX64 = loadSamMode(node({ sam: 'true' }), {}, 'x64');

    expect(onArm).toEqual({ architecture: Architecture.ARM_64, credentialsFile: '/srv/kb/credentials.json' });
    expect(onX64?.architecture).toEqual(Architecture.X86_64);
    expect(onX64?.credentialsFile).toMatch(/\/\.data\/credentials\.json$/);
    expect(loadSamMode(node({}))).toBeUndefined();
    expect(loadSamMode(node({ sam: 'false' }))).toBeUndefined();
  });

  it.each([
    [{ sam: 'yes' }, /Context "sam" must be true or false/],
    [{ sam: true, samArchitecture: 'amd64' }, /Context "samArchitecture" must be arm64 or x86_64/],
  ])('rejects %j', (context, message) => {
    expect(() => loadSamMode(node(context))).toThrow(message);
  });

  it('copies the credentials file beside the authorizer bundle, keeping its 0600 mode', () => {
    const dir = tempDir('sam-');
    const credentials = join(dir, "it's credentials.json");
    const output = join(dir, 'asset');
    mkdirSync(output);
    writeFileSync(credentials, '{"adminKey":"x"}', { mode: 0o600 });

    for (const command of copyCredentialsBesideBundle(credentials)(output)) execFileSync('bash', ['-c', command]);

    expect(readFileSync(join(output, 'credentials.json'), 'utf8')).toBe('{"adminKey":"x"}');
    expect(statSync(join(output, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('fails the bundling step with what to do when there is no credentials file yet', () => {
    const dir = tempDir('sam-');
    const commands = copyCredentialsBesideBundle(join(dir, 'missing.json'))(dir).join(' && ');

    expect(() => execFileSync('bash', ['-c', commands], { stdio: 'pipe' })).toThrow(/run npm start once/);
  });
});
