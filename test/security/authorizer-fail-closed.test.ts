import {
  DecryptionFailure,
  GetSecretValueCommand,
  InternalServiceError,
  InvalidRequestException,
  ResourceNotFoundException,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';

import { sha256Hex } from '#shared/access-tokens';
import { METHOD_ARNS as ARNS, outcomeAndOutput, tokenEvent, useDeployedAuthorizer } from '#test/support/authorizer';

const { handler, secretsManager } = await useDeployedAuthorizer('DEBUG');

const ADMIN_KEY = 'admin-SECRET-key-0123456789-0123456789-0123';
const TOKEN = 'kb-SECRET-token-0123456789abcdef0123456789abcdef';
const TOKENS_SECRET = JSON.stringify({
  tokens: [{ id: 'tok-live', sha256: sha256Hex(TOKEN), teamId: 'team', tmbId: 'member', expiresAt: null }],
});
const meta = { $metadata: { httpStatusCode: 400 } };

// Every way Secrets Manager can be unavailable to the authorizer, as the SDK reports it after its retries.
const UNAVAILABLE: ReadonlyArray<[string, () => Error]> = [
  ['throttled', () => new SecretsManagerServiceException({ name: 'ThrottlingException', $fault: 'client', ...meta })],
  ['an internal service error', () => new InternalServiceError({ message: 'Internal error', ...meta })],
  [
    'a 503',
    () =>
      new SecretsManagerServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        $metadata: { httpStatusCode: 503 },
      }),
  ],
  [
    'access denied (role lost its permission)',
    () =>
      new SecretsManagerServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        message:
          'User: arn:aws:sts::123456789012:assumed-role/authorizer is not authorized to perform: secretsmanager:GetSecretValue',
        ...meta,
      }),
  ],
  [
    'a deleted secret',
    () => new ResourceNotFoundException({ message: 'Secrets Manager cannot find the secret', ...meta }),
  ],
  ['a secret scheduled for deletion', () => new InvalidRequestException({ message: 'marked for deletion', ...meta })],
  ['a KMS key it cannot use', () => new DecryptionFailure({ message: 'KMS access denied', ...meta })],
  ['a network timeout', () => Object.assign(new Error('connect ETIMEDOUT 10.0.0.1:443'), { code: 'ETIMEDOUT' })],
];

/** Runs the authorizer with stdout and stderr captured; returns the outcome and everything written. */
const run = (token: string, methodArn: string) =>
  outcomeAndOutput(() => handler(tokenEvent(`Bearer ${token}`, methodArn)));

describe('authorizer fails closed when Secrets Manager is unavailable', () => {
  const cases = UNAVAILABLE.flatMap(([why, failure]) =>
    (['access-tokens', 'admin-key'] as const).flatMap((failing) =>
      (['dataset', 'proxy'] as const).map((api) => [why, failing, api, failure] as const),
    ),
  );

  it.each(cases)(
    '%s on the %s secret: no policy for the %s API, a 500 not an Unauthorized, nothing leaked',
    async (_why, failing, api, failure) => {
      secretsManager
        .on(GetSecretValueCommand, { SecretId: 'test/access-tokens' })
        .resolves({ SecretString: TOKENS_SECRET })
        .on(GetSecretValueCommand, { SecretId: 'test/admin-key' })
        .resolves({ SecretString: ADMIN_KEY })
        .on(GetSecretValueCommand, { SecretId: `test/${failing}` })
        .rejects(failure());
      const presented = api === 'dataset' ? TOKEN : ADMIN_KEY;

      const { result, error, output } = await run(presented, ARNS[api]);

      expect(result).toBeUndefined();
      // API Gateway turns "Unauthorized" into a cached 401; any other error is a 500 that is never cached.
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).not.toBe('Unauthorized');
      expect((error as Error).message).not.toContain('SECRET');
      expect(output).not.toContain(TOKEN);
      expect(output).not.toContain(ADMIN_KEY);
    },
  );

  it('opens again as soon as Secrets Manager answers, without remembering the failure', async () => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'test/access-tokens' })
      .rejectsOnce(new InternalServiceError({ message: 'Internal error', ...meta }))
      .resolves({ SecretString: TOKENS_SECRET })
      .on(GetSecretValueCommand, { SecretId: 'test/admin-key' })
      .resolves({ SecretString: ADMIN_KEY });
    const failed = await run(TOKEN, ARNS.dataset);

    const recovered = await run(TOKEN, ARNS.dataset);

    expect(failed.error).toBeInstanceOf(Error);
    expect(recovered.result?.policyDocument.Statement.map((s) => s.Effect)).toEqual(['Allow']);
  });

  it('fails closed when a secret read hangs past the SDK timeout and rejects late', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .callsFake(
        () =>
          new Promise((_, reject) =>
            setTimeout(() => reject(Object.assign(new Error('socket timeout'), { name: 'TimeoutError' })), 20),
          ),
      );

    const { result, error } = await run(ADMIN_KEY, ARNS.proxy);

    expect(result).toBeUndefined();
    expect((error as Error).message).not.toBe('Unauthorized');
  });
});
