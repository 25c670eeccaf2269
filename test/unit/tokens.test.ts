import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APIGatewayClient, FlushStageAuthorizersCacheCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { FRESH_READ_INTERVAL_MS, SECRET_VALUE_MAX_BYTES, sha256Hex } from '#shared/access-tokens';
import { readLocalCredentials } from '#shared/local-credentials';
import { fakeSecretsManager } from '#test/support/fake-secrets-manager';
import { useTempDir } from '#test/support/temp-dir';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

const NOW = new Date('2030-01-01T00:00:00Z');
const SECRET_ID = 'kb/access-tokens';
const EXISTING_TOKEN = 'kb-existing-SECRET-token-0123456789abcdef';

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** What happened, in order: AWS calls are recorded by the mocks, sleeps here. */
const timeline: string[] = [];

async function run(argv: string[], env: NodeJS.ProcessEnv = {}, regions: (string | undefined)[] = []): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runTokensCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env,
    now: () => NOW,
    secretsClient: (region) => {
      regions.push(region);
      return new SecretsManagerClient({ region: region ?? 'us-east-1' });
    },
    cloudFormationClient: (region) => new CloudFormationClient({ region: region ?? 'us-east-1' }),
    apiGatewayClient: (region) => new APIGatewayClient({ region: region ?? 'us-east-1' }),
    sleep: async (ms) => {
      timeline.push(`sleep ${ms}`);
    },
  });
  return { code, stdout, stderr };
}

const lastJson = (r: Run) => JSON.parse(r.stdout.at(-1) ?? 'null') as Record<string, unknown>;

describe('tokens tool with --secret-id (AWS Secrets Manager)', () => {
  const secretsManager = mockClient(SecretsManagerClient);
  const existing = {
    id: 'tok-existing',
    sha256: sha256Hex(EXISTING_TOKEN),
    teamId: 'team-0',
    tmbId: 'member-0',
    label: 'old',
    expiresAt: null,
    owner: 'kept as is',
  };
  const other = { ...existing, id: 'tok-other', sha256: sha256Hex('kb-other'), owner: undefined };

  const cloudFormation = mockClient(CloudFormationClient);
  const apiGateway = mockClient(APIGatewayClient);

  beforeEach(() => {
    secretsManager.reset();
    cloudFormation.reset();
    apiGateway.reset();
    timeline.length = 0;
    // The new version becomes current (no other run moved the secret meanwhile).
    secretsManager.on(UpdateSecretVersionStageCommand).resolves({});
  });

  const STACK = 'KbChannelGateway-prod';
  const OUTPUTS = [
    { OutputKey: 'DatasetApiId', OutputValue: 'dsapi12345' },
    { OutputKey: 'ProxyApiId', OutputValue: 'pxapi67890' },
    { OutputKey: 'ApiStageName', OutputValue: 'prod' },
    { OutputKey: 'SecretsMaxAgeSeconds', OutputValue: '60' },
    { OutputKey: 'AccessTokensSecretArn', OutputValue: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' },
  ];
  /** A deployed stack: the secret tagged by CloudFormation, the stack's outputs, flushes that succeed. */
  const givenDeployedStack = (outputs = OUTPUTS) => {
    secretsManager
      .on(DescribeSecretCommand, { SecretId: SECRET_ID })
      .resolves({ Tags: [{ Key: 'aws:cloudformation:stack-name', Value: STACK }] });
    cloudFormation.on(DescribeStacksCommand, { StackName: STACK }).resolves({
      Stacks: [{ StackName: STACK, StackStatus: 'UPDATE_COMPLETE', CreationTime: NOW, Outputs: outputs }],
    });
    apiGateway.on(FlushStageAuthorizersCacheCommand).callsFake((input: { restApiId: string; stageName: string }) => {
      timeline.push(`flush ${input.restApiId}/${input.stageName}`);
      return {};
    });
    secretsManager.on(PutSecretValueCommand).callsFake(() => {
      timeline.push('put secret');
      return {};
    });
  };

  const givenSecret = (value: unknown) =>
    secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_ID }).resolves({
      SecretString: typeof value === 'string' ? value : JSON.stringify(value),
      VersionId: 'version-1',
    });
  const putSecret = () => {
    const puts = secretsManager.commandCalls(PutSecretValueCommand);
    expect(puts).toHaveLength(1);
    return puts[0]!.args[0].input;
  };

  it('stores only the SHA-256 of a new token, keeping the other entries', async () => {
    givenSecret({ tokens: [existing] });
    secretsManager.on(PutSecretValueCommand).resolves({});

    const result = await run([
      'create',
      '--team',
      'team-1',
      '--member',
      'member-1',
      '--label',
      'ci',
      '--expires',
      '2031-02-03',
      '--secret-id',
      SECRET_ID,
    ]);

    expect(result.code).toBe(0);
    const printed = lastJson(result);
    const token = printed.token as string;
    expect(token).toMatch(/^kb-[A-Za-z0-9_-]{43}$/);
    expect(printed).toEqual({ token, id: expect.any(String), teamId: 'team-1', tmbId: 'member-1' });
    const input = putSecret();
    expect(input.SecretId).toBe(SECRET_ID);
    expect(input.SecretString).not.toContain(token);
    expect(JSON.parse(input.SecretString ?? '')).toEqual({
      tokens: [
        existing,
        {
          id: printed.id,
          sha256: sha256Hex(token),
          teamId: 'team-1',
          tmbId: 'member-1',
          label: 'ci',
          expiresAt: '2031-02-03T00:00:00.000Z',
        },
      ],
    });
  });

  it('prints the token exactly once', async () => {
    givenSecret({ tokens: [] });
    secretsManager.on(PutSecretValueCommand).resolves({});

    const result = await run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]);

    const token = lastJson(result).token as string;
    const all = [...result.stdout, ...result.stderr].join('\n');
    expect(all.split(token)).toHaveLength(2);
  });

  it('gives a new token a fresh 24-hex member id when --member is omitted', async () => {
    givenSecret({ tokens: [] });
    secretsManager.on(PutSecretValueCommand).resolves({});

    const result = await run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]);

    expect(lastJson(result).tmbId).toMatch(/^[0-9a-f]{24}$/);
    expect(JSON.parse(putSecret().SecretString ?? '').tokens[0]).toMatchObject({ label: '', expiresAt: null });
  });

  it('talks to the region named in a secret ARN', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kb/access-tokens-AbCdEf';
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: '{"tokens":[]}', VersionId: 'version-1' });
    secretsManager.on(PutSecretValueCommand).resolves({});
    const regions: (string | undefined)[] = [];

    const result = await run(['create', '--team', 'team-1', '--secret-id', arn], {}, regions);

    expect(result.code).toBe(0);
    expect(regions).toEqual(['eu-west-1']);
    expect(putSecret().SecretId).toBe(arn);
  });

  it('revokes exactly the entry with the given id', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(0);
    expect(lastJson(result)).toEqual({ id: 'tok-other', revoked: true, flushed: ['dsapi12345', 'pxapi67890'] });
    expect(JSON.parse(putSecret().SecretString ?? '')).toEqual({ tokens: [existing] });
  });

  it("revoke flushes both APIs' authorizer caches, waits out the secrets cache, then flushes them again", async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(0);
    expect(timeline).toEqual([
      'put secret',
      'flush dsapi12345/prod',
      'flush pxapi67890/prod',
      'sleep 61000',
      'flush dsapi12345/prod',
      'flush pxapi67890/prod',
    ]);
    expect(apiGateway.commandCalls(FlushStageAuthorizersCacheCommand).map((c) => c.args[0].input)).toEqual([
      { restApiId: 'dsapi12345', stageName: 'prod' },
      { restApiId: 'pxapi67890', stageName: 'prod' },
      { restApiId: 'dsapi12345', stageName: 'prod' },
      { restApiId: 'pxapi67890', stageName: 'prod' },
    ]);
    expect(result.stdout.join('\n')).toContain('no request is allowed with this token any more');
  });

  it('revoke --no-wait flushes each API once and states the bound that remains', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID, '--no-wait']);

    expect(result.code).toBe(0);
    expect(timeline).toEqual(['put secret', 'flush dsapi12345/prod', 'flush pxapi67890/prod']);
    expect(result.stdout.join('\n')).toContain('up to 60 s');
  });

  it('revoke --stack reads that stack and does not look the secret up', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID, '--stack', STACK]);

    expect(result.code).toBe(0);
    expect(secretsManager.commandCalls(DescribeSecretCommand)).toHaveLength(0);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({ StackName: STACK });
    expect(apiGateway.commandCalls(FlushStageAuthorizersCacheCommand)).toHaveLength(4);
  });

  it('revoke reports, with exit code 1, a stack without the API id outputs: the token is revoked but not flushed', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack(OUTPUTS.filter((o) => o.OutputKey !== 'ProxyApiId'));

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(JSON.parse(putSecret().SecretString ?? '')).toEqual({ tokens: [existing] });
    expect(result.stderr.join('\n')).toMatch(
      /revoked in kb\/access-tokens, but the authorizer caches were not flushed/,
    );
    expect(result.stderr.join('\n')).toContain(`stack ${STACK} has no ProxyApiId output`);
    expect(apiGateway.commandCalls(FlushStageAuthorizersCacheCommand)).toHaveLength(0);
  });

  it('revoke asks for --stack when the secret carries no stack tag', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();
    secretsManager.on(DescribeSecretCommand).resolves({ Tags: [] });

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain('name the stack with --stack');
  });

  it('revoke reports a failed flush with exit code 1', async () => {
    givenSecret({ tokens: [existing, other] });
    givenDeployedStack();
    apiGateway.on(FlushStageAuthorizersCacheCommand).rejects(new Error('AccessDeniedException: not allowed'));

    const result = await run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain('AccessDeniedException');
    expect(timeline).not.toContain('sleep 61000');
  });

  it.each([
    ['--stack', ['--stack', 'KbChannelGateway-dev']],
    ['--no-wait', ['--no-wait']],
  ])('refuses %s without --secret-id', async (_, extra) => {
    const result = await run(['revoke', '--id', 'x', ...extra]);

    expect(result.code).toBe(2);
    expect(result.stderr[0]).toContain('apply only with --secret-id');
  });

  /** A secret of `count` tokens as the tool writes them: 24-hex team and member ids, `label`. */
  const tokensOf = (count: number, label = '') => ({
    tokens: Array.from({ length: count }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      sha256: sha256Hex(`kb-${i}`),
      teamId: '65a0c0ffee0000000000beef',
      tmbId: '65a0c0ffee0000000000f00d',
      label,
      expiresAt: null,
    })),
  });
  const fits = (label: string) => {
    let count = 0;
    while (Buffer.byteLength(JSON.stringify(tokensOf(count + 1, label))) <= SECRET_VALUE_MAX_BYTES) count += 1;
    return count;
  };

  it('fits 296 tokens without labels, and 271 with 20-character labels, in the 64 KiB secret (docs/deploy.md says so)', async () => {
    const docs = (await readFile(join(import.meta.dirname, '..', '..', 'docs', 'deploy.md'), 'utf8')).replace(
      /\s+/g,
      ' ',
    );

    expect([fits(''), fits('x'.repeat(20))]).toEqual([296, 271]);
    expect(docs).toContain(
      'That is **296 tokens** with 24-character team and member ids and no label, **271** with 20-character labels',
    );
  });

  it('refuses, with a clear message and exit code 1, to write the secret past 64 KiB', async () => {
    givenSecret(tokensOf(fits('')));
    secretsManager.on(PutSecretValueCommand).resolves({});

    const result = await run(['create', '--team', '65a0c0ffee0000000000beef', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toMatch(
      /the access tokens secret would be [\d,]+ bytes with 297 tokens, over Secrets Manager's limit of 65,536 bytes: nothing was written/,
    );
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('still writes the secret when the new token just fits', async () => {
    givenSecret(tokensOf(fits('') - 1));
    secretsManager.on(PutSecretValueCommand).resolves({});

    const result = await run(['create', '--team', '65a0c0ffee0000000000beef', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(0);
    expect(Buffer.byteLength(putSecret().SecretString ?? '')).toBeLessThanOrEqual(SECRET_VALUE_MAX_BYTES);
  });

  it('fails with exit code 1 and writes nothing when the id to revoke is not there', async () => {
    givenSecret({ tokens: [existing] });
    givenDeployedStack();

    const result = await run(['revoke', '--id', 'tok-missing', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain('no access token with id tok-missing');
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(apiGateway.commandCalls(FlushStageAuthorizersCacheCommand)).toHaveLength(0);
  });

  it('refuses to overwrite a malformed secret, without quoting it', async () => {
    givenSecret(EXISTING_TOKEN);

    const result = await run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain('not valid JSON');
    expect(result.stderr.join('\n')).not.toContain('SECRET');
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('reports a failed read with exit code 1 and writes nothing', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException: not allowed'));

    const result = await run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain('AccessDeniedException');
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('shows a new token only after the secret has held it for longer than the authorizers’ fresh-read interval', async () => {
    givenSecret({ tokens: [] });
    secretsManager.on(PutSecretValueCommand).callsFake(() => {
      timeline.push('put secret');
      return {};
    });
    const stdout: string[] = [];

    const code = await runTokensCli(['create', '--team', 'team-1', '--secret-id', SECRET_ID], {
      stdout: (line) => {
        stdout.push(line);
        if (line.startsWith('{')) timeline.push('token shown');
      },
      stderr: () => {},
      env: {},
      now: () => NOW,
      sleep: async (ms) => {
        timeline.push(`sleep ${ms}`);
      },
    });

    expect(code).toBe(0);
    expect(timeline).toEqual(['put secret', `sleep ${2 * FRESH_READ_INTERVAL_MS}`, 'token shown']);
  });

  describe('two runs at once', () => {
    const STACK_OUTPUTS = [
      { OutputKey: 'DatasetApiId', OutputValue: 'dsapi12345' },
      { OutputKey: 'ProxyApiId', OutputValue: 'pxapi67890' },
      { OutputKey: 'ApiStageName', OutputValue: 'prod' },
      { OutputKey: 'SecretsMaxAgeSeconds', OutputValue: '60' },
    ];

    /** Secrets Manager with versions and labels; every run's write waits until `readers` runs have read. */
    const overlappingRuns = (initial: unknown, readers: number) => {
      secretsManager.reset();
      const fake = fakeSecretsManager(secretsManager, { [SECRET_ID]: JSON.stringify(initial) });
      let reads = 0;
      let allRead: () => void = () => {};
      const everyoneRead = new Promise<void>((resolve) => {
        allRead = resolve;
      });
      fake.hooks.beforeEach = async (command) => {
        if (command === 'GetSecretValue' && ++reads === readers) allRead();
        if (command === 'PutSecretValue') await everyoneRead;
      };
      cloudFormation.on(DescribeStacksCommand).resolves({
        Stacks: [{ StackName: STACK, StackStatus: 'UPDATE_COMPLETE', CreationTime: NOW, Outputs: STACK_OUTPUTS }],
      });
      apiGateway.on(FlushStageAuthorizersCacheCommand).resolves({});
      return fake;
    };
    const storedIds = (fake: ReturnType<typeof fakeSecretsManager>) =>
      (JSON.parse(fake.current(SECRET_ID)) as { tokens: { id: string }[] }).tokens.map((t) => t.id).sort();

    it('keeps a create and a revoke that both read the secret before either wrote', async () => {
      const fake = overlappingRuns({ tokens: [existing, other] }, 2);

      const [created, revoked] = await Promise.all([
        run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]),
        run(['revoke', '--id', 'tok-other', '--secret-id', SECRET_ID, '--stack', STACK, '--no-wait']),
      ]);

      expect([created.code, revoked.code]).toEqual([0, 0]);
      expect(storedIds(fake)).toEqual([lastJson(created).id, 'tok-existing'].sort());
    });

    it('keeps every one of five creates that all read the secret before any wrote', async () => {
      const fake = overlappingRuns({ tokens: [existing] }, 5);

      const runs = await Promise.all(
        Array.from({ length: 5 }, () => run(['create', '--team', 'team-1', '--secret-id', SECRET_ID])),
      );

      expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
      expect(storedIds(fake)).toEqual(['tok-existing', ...runs.map((r) => lastJson(r).id as string)].sort());
    });

    it('gives up with exit code 1, saying why, when another writer keeps moving the secret', async () => {
      secretsManager.reset();
      const fake = fakeSecretsManager(secretsManager, { [SECRET_ID]: JSON.stringify({ tokens: [existing] }) });
      // Someone else writes a new version between every read and every write of this run.
      fake.hooks.beforeEach = (command) => {
        if (command === 'PutSecretValue') fake.set(SECRET_ID, JSON.stringify({ tokens: [existing, other] }));
      };

      const result = await run(['create', '--team', 'team-1', '--secret-id', SECRET_ID]);

      expect(result.code).toBe(1);
      expect(result.stderr.join('\n')).toContain('another run changed the secret meanwhile');
      expect(storedIds(fake)).toEqual(['tok-existing', 'tok-other']);
      expect(result.stdout.join('\n')).not.toMatch(/"token"/);
    });
  });

  it('lists entries without their digests', async () => {
    givenSecret({ tokens: [existing, other] });

    const result = await run(['list', '--secret-id', SECRET_ID]);

    expect(result.code).toBe(0);
    expect(result.stdout.map((l) => JSON.parse(l).id)).toEqual(['tok-existing', 'tok-other']);
    expect(result.stdout.join('\n')).not.toContain(existing.sha256);
  });
});

describe('tokens tool without --secret-id (local credentials file)', () => {
  const dataDir = useTempDir('kb-tokens-');

  it('creates the credentials file with mode 0600 and stores the token in it', async ({ task }) => {
    const dir = join(dataDir(), task.id);

    const result = await run(['create', '--team', 'team-1', '--label', 'dev'], { DATA_DIR: dir });

    expect(result.code).toBe(0);
    const file = join(dir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const printed = lastJson(result);
    const credentials = await readLocalCredentials(file);
    expect(credentials.accessTokens).toContainEqual({
      id: printed.id,
      token: printed.token,
      teamId: 'team-1',
      tmbId: printed.tmbId,
      label: 'dev',
      expiresAt: null,
    });
    expect(result.stderr.join('\n')).toContain('Created');
  });

  it('adds to an existing file and revokes exactly one entry', async ({ task }) => {
    const env = { DATA_DIR: join(dataDir(), task.id) };
    const first = lastJson(await run(['create', '--team', 'team-1'], env));
    const second = lastJson(await run(['create', '--team', 'team-1'], env));
    const file = join(env.DATA_DIR, 'credentials.json');
    const before = (await readLocalCredentials(file)).accessTokens.map((t) => t.id);

    const result = await run(['revoke', '--id', first.id as string], env);

    const after = (await readLocalCredentials(file)).accessTokens.map((t) => t.id);
    expect(result.code).toBe(0);
    expect(before).toHaveLength(3);
    expect(after).toEqual(before.filter((id) => id !== first.id));
    expect(after).toContain(second.id);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps every edit of overlapping runs: twenty creates and a revoke at once', async ({ task }) => {
    const env = { DATA_DIR: join(dataDir(), task.id) };
    const doomed = lastJson(await run(['create', '--team', 'team-1'], env));

    const runs = await Promise.all([
      ...Array.from({ length: 20 }, () => run(['create', '--team', 'team-1'], env)),
      run(['revoke', '--id', doomed.id as string], env),
    ]);

    const stored = (await readLocalCredentials(join(env.DATA_DIR, 'credentials.json'))).accessTokens.map((t) => t.id);
    expect(runs.map((r) => r.code)).toEqual(Array(21).fill(0));
    expect(stored).not.toContain(doomed.id);
    for (const created of runs.slice(0, 20)) expect(stored).toContain(lastJson(created).id);
    expect(stored).toHaveLength(21);
  });

  it('fails with exit code 1 when the id to revoke is not in the file', async ({ task }) => {
    const env = { DATA_DIR: join(dataDir(), task.id) };
    await run(['create', '--team', 'team-1'], env);
    const before = await readFile(join(env.DATA_DIR, 'credentials.json'), 'utf8');

    const result = await run(['revoke', '--id', 'nope'], env);

    expect(result.code).toBe(1);
    expect(await readFile(join(env.DATA_DIR, 'credentials.json'), 'utf8')).toBe(before);
  });

  it('reports a corrupt file without quoting it and leaves it alone', async ({ task }) => {
    const dir = join(dataDir(), task.id);
    await run(['list'], { DATA_DIR: dir });
    const file = join(dir, 'credentials.json');
    await writeFile(file, EXISTING_TOKEN);

    const result = await run(['create', '--team', 'team-1'], { DATA_DIR: dir });

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toContain(`local credentials file ${file} is not valid JSON`);
    expect(result.stderr.join('\n')).not.toContain('SECRET');
    expect(await readFile(file, 'utf8')).toBe(EXISTING_TOKEN);
  });

  it('reports a file that breaks the schema by the rule it breaks, without quoting it', async ({ task }) => {
    const dir = join(dataDir(), task.id);
    await run(['list'], { DATA_DIR: dir });
    const file = join(dir, 'credentials.json');
    const corrupt = JSON.stringify({ adminKey: EXISTING_TOKEN, accessTokens: [{ id: 'a', token: EXISTING_TOKEN }] });
    await writeFile(file, corrupt);

    const result = await run(['create', '--team', 'team-1'], { DATA_DIR: dir });

    expect(result.code).toBe(1);
    expect(result.stderr.join('\n')).toMatch(/local credentials file .* is malformed: accessTokens\.0\.teamId/);
    expect(result.stderr.join('\n')).not.toContain('SECRET');
    expect(await readFile(file, 'utf8')).toBe(corrupt);
  });
});

describe('tokens tool arguments', () => {
  it.each([
    [[]],
    [['frobnicate']],
    [['create']],
    [['create', '--team']],
    [['create', '--team', '   ']],
    [['create', '--team', 't', '--expires', 'tomorrow']],
    [['create', '--team', 't', '--expires', '2029-12-31T23:59:59Z']],
    [['create', '--team', 't', '--bogus', 'x']],
    [['create', '--team', 't', '--id', 'x']],
    [['create', '--team', 't', 'extra']],
    [['revoke']],
    [['revoke', '--id', 'x', '--team', 't']],
  ])('rejects %j with usage on stderr and exit code 2', async (argv) => {
    const result = await run(argv, { DATA_DIR: '/nonexistent/never-written' });

    expect(result.code).toBe(2);
    expect(result.stdout).toEqual([]);
    expect(result.stderr.join('\n')).toContain('Usage:');
  });

  it('prints usage on stdout for --help', async () => {
    const result = await run(['--help']);

    expect(result.code).toBe(0);
    expect(result.stdout.join('\n')).toContain('npm run tokens -- create --team');
  });
});
