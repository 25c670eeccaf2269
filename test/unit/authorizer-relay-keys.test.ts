import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { evaluatePolicy } from '#infra/local/policy';
import { sha256Hex } from '#shared/access-tokens';
import { newRelayKey, type RelayKeyRecord, relayKeyHash } from '#shared/relay-keys';
import { APIS, requiresAuthorizer } from '#shared/routes';
import {
  tokenEvent as event,
  METHOD_ARNS,
  outcomeAndOutput,
  RELAY_KEYS_TABLE,
  SECRET_IDS,
  useDeployedAuthorizer,
} from '#test/support/authorizer';

// Relay keys (docs/authorization.md, "Relay keys") open the relay API only, looked up by their keyed hash in the relayKeys table.

const authorizer = await useDeployedAuthorizer('DEBUG');
const { handler, secretsManager } = authorizer;
const dynamo = mockClient(DynamoDBDocumentClient);

const ADMIN_KEY = 'admin-key-0123456789-0123456789-0123456789';
const TOKEN = 'kb-test-token-0123456789abcdef0123456789abcdef';
const CHANNEL_ID_KEY = 'channel-id-key-0123456789-0123456789-0123456789';
const RELAY_ARN = 'arn:aws:execute-api:us-east-1:123456789012:rlapi1/prod/POST/v1/chat/completions';
const { dataset: DATASET_ARN, proxy: PROXY_ARN } = METHOD_ARNS;

const hmacKey = Buffer.from(CHANNEL_ID_KEY, 'utf8');
const tokensSecret = JSON.stringify({
  tokens: [{ id: 'tok-live', sha256: sha256Hex(TOKEN), teamId: 'team', tmbId: 'member', expiresAt: null }],
});

function keyRecord(key: string, extra: Partial<RelayKeyRecord> = {}): RelayKeyRecord {
  return {
    keyHash: relayKeyHash(hmacKey, key),
    id: '0123456789abcdef01234567',
    name: 'ci',
    groups: ['vip', 'default'],
    status: 'enabled',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** The relay keys table holds exactly these records. */
function givenKeys(...records: RelayKeyRecord[]) {
  dynamo.on(GetCommand).callsFake((input: { Key: { keyHash: string } }) => ({
    Item: records.find((r) => r.keyHash === input.Key.keyHash),
  }));
}

const effects = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement.map((s) => s.Effect);
// The routes behind the authorizer (the relay's public OpenAPI document never reaches it).
const relayRouteArns = APIS.relay.routes
  .filter(requiresAuthorizer)
  .map((r) => `arn:aws:execute-api:us-east-1:123456789012:rlapi1/prod/${r.method}${r.path}`);

beforeEach(() => {
  dynamo.reset();
  authorizer.givenSecrets({ tokens: tokensSecret, adminKey: ADMIN_KEY });
  secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_IDS.channelIdKey }).resolves({
    SecretString: CHANNEL_ID_KEY,
  });
});

describe('authorizer and relay keys', () => {
  it('allows a known relay key on every relay route, with its id, groups and limits in the context', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key, { models: ['gpt-4o'], ips: ['10.0.0.0/8'], expiresAt: '2999-01-01T00:00:00.000Z' }));

    const result = await handler(event(`Bearer ${key}`, RELAY_ARN));

    expect(effects(result)).toEqual(['Allow']);
    expect(result.principalId).toBe('0123456789abcdef01234567');
    expect(result.context).toEqual({
      scope: 'relay',
      keyId: '0123456789abcdef01234567',
      groups: '["vip","default"]',
      models: '["gpt-4o"]',
      ips: '["10.0.0.0/8"]',
      expiresAt: '2999-01-01T00:00:00.000Z',
    });
    for (const arn of relayRouteArns) expect(evaluatePolicy(result, arn)).toBe('allow');
  });

  it.each([
    ['x-api-key, as Anthropic SDKs send it', (key: string) => ({ 'X-Api-Key': key })],
    ['Authorization, as with an authToken', (key: string) => ({ authorization: `Bearer ${key}` })],
    ['Authorization before x-api-key', (key: string) => ({ Authorization: `Bearer ${key}`, 'x-api-key': 'sk-other' })],
  ])('allows a relay key on /v1/messages from a REQUEST event with the key in %s', async (_how, headers) => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));
    const arn = 'arn:aws:execute-api:us-east-1:123456789012:rlapi1/prod/POST/v1/messages';

    const result = await handler({ type: 'REQUEST', methodArn: arn, headers: headers(key) } as never);

    expect(effects(result)).toEqual(['Allow']);
    expect(result.principalId).toBe('0123456789abcdef01234567');
  });

  it('refuses a REQUEST event with neither header as unauthorized (401), never reading the table', async () => {
    const arn = 'arn:aws:execute-api:us-east-1:123456789012:rlapi1/prod/POST/v1/messages';

    await expect(handler({ type: 'REQUEST', methodArn: arn, headers: {} } as never)).rejects.toThrow('Unauthorized');
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('looks the key up by its keyed hash with one consistent read of the relay keys table', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    await handler(event(`Bearer ${key}`, RELAY_ARN));

    const reads = dynamo.commandCalls(GetCommand).map((c) => c.args[0].input);
    expect(reads).toEqual([
      { TableName: RELAY_KEYS_TABLE, Key: { keyHash: relayKeyHash(hmacKey, key) }, ConsistentRead: true },
    ]);
  });

  it('accepts the key without its sk- prefix, as One API does', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    const result = await handler(event(`Bearer ${key.slice(3)}`, RELAY_ARN));

    expect(effects(result)).toEqual(['Allow']);
    expect(result.context?.scope).toBe('relay');
  });

  it.each([
    ['unknown', () => ({ key: newRelayKey(), records: [] as RelayKeyRecord[] }), 'unknown'],
    [
      'expired',
      () => {
        const key = newRelayKey();
        return { key, records: [keyRecord(key, { expiresAt: '2020-01-01T00:00:00Z' })] };
      },
      '0123456789abcdef01234567',
    ],
    [
      'disabled',
      () => {
        const key = newRelayKey();
        return { key, records: [keyRecord(key, { status: 'disabled', statusReason: 'revoked' })] };
      },
      '0123456789abcdef01234567',
    ],
  ])('denies an %s relay key on the relay API', async (_kind, make, principalId) => {
    const { key, records } = make();
    givenKeys(...records);

    const result = await handler(event(`Bearer ${key}`, RELAY_ARN));

    expect(effects(result)).toEqual(['Deny']);
    expect(result.principalId).toBe(principalId);
    expect(result.context).toBeUndefined();
  });

  it('never opens the knowledge-base or channel proxy API with a relay key', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    for (const arn of [DATASET_ARN, PROXY_ARN]) {
      const result = await handler(event(`Bearer ${key}`, arn));
      expect(evaluatePolicy(result, arn), arn).toBe('deny');
    }
  });

  it('never opens the relay API with the admin key or an access token, and reads no relay key for them', async () => {
    givenKeys();

    for (const header of [`Bearer ${ADMIN_KEY}`, `Bearer ${TOKEN}`]) {
      const result = await handler(event(header, RELAY_ARN));
      for (const arn of relayRouteArns) expect(evaluatePolicy(result, arn)).toBe('deny');
    }
    expect(dynamo.commandCalls(GetCommand)).toEqual([]);
  });

  it('does not look up a token that cannot be a relay key (wrong length or characters)', async () => {
    givenKeys();

    for (const token of [`sk-${'a'.repeat(47)}`, `sk-${'a'.repeat(49)}`, `sk-${'a'.repeat(47)}-`, 'a'.repeat(47)]) {
      const result = await handler(event(`Bearer ${token}`, RELAY_ARN));
      expect(effects(result)).toEqual(['Deny']);
    }
    expect(dynamo.commandCalls(GetCommand)).toEqual([]);
  });

  it('allows a key created after an unknown lookup at once: a miss is never cached', async () => {
    const key = newRelayKey();
    givenKeys();
    const before = await handler(event(`Bearer ${key}`, RELAY_ARN));

    givenKeys(keyRecord(key));
    const after = await handler(event(`Bearer ${key}`, RELAY_ARN));

    expect([effects(before), effects(after)]).toEqual([['Deny'], ['Allow']]);
  });

  it('reuses a found key within the max age without reading the table again', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    await handler(event(`Bearer ${key}`, RELAY_ARN));
    await handler(event(`Bearer ${key}`, RELAY_ARN));

    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
  });

  it('fails closed, without a policy, when the relay keys table cannot be read', async () => {
    const key = newRelayKey();
    dynamo.on(GetCommand).rejects(new Error('ProvisionedThroughputExceededException'));

    const { error } = await outcomeAndOutput(() => handler(event(`Bearer ${key}`, RELAY_ARN)));

    expect((error as Error).message).toBe('Authorizer failure');
  });

  it('fails closed when the channel-id key cannot be read', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));
    secretsManager.on(GetSecretValueCommand, { SecretId: SECRET_IDS.channelIdKey }).rejects(new Error('AccessDenied'));

    const { error } = await outcomeAndOutput(() => handler(event(`Bearer ${key}`, RELAY_ARN)));

    expect((error as Error).message).toBe('Authorizer failure');
  });

  it('gives a valid relay key its Allow even when its first request path holds * or ?', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    const result = await handler(
      event(`Bearer ${key}`, 'arn:aws:execute-api:us-east-1:123456789012:rlapi1/prod/POST/v1/chat/*?'),
    );

    expect(effects(result)).toEqual(['Allow']);
    for (const arn of relayRouteArns) expect(evaluatePolicy(result, arn)).toBe('allow');
  });

  it('fails closed, never a cached Deny, for a valid credential whose method ARN has a wildcard API id', async () => {
    const key = newRelayKey();
    givenKeys(keyRecord(key));

    const outcomes = await Promise.all(
      [`Bearer ${key}`, `Bearer ${ADMIN_KEY}`, `Bearer ${TOKEN}`].map((header) =>
        outcomeAndOutput(() =>
          handler(event(header, 'arn:aws:execute-api:us-east-1:123456789012:*/prod/GET/v1/models')),
        ),
      ),
    );

    expect(outcomes.map((o) => [o.result, (o.error as Error | undefined)?.message])).toEqual(
      Array(3).fill([undefined, 'Authorizer failure']),
    );
  });

  it('never writes a relay key, or its 48 characters without sk-, into the logs', async () => {
    const keys = [newRelayKey(), newRelayKey(), newRelayKey()];
    const [allowed = '', disabled = '', unknown = ''] = keys;
    givenKeys(keyRecord(allowed), keyRecord(disabled, { id: 'abcdefabcdefabcdefabcdef', status: 'disabled' }));

    const { output } = await outcomeAndOutput(async () => {
      for (const key of [allowed, disabled, unknown]) {
        await handler(event(`Bearer ${key}`, RELAY_ARN));
        await handler(event(`Bearer ${key.slice(3)}`, PROXY_ARN));
      }
    });

    expect(output).toContain('Allowed');
    expect(output).toContain('Denied');
    for (const key of keys) {
      expect(output).not.toContain(key.slice(3));
      expect(output).not.toContain(relayKeyHash(hmacKey, key));
    }
  });
});
