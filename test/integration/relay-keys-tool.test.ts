import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAuthorizer } from '#functions/authorizer/authorizer';
import { cachedRelayKeyLookup } from '#functions/authorizer/relay-key-lookup';
import {
  ENGINE_CREDENTIALS_FILE,
  ensureTable,
  localDynamoClient,
  writeEngineCredentialsFile,
} from '#infra/local/dynamo-engine';
import { localFileCredentialSource, newAccessTokenValue, newAdminKeyValue } from '#shared/local-credentials';
import { createLogger } from '#shared/logger';
import { relayKeyHash } from '#shared/relay-keys';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { TABLES } from '#shared/tables';
import { startTestEngine, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';
import { useTempDir } from '#test/support/temp-dir';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

// `npm run tokens -- relay ...` against a real engine (dynalite, or DYNAMODB_ENDPOINT's), as the local run uses it.

const dataDir = useTempDir('kb-relay-keys-');
let engine: TestEngine;
let documents: DynamoDBDocumentClient;
let table: string;
const CHANNEL_ID_KEY = newAdminKeyValue();

beforeAll(async () => {
  engine = await startTestEngine();
  documents = DynamoDBDocumentClient.from(localDynamoClient(engine));
});

afterAll(async () => {
  documents?.destroy();
  await engine?.close();
});

beforeEach(async () => {
  table = uniqueTableName('relay-keys');
  await ensureTable(localDynamoClient(engine), table, TABLES.relayKeys);
  await writeEngineCredentialsFile(join(dataDir(), ENGINE_CREDENTIALS_FILE), engine);
  await writeFile(
    join(dataDir(), 'credentials.json'),
    JSON.stringify({ adminKey: newAdminKeyValue(), channelIdKey: CHANNEL_ID_KEY, accessTokens: [] }),
    { mode: 0o600 },
  );
});

async function tool(...argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runTokensCli(argv, {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    env: { DATA_DIR: dataDir() },
  });
  const last = stdout.at(-1);
  return { code, stdout, stderr, json: last?.startsWith('{') ? (JSON.parse(last) as Record<string, unknown>) : {} };
}

async function scan(): Promise<Record<string, unknown>[]> {
  return (await documents.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items ?? [];
}

describe('npm run tokens -- relay', () => {
  it('creates a key, prints it once as the last JSON line, and stores only its keyed hash', async () => {
    const created = await tool('relay', 'create', '--name', 'ci', '--table', table);

    expect(created.code).toBe(0);
    const key = created.json.key as string;
    expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(created.json).toEqual({ key, id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'ci' });
    expect(created.stdout.filter((line) => line.includes(key.slice(3)))).toHaveLength(1);
    const items = await scan();
    expect(items).toEqual([
      {
        keyHash: relayKeyHash(Buffer.from(CHANNEL_ID_KEY, 'utf8'), key),
        id: created.json.id,
        name: 'ci',
        groups: ['default'],
        status: 'enabled',
        createdAt: expect.any(String),
      },
    ]);
  });

  it('keeps no key, no prefix and no suffix of a key in clear anywhere in the table', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const created = await tool('relay', 'create', '--name', `k${i}`, '--group', 'vip', '--table', table);
      keys.push(created.json.key as string);
    }

    const dump = JSON.stringify(await scan());

    expect(JSON.parse(dump)).toHaveLength(5);
    for (const key of keys) {
      const body = key.slice(3);
      for (const part of [key, body, key.slice(0, 7), body.slice(0, 6), body.slice(-4), body.slice(20, 28)]) {
        expect(dump).not.toContain(part);
      }
    }
    expect(dump).not.toMatch(/sk-[A-Za-z0-9]/);
  });

  it('stores ordered groups, models, IPs and the expiry as given (repeated or comma-separated)', async () => {
    const created = await tool(
      'relay',
      'create',
      '--name',
      'limited',
      '--group',
      'vip',
      '--group',
      'default,night',
      '--models',
      'gpt-4o,gpt-4o-mini',
      '--ips',
      '10.0.0.0/8',
      '--ips',
      '2001:db8::1',
      '--expires',
      '2999-01-31',
      '--table',
      table,
    );

    expect(created.code).toBe(0);
    expect(await scan()).toEqual([
      expect.objectContaining({
        groups: ['vip', 'default', 'night'],
        models: ['gpt-4o', 'gpt-4o-mini'],
        ips: ['10.0.0.0/8', '2001:db8::1'],
        expiresAt: '2999-01-31T00:00:00.000Z',
      }),
    ]);
  });

  it.each([
    [['--name', 'x', '--ips', '10.0.0.0/33'], '--ips must be an IP address or a CIDR'],
    [['--name', 'x', '--ips', 'example.com'], '--ips must be an IP address or a CIDR'],
    [['--name', 'x', '--expires', '2001-01-01'], '--expires must be in the future'],
    [['--name', 'x', '--expires', 'tomorrow'], '--expires must be an ISO 8601'],
    [['--group', 'vip'], '--name is required'],
    [['--name', 'x', '--id', 'abc'], '--id does not apply to relay create'],
    [['--name', 'x', '--secret-id', 'k'], '--secret-id needs --table'],
  ])('refuses %j with exit code 2 and writes nothing', async (argv, message) => {
    const result = await tool('relay', 'create', ...argv, ...(argv.includes('--secret-id') ? [] : ['--table', table]));

    expect(result.code).toBe(2);
    expect(result.stderr.join('\n')).toContain(message);
    expect(await scan()).toEqual([]);
  });

  it('lists keys as sk-… and their id, never a key or its hash', async () => {
    const created = await tool('relay', 'create', '--name', 'listed', '--table', table);

    const listed = await tool('relay', 'list', '--table', table);

    expect(listed.code).toBe(0);
    expect(listed.stdout.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ label: `sk-…${created.json.id}`, id: created.json.id, name: 'listed' }),
    ]);
    const text = listed.stdout.join('\n');
    expect(text).not.toContain((created.json.key as string).slice(3));
    expect(text).not.toContain('keyHash');
  });

  it('revokes by id: the key stays, disabled with its reason; an unknown id is exit code 1', async () => {
    const created = await tool('relay', 'create', '--name', 'doomed', '--table', table);

    const revoked = await tool('relay', 'revoke', '--id', created.json.id as string, '--table', table);
    const unknown = await tool('relay', 'revoke', '--id', 'f'.repeat(24), '--table', table);

    expect(revoked).toMatchObject({ code: 0, json: { id: created.json.id, revoked: true } });
    expect(await scan()).toEqual([
      expect.objectContaining({ id: created.json.id, status: 'disabled', statusReason: 'revoked' }),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.join('\n')).toContain(`no relay key with id ${'f'.repeat(24)}`);
  });

  it('makes keys the authorizer allows on the relay API at once, and denies once revoked', async () => {
    const credentialsFile = join(dataDir(), 'credentials.json');
    const authorizer = createAuthorizer({
      source: localFileCredentialSource(credentialsFile),
      logger: createLogger('authorizer', 'SILENT'),
      relayKeys: cachedRelayKeyLookup({
        store: new RelayKeysRepository(documents, table),
        hmacKey: async () => Buffer.from(CHANNEL_ID_KEY, 'utf8'),
        maxAgeMs: 0,
      }),
    });
    const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:localrelay/local/POST/v1/chat/completions';
    const decide = async (key: string) =>
      (await authorizer({ type: 'TOKEN', authorizationToken: `Bearer ${key}`, methodArn })).policyDocument.Statement[0]
        ?.Effect;
    const created = await tool('relay', 'create', '--name', 'live', '--table', table);
    const key = created.json.key as string;

    const before = [await decide(key), await decide(key.slice(3)), await decide(newAccessTokenValue())];
    await tool('relay', 'revoke', '--id', created.json.id as string, '--table', table);
    const after = await decide(key);

    expect(before).toEqual(['Allow', 'Allow', 'Deny']);
    expect(after).toBe('Deny');
  });

  it('with --secret-id and --table, hashes under the secret the stack made and writes to that table', async () => {
    const secretKey = newAdminKeyValue();
    const secrets = mockClient(SecretsManagerClient);
    secrets
      .on(GetSecretValueCommand, { SecretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cid' })
      .resolves({
        SecretString: secretKey,
      });
    const regions: (string | undefined)[] = [];
    try {
      const stdout: string[] = [];
      const code = await runTokensCli(
        [
          'relay',
          'create',
          '--name',
          'aws',
          '--table',
          table,
          '--secret-id',
          'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cid',
        ],
        {
          stdout: (line) => stdout.push(line),
          stderr: () => {},
          env: {},
          secretsClient: (region) => new SecretsManagerClient({ region }),
          dynamoClient: (region) => {
            regions.push(region);
            return localDynamoClient(engine);
          },
        },
      );
      const key = (JSON.parse(stdout.at(-1) ?? '{}') as { key: string }).key;

      expect(code).toBe(0);
      expect(regions).toEqual(['eu-west-1']);
      expect((await scan()).map((item) => item.keyHash)).toEqual([relayKeyHash(Buffer.from(secretKey, 'utf8'), key)]);
    } finally {
      secrets.restore();
    }
  });

  it('records the last use of a key by its id at most once a minute', async () => {
    const created = await tool('relay', 'create', '--name', 'used', '--table', table);
    const repository = new RelayKeysRepository(documents, table);
    const id = created.json.id as string;

    const first = await repository.markUsed(id, new Date('2026-06-01T00:00:00Z'));
    const soon = await repository.markUsed(id, new Date('2026-06-01T00:00:30Z'));
    const later = await repository.markUsed(id, new Date('2026-06-01T00:01:01Z'));
    const unknown = await repository.markUsed('f'.repeat(24), new Date('2026-06-01T00:02:00Z'));

    expect([first, soon, later, unknown]).toEqual([true, false, true, false]);
    expect(await scan()).toEqual([expect.objectContaining({ id, lastUsedAt: '2026-06-01T00:01:01.000Z' })]);
  });
});
