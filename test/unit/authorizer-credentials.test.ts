import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  clearSecretsCache,
  freshReadLimiter,
  secretsManagerCredentialSource,
} from '#functions/authorizer/credential-source';
import { CredentialFormatError, isExpired, parseAccessTokensSecret, sha256Hex } from '#shared/access-tokens';
import {
  type LocalCredentials,
  localFileCredentialSource,
  readLocalCredentials,
  writeLocalCredentials,
} from '#shared/local-credentials';
import { useTempDir } from '#test/support/temp-dir';

const ADMIN_KEY = 'admin-key-0123456789-0123456789-0123456789';
const TOKEN = 'kb-local-SECRET-token-0123456789abcdef0123456789';
const entry = (id: string, token: string) => ({ id, token, teamId: 'team-1', tmbId: 'member-1' });

describe('parseAccessTokensSecret', () => {
  it('keeps unknown fields and defaults a missing expiry to null', () => {
    const text = JSON.stringify({
      tokens: [{ id: 'a', sha256: sha256Hex(TOKEN).toUpperCase(), teamId: 't', tmbId: 'm', owner: 'ops' }],
      generated: 'x',
    });

    const secret = parseAccessTokensSecret(text);

    expect(secret).toEqual({
      tokens: [{ id: 'a', sha256: sha256Hex(TOKEN), teamId: 't', tmbId: 'm', owner: 'ops', expiresAt: null }],
      generated: 'x',
    });
  });

  it('rejects duplicate ids, naming the field but not the value', () => {
    const record = { id: 'same', sha256: sha256Hex(TOKEN), teamId: 't', tmbId: 'm' };

    expect(() => parseAccessTokensSecret(JSON.stringify({ tokens: [record, { ...record }] }))).toThrow(
      /tokens\.1\.id is a duplicate/,
    );
  });

  it.each([
    ['2030-01-31T00:00:00Z', true],
    ['2030-01-31T00:00:00.123+02:00', true],
    ['2030-01-31', true],
    [null, true],
    ['2030-01-31T00:00:00', false],
    ['tomorrow', false],
  ])('accepts expiresAt %j: %s', (expiresAt, ok) => {
    const text = JSON.stringify({
      tokens: [{ id: 'a', sha256: sha256Hex(TOKEN), teamId: 't', tmbId: 'm', expiresAt }],
    });

    const parse = () => parseAccessTokensSecret(text);

    if (ok) expect(parse).not.toThrow();
    else expect(parse).toThrow(CredentialFormatError);
  });
});

describe('isExpired', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it.each([
    [null, false],
    ['2030-01-01T00:00:01Z', false],
    ['2030-01-01T00:00:00Z', true],
    ['2029-12-31', true],
    ['not a date', true],
  ])('treats expiresAt %j as expired: %s', (expiresAt, expired) => {
    expect(isExpired({ expiresAt }, now)).toBe(expired);
  });
});

describe('localFileCredentialSource', () => {
  const dir = useTempDir('kb-authorizer-');
  let file: string;

  beforeEach(async ({ task }) => {
    file = join(dir(), `${task.id}.json`);
  });

  it('hashes the plaintext tokens it reads', async () => {
    await writeLocalCredentials(file, { adminKey: ADMIN_KEY, accessTokens: [entry('a', TOKEN)] });
    const source = localFileCredentialSource(file);

    const records = await source.accessTokens();

    expect(records).toEqual([
      { id: 'a', sha256: sha256Hex(TOKEN), teamId: 'team-1', tmbId: 'member-1', expiresAt: null },
    ]);
    expect(JSON.stringify(records)).not.toContain(TOKEN);
    expect(await source.adminKey()).toBe(ADMIN_KEY);
  });

  it('sees a token added to the file at once (the tool renames a new file into place)', async () => {
    const credentials: LocalCredentials = { adminKey: ADMIN_KEY, accessTokens: [entry('a', TOKEN)] };
    await writeLocalCredentials(file, credentials);
    const source = localFileCredentialSource(file);
    await source.accessTokens();

    await writeLocalCredentials(file, {
      ...credentials,
      accessTokens: [...credentials.accessTokens, entry('b', 'kb-2')],
    });
    const ids = (await source.accessTokens()).map((r) => r.id);

    expect(ids).toEqual(['a', 'b']);
  });

  it('sees an in-place edit of the file at once', async () => {
    await writeLocalCredentials(file, { adminKey: ADMIN_KEY, accessTokens: [entry('a', TOKEN)] });
    const source = localFileCredentialSource(file);
    await source.accessTokens();

    await writeFile(file, JSON.stringify({ adminKey: ADMIN_KEY, accessTokens: [entry('z', TOKEN)] }));
    const ids = (await source.accessTokens()).map((r) => r.id);

    expect(ids).toEqual(['z']);
  });

  it.each([
    ['is not JSON', TOKEN],
    [
      'has an unparseable expiry',
      JSON.stringify({ adminKey: ADMIN_KEY, accessTokens: [{ ...entry('a', TOKEN), expiresAt: TOKEN }] }),
    ],
    ['repeats an id', JSON.stringify({ adminKey: ADMIN_KEY, accessTokens: [entry('a', TOKEN), entry('a', 'kb-2')] })],
  ])('throws, without quoting the file, when it %s', async (_case, text) => {
    await writeFile(file, text);

    const error = await localFileCredentialSource(file)
      .accessTokens()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CredentialFormatError);
    expect(String((error as Error).message)).not.toContain('SECRET');
  });
});

describe('readLocalCredentials', () => {
  const dir = useTempDir('kb-local-credentials-');

  it.each([
    ['is not JSON', TOKEN, /local credentials file .* is not valid JSON/],
    ['lacks the admin key', JSON.stringify({ accessTokens: [entry('a', TOKEN)] }), /adminKey/],
  ])(
    'rejects a file that %s with the same error the authorizer gets, naming the file, not its content',
    async (_case, text, message) => {
      const file = join(dir(), `${_case.replaceAll(' ', '-')}.json`);
      await writeFile(file, text);

      const read = await readLocalCredentials(file).catch((e: unknown) => e);
      const authorizerRead = await localFileCredentialSource(file)
        .adminKey()
        .catch((e: unknown) => e);

      expect(read).toBeInstanceOf(CredentialFormatError);
      expect((read as Error).message).toMatch(message);
      expect((read as Error).message).toContain(file);
      expect((read as Error).message).not.toContain('SECRET');
      expect((authorizerRead as Error).message).toBe((read as Error).message);
    },
  );

  it('rejects a missing file with the file system error, so the tools can create it', async () => {
    const error = await readLocalCredentials(join(dir(), 'missing.json')).catch((e: unknown) => e);

    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('freshReadLimiter', () => {
  it('allows one fresh read per interval, and again once the interval has passed', () => {
    let now = 10_000;
    const mayRead = freshReadLimiter(1_000, () => now);

    const first = [mayRead(), mayRead()];
    now += 999;
    const within = mayRead();
    now += 1;
    const after = [mayRead(), mayRead()];

    expect(first).toEqual([true, false]);
    expect(within).toBe(false);
    expect(after).toEqual([true, false]);
  });
});

describe('secretsManagerCredentialSource', () => {
  const secretsManager = mockClient(SecretsManagerClient);

  beforeEach(() => {
    secretsManager.reset();
    clearSecretsCache();
  });

  it('reads each secret by its id and validates it', async () => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'tokens-id' })
      .resolves({ SecretString: JSON.stringify({ tokens: [] }) })
      .on(GetSecretValueCommand, { SecretId: 'admin-id' })
      .resolves({ SecretString: ADMIN_KEY });
    const source = secretsManagerCredentialSource({
      accessTokensSecretId: 'tokens-id',
      adminKeySecretId: 'admin-id',
      maxAgeS: 60,
    });

    const [adminKey, tokens] = await Promise.all([source.adminKey(), source.accessTokens()]);

    expect(adminKey).toBe(ADMIN_KEY);
    expect(tokens).toEqual([]);
  });

  it('reads Secrets Manager again for a fresh read, bypassing the cache, and caches what it read', async () => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'tokens-id' })
      .resolvesOnce({ SecretString: JSON.stringify({ tokens: [] }) })
      .resolves({
        SecretString: JSON.stringify({ tokens: [{ id: 'new', sha256: sha256Hex(TOKEN), teamId: 't', tmbId: 'm' }] }),
      });
    const source = secretsManagerCredentialSource({
      accessTokensSecretId: 'tokens-id',
      adminKeySecretId: 'admin-id',
      maxAgeS: 60,
    });

    const cached = await source.accessTokens();
    const stillCached = await source.accessTokens();
    const fresh = await source.accessTokens({ fresh: true });
    const afterFresh = await source.accessTokens();

    expect([cached, stillCached].map((t) => t.length)).toEqual([0, 0]);
    expect(fresh.map((t) => t.id)).toEqual(['new']);
    expect(afterFresh.map((t) => t.id)).toEqual(['new']);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a secret stored as binary', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretBinary: new TextEncoder().encode(ADMIN_KEY) });
    const source = secretsManagerCredentialSource({
      accessTokensSecretId: 'tokens-id',
      adminKeySecretId: 'admin-id',
      maxAgeS: 60,
    });

    await expect(source.adminKey()).rejects.toThrow(CredentialFormatError);
  });
});
