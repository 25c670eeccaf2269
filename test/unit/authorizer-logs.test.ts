import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';

import { sha256Hex } from '#shared/access-tokens';
import { tokenEvent as event, outcomeAndOutput, useDeployedAuthorizer } from '#test/support/authorizer';

const { handler, secretsManager, ...authorizer } = await useDeployedAuthorizer('DEBUG');

const ADMIN_KEY = 'admin-key-SECRET-0123456789-0123456789-xyz';
const TOKEN = 'kb-SECRET-token-0123456789abcdef0123456789abcdef';
const tokensSecret = JSON.stringify({
  tokens: [{ id: 'tok-live', sha256: sha256Hex(TOKEN), teamId: 'team', tmbId: 'member', expiresAt: null }],
});

const givenSecrets = (tokens: string, adminKey: string) => authorizer.givenSecrets({ tokens, adminKey });

/** Runs the handler while capturing stdout and stderr; returns what was written. */
const logsOf = async (run: () => Promise<unknown>): Promise<string> => (await outcomeAndOutput(run)).output;

describe('authorizer logs never carry a token or the admin key', () => {
  it.each([
    ['an unknown token is denied', 'Bearer kb-SECRET-unknown-token-0000000000000000', 'Denied'],
    ['the admin key is used on the knowledge-base API', `Bearer ${ADMIN_KEY}`, 'not one of its routes'],
    ['a live token is allowed', `Bearer ${TOKEN}`, 'Allowed'],
    ['a header with inner spaces is malformed', `Bearer ${TOKEN} ${ADMIN_KEY}`, 'malformed'],
  ])('when %s', async (_case, header, expectedMessage) => {
    givenSecrets(tokensSecret, ADMIN_KEY);

    const logs = await logsOf(() => handler(event(header)));

    expect(logs).toContain(expectedMessage);
    expect(logs).not.toContain('SECRET');
  });

  it.each([
    // JSON.parse's own message would quote the start of this text.
    ['the access tokens secret is a bare token, not JSON', TOKEN, ADMIN_KEY],
    ['a stored digest is a plaintext token', tokensSecret.replace(sha256Hex(TOKEN), TOKEN), ADMIN_KEY],
    ['the admin key contains a space', tokensSecret, `${ADMIN_KEY} SECRET`],
  ])('when the authorizer fails closed because %s', async (_case, tokens, adminKey) => {
    givenSecrets(tokens, adminKey);

    const logs = await logsOf(() => handler(event(`Bearer ${TOKEN}`)));

    expect(logs).toContain('failing closed');
    expect(logs).not.toContain('SECRET');
  });

  it('when Secrets Manager cannot be reached', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new Error('connect ETIMEDOUT'));

    const logs = await logsOf(() => handler(event(`Bearer ${TOKEN}`)));

    expect(logs).toContain('ETIMEDOUT');
    expect(logs).not.toContain('SECRET');
  });
});

// The authorizer errors alarm (infra/constructs/monitoring.ts) counts log lines whose JSON `level` is
// ERROR or CRITICAL: failing closed must print exactly one, and no allow, deny or malformed header any.
describe('authorizer log levels, as the authorizer errors alarm reads them', () => {
  const levels = (logs: string) =>
    logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { level?: string }).level);

  it('prints one ERROR line when it fails closed', async () => {
    secretsManager.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException'));

    const logs = await logsOf(() => handler(event(`Bearer ${TOKEN}`)));

    expect(levels(logs).filter((level) => level === 'ERROR' || level === 'CRITICAL')).toEqual(['ERROR']);
  });

  it.each([
    ['allows a live token', `Bearer ${TOKEN}`],
    ['denies an unknown token', 'Bearer kb-unknown-token-00000000000000000000000000'],
    ['rejects a malformed header', 'Basic abc'],
  ])('prints no ERROR line when it %s', async (_case, header) => {
    givenSecrets(tokensSecret, ADMIN_KEY);

    const logs = await logsOf(() => handler(event(header)));

    expect(levels(logs).length).toBeGreaterThan(0);
    expect(levels(logs)).not.toContain('ERROR');
    expect(levels(logs)).not.toContain('CRITICAL');
  });
});
