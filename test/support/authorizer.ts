import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { captureOutput } from './capture-output.ts';
import { loadHandler } from './handler.ts';

/** The secret ids the deployed authorizer is loaded with in tests. */
export const SECRET_IDS = {
  accessTokens: 'test/access-tokens',
  adminKey: 'test/admin-key',
  channelIdKey: 'test/channel-id-key',
} as const;

/** The relay keys table the deployed authorizer is loaded with in tests. */
export const RELAY_KEYS_TABLE = 'relay-keys-test';

/** Method ARNs of one route on each API. */
export const METHOD_ARNS = {
  dataset: 'arn:aws:execute-api:us-east-1:123456789012:dsapi1/prod/POST/api/core/dataset/create',
  proxy: 'arn:aws:execute-api:us-east-1:123456789012:pxapi1/prod/POST/api/channels/import/legacygw',
} as const;

/** A TOKEN authorizer event for `authorizationToken` (the whole header) on `methodArn`. */
export const tokenEvent = (authorizationToken: string | undefined, methodArn: string = METHOD_ARNS.dataset) =>
  ({ type: 'TOKEN', authorizationToken, methodArn }) as APIGatewayTokenAuthorizerEvent;

/**
 * The deployed authorizer (functions/authorizer/handler.ts), loaded as a cold start with SECRET_IDS, over a
 * mocked Secrets Manager that is reset, with the authorizer's caches, before each test of the file.
 */
export async function useDeployedAuthorizer(logLevel: string, env: Readonly<Record<string, string>> = {}) {
  const authorizer = await loadHandler<typeof import('#functions/authorizer/handler')>(
    '#functions/authorizer/handler',
    {
      ACCESS_TOKENS_SECRET_ID: SECRET_IDS.accessTokens,
      ADMIN_KEY_SECRET_ID: SECRET_IDS.adminKey,
      SECRETS_MAX_AGE_S: '60',
      RELAY_KEYS_TABLE,
      CHANNEL_ID_KEY_SECRET_ID: SECRET_IDS.channelIdKey,
      LOG_LEVEL: logLevel,
      ...env,
    },
  );
  const secretsManager = mockClient(SecretsManagerClient);
  beforeEach(() => {
    secretsManager.reset();
    authorizer.clearSecretsCache();
  });
  /** Secrets Manager answers with these values of the two secrets. */
  const givenSecrets = (values: { tokens: string; adminKey: string }) => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: SECRET_IDS.accessTokens })
      .resolves({ SecretString: values.tokens })
      .on(GetSecretValueCommand, { SecretId: SECRET_IDS.adminKey })
      .resolves({ SecretString: values.adminKey });
  };
  return { ...authorizer, secretsManager, givenSecrets };
}

/** Runs `run` with the output captured: its outcome (result or error) and everything written meanwhile. */
export async function outcomeAndOutput<T>(
  run: () => Promise<T>,
): Promise<{ result: T | undefined; error: unknown; output: string }> {
  const output = captureOutput();
  try {
    const outcome = await run().then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    return { ...outcome, output: output.text() };
  } finally {
    output.restore();
  }
}
