import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { parseMethodArn } from '#functions/authorizer/policy';
import { evaluatePolicy } from '#infra/local/policy';
import { sha256Hex } from '#shared/access-tokens';
import { APIS } from '#shared/routes';
import { tokenEvent as event, METHOD_ARNS, SECRET_IDS, useDeployedAuthorizer } from '#test/support/authorizer';
import { fakeSecretsManager } from '#test/support/fake-secrets-manager';
import { runTokensCli } from '../../scripts/tokens/cli.ts';

const authorizer = await useDeployedAuthorizer('SILENT');
const { handler, secretsManager } = authorizer;

const ADMIN_KEY = 'admin-key-0123456789-0123456789-0123456789';
const TOKEN = 'kb-test-token-0123456789abcdef0123456789abcdef';
const EXPIRED_TOKEN = 'kb-expired-token-0123456789abcdef0123456789';
const TEAM = '65a0c0ffee0000000000beef';
const MEMBER = '65a0c0ffee0000000000f00d';

const { dataset: DATASET_ARN, proxy: PROXY_ARN } = METHOD_ARNS;

const tokensSecret = JSON.stringify({
  tokens: [
    { id: 'tok-live', sha256: sha256Hex(TOKEN), teamId: TEAM, tmbId: MEMBER, label: 'ci', expiresAt: null },
    {
      id: 'tok-old',
      sha256: sha256Hex(EXPIRED_TOKEN),
      teamId: TEAM,
      tmbId: MEMBER,
      label: '',
      expiresAt: '2000-01-01T00:00:00Z',
    },
  ],
});

const givenSecrets = (values: { tokens?: string; adminKey?: string } = {}) =>
  authorizer.givenSecrets({ tokens: values.tokens ?? tokensSecret, adminKey: values.adminKey ?? ADMIN_KEY });

const effects = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement.map((s) => s.Effect);

afterEach(() => {
  vi.useRealTimers();
});

describe('authorizer handler (Secrets Manager)', () => {
  it('allows a valid access token on the knowledge-base API with its team, member and token id', async () => {
    givenSecrets();

    const result = await handler(event(`Bearer ${TOKEN}`));

    expect(effects(result)).toEqual(['Allow']);
    expect(result.principalId).toBe('tok-live');
    expect(result.context).toEqual({ scope: 'dataset', teamId: TEAM, tmbId: MEMBER, tokenId: 'tok-live' });
    expect(
      secretsManager
        .commandCalls(GetSecretValueCommand)
        .map((c) => c.args[0].input.SecretId)
        .sort(),
    ).toEqual(['test/access-tokens', 'test/admin-key']);
  });

  it('allows the admin key on the channel proxy API with scope admin', async () => {
    givenSecrets();

    const result = await handler(event(`bearer ${ADMIN_KEY}`, PROXY_ARN));

    expect(effects(result)).toEqual(['Allow']);
    expect(result.principalId).toBe('admin');
    expect(result.context).toEqual({ scope: 'admin', teamId: '', tmbId: '', tokenId: 'admin' });
  });

  it('accepts an admin key secret stored with a trailing newline', async () => {
    givenSecrets({ adminKey: `${ADMIN_KEY}\n` });

    const result = await handler(event(`Bearer ${ADMIN_KEY}`, PROXY_ARN));

    expect(effects(result)).toEqual(['Allow']);
  });

  it.each([
    ['an unknown token', 'Bearer kb-unknown-token', DATASET_ARN],
    ['an expired token', `Bearer ${EXPIRED_TOKEN}`, DATASET_ARN],
  ])('denies %s', async (_case, header, methodArn) => {
    givenSecrets();

    const result = await handler(event(header, methodArn));

    expect(effects(result)).toEqual(['Deny']);
    expect(result.context).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain(header.slice('Bearer '.length));
  });

  it.each([
    ['the admin key on the knowledge-base API', `Bearer ${ADMIN_KEY}`, DATASET_ARN, 'dataset'],
    ['an access token on the channel proxy API', `Bearer ${TOKEN}`, PROXY_ARN, 'proxy'],
  ] as const)('gives %s a policy that opens none of that API’s methods', async (_case, header, methodArn, api) => {
    givenSecrets();
    const { apiId, stage } = parseMethodArn(methodArn)!;

    const result = await handler(event(header, methodArn));

    expect(evaluatePolicy(result, methodArn)).toBe('deny');
    for (const route of APIS[api].routes) {
      const arn = `arn:aws:execute-api:us-east-1:123456789012:${apiId}/${stage}/${route.method}${route.path.replace(/\{[^}]+\}/g, 'x')}`;
      expect(evaluatePolicy(result, arn)).toBe('deny');
    }
    expect(JSON.stringify(result)).not.toContain(header.slice('Bearer '.length));
  });

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['a Basic header', 'Basic x'],
    ['Bearer without a token', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['a token with inner spaces', `Bearer ${TOKEN} x`],
  ])('rejects %s as Unauthorized', async (_case, header) => {
    givenSecrets();

    await expect(handler(event(header))).rejects.toThrow(/^Unauthorized$/);
  });

  it('fails closed when a secret cannot be read', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException: not allowed'));

    const outcome = handler(event(`Bearer ${TOKEN}`));

    await expect(outcome).rejects.toThrow(Error);
    await expect(outcome).rejects.not.toThrow(/^Unauthorized$/);
  });

  it.each([
    ['not JSON', { tokens: `{"tokens": [${JSON.stringify(TOKEN)}` }],
    ['without a tokens list', { tokens: '{"items": []}' }],
    [
      'with a digest that is not hex',
      { tokens: JSON.stringify({ tokens: [{ id: 'a', sha256: TOKEN, teamId: 't', tmbId: 'm' }] }) },
    ],
    ['with an unparseable expiry', { tokens: tokensSecret.replace('2000-01-01T00:00:00Z', 'next year') }],
    ['with an admin key shorter than 32 characters', { adminKey: 'short-admin-key' }],
  ])('fails closed when the secret is malformed (%s)', async (_case, secrets) => {
    givenSecrets(secrets);

    const outcome = handler(event(`Bearer ${TOKEN}`));

    await expect(outcome).rejects.toThrow(Error);
    await expect(outcome).rejects.not.toThrow(/^Unauthorized$/);
  });

  it('does not remember a failure: the next call reads the secret again', async () => {
    givenSecrets();
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'test/access-tokens' })
      .rejectsOnce(new Error('ThrottlingException'))
      .resolves({ SecretString: tokensSecret });
    await expect(handler(event(`Bearer ${TOKEN}`))).rejects.toThrow();

    const result = await handler(event(`Bearer ${TOKEN}`));

    expect(effects(result)).toEqual(['Allow']);
  });

  it('reuses the cached secrets within their max age for known tokens', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));
    const callsAfterFirst = secretsManager.commandCalls(GetSecretValueCommand).length;

    await handler(event(`Bearer ${ADMIN_KEY}`, PROXY_ARN));
    await handler(event(`Bearer ${EXPIRED_TOKEN}`));

    expect(callsAfterFirst).toBe(2);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('reads the secrets again once their max age has passed, so a revoked token stops working', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    givenSecrets();
    expect(effects(await handler(event(`Bearer ${TOKEN}`)))).toEqual(['Allow']);
    secretsManager.reset();
    givenSecrets({ tokens: '{"tokens": []}' });

    vi.setSystemTime(new Date('2030-01-01T00:00:59Z'));
    const withinMaxAge = await handler(event(`Bearer ${TOKEN}`));
    const readsWithinMaxAge = secretsManager.commandCalls(GetSecretValueCommand).length;
    vi.setSystemTime(new Date('2030-01-01T00:01:01Z'));
    const afterMaxAge = await handler(event(`Bearer ${TOKEN}`));

    expect(effects(withinMaxAge)).toEqual(['Allow']);
    expect(readsWithinMaxAge).toBe(0);
    expect(effects(afterMaxAge)).toEqual(['Deny']);
  });
});

describe('authorizer handler: a token created after the secrets were cached', () => {
  const NEW_TOKEN = 'kb-new-token-created-a-moment-ago-0123456789abcdef';
  const withNewToken = JSON.stringify({
    tokens: [
      ...(JSON.parse(tokensSecret) as { tokens: unknown[] }).tokens,
      { id: 'tok-new', sha256: sha256Hex(NEW_TOKEN), teamId: TEAM, tmbId: MEMBER, label: '', expiresAt: null },
    ],
  });
  const tokenReads = () =>
    secretsManager.commandCalls(GetSecretValueCommand).filter((c) => c.args[0].input.SecretId === 'test/access-tokens')
      .length;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
  });

  it('is allowed on its first request: the unknown token makes the authorizer read the secret again, bypassing its cache', async () => {
    givenSecrets();
    expect(effects(await handler(event(`Bearer ${TOKEN}`)))).toEqual(['Allow']);
    givenSecrets({ tokens: withNewToken });

    vi.setSystemTime(new Date('2030-01-01T00:00:05Z'));
    const result = await handler(event(`Bearer ${NEW_TOKEN}`));

    expect(effects(result)).toEqual(['Allow']);
    expect(result.principalId).toBe('tok-new');
    expect(tokenReads()).toBe(2);
  });

  it('keeps the freshly read secret in the cache, so the next requests read nothing', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));
    givenSecrets({ tokens: withNewToken });
    await handler(event(`Bearer ${NEW_TOKEN}`));
    const readsAfterRefresh = secretsManager.commandCalls(GetSecretValueCommand).length;

    vi.setSystemTime(new Date('2030-01-01T00:00:30Z'));
    const again = await handler(event(`Bearer ${NEW_TOKEN}`));

    expect(effects(again)).toEqual(['Allow']);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(readsAfterRefresh);
  });

  it('reads the secrets again at most once a second per instance under a flood of unknown tokens', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);

    const flood = async (count: number) => {
      const results = [];
      for (let i = 0; i < count; i += 1) {
        results.push(await handler(event(`Bearer kb-unknown-token-of-a-credential's-length-${i}`)));
      }
      return results;
    };
    const first = await flood(100);
    const readsAfterFirstSecond = secretsManager.commandCalls(GetSecretValueCommand).length;
    vi.setSystemTime(new Date('2030-01-01T00:00:00.999Z'));
    await flood(100);
    const readsBeforeNextSecond = secretsManager.commandCalls(GetSecretValueCommand).length;
    vi.setSystemTime(new Date('2030-01-01T00:00:01Z'));
    await flood(100);

    expect(first.every((r) => effects(r)[0] === 'Deny')).toBe(true);
    expect(readsAfterFirstSecond).toBe(4);
    expect(readsBeforeNextSecond).toBe(4);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(6);
  });

  it('never reads again for a token shorter than any credential the tools make', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));

    const results = [];
    for (const junk of ['x', 'kb-', 'kb-short-junk', 'a'.repeat(31)])
      results.push(await handler(event(`Bearer ${junk}`)));

    expect(results.map((r) => effects(r)[0])).toEqual(['Deny', 'Deny', 'Deny', 'Deny']);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  // The attack: junk of a credential's length spends the once-a-second fresh read just before a token is
  // created, and the new token, used at once, met the spent limit and got a Deny that API Gateway caches.
  it('allows a token from the tokens tool on its first use even when junk spent the fresh read just before', async () => {
    secretsManager.reset();
    const fake = fakeSecretsManager(secretsManager, {
      [SECRET_IDS.accessTokens]: tokensSecret,
      [SECRET_IDS.adminKey]: ADMIN_KEY,
    });
    expect(effects(await handler(event(`Bearer ${TOKEN}`)))).toEqual(['Allow']);
    vi.setSystemTime(new Date('2030-01-01T00:00:10Z'));
    expect(effects(await handler(event(`Bearer kb-junk-of-a-credential's-length-0123456789abcdef`)))).toEqual(['Deny']);
    const stdout: string[] = [];

    const code = await runTokensCli(['create', '--team', TEAM, '--secret-id', SECRET_IDS.accessTokens], {
      stdout: (line) => stdout.push(line),
      stderr: () => {},
      env: {},
      secretsClient: () => new SecretsManagerClient({ region: 'us-east-1' }),
      // The tool's waits pass on the authorizer's clock.
      sleep: async (ms) => {
        vi.setSystemTime(new Date(Date.now() + ms));
      },
    });
    const { token } = JSON.parse(stdout.at(-1) ?? '{}') as { token: string };
    const firstUse = await handler(event(`Bearer ${token}`));

    expect(code).toBe(0);
    expect(fake.current(SECRET_IDS.accessTokens)).toContain(sha256Hex(token));
    expect(effects(firstUse)).toEqual(['Allow']);
  });

  it('does not read again for a token it knows to be expired', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));

    const result = await handler(event(`Bearer ${EXPIRED_TOKEN}`));

    expect(effects(result)).toEqual(['Deny']);
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('fails closed when the fresh read fails, without a policy API Gateway would cache', async () => {
    givenSecrets();
    await handler(event(`Bearer ${TOKEN}`));
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'test/access-tokens' })
      .rejects(new Error('ThrottlingException'));

    const outcome = handler(event(`Bearer ${NEW_TOKEN}`));

    await expect(outcome).rejects.toThrow(Error);
    await expect(outcome).rejects.not.toThrow(/^Unauthorized$/);
  });
});
