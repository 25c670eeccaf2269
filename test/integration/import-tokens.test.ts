import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTokens, type TokenImportDeps } from '#functions/import-legacygw/tokens/import-tokens';
import { ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import { DynamoRatioSource, DynamoRatioWriter } from '#shared/relay/quota';
import { relayAuthorizerContext, relayKeyHash, relayKeyUsable } from '#shared/relay-keys';
import { RelayKeysRepository } from '#shared/repositories/relay-keys';
import { TABLES } from '#shared/tables';
import { legacyKey, NEW_API, ONE_API, ONE_HUB } from '#test/fixtures/tokens/legacy-tokens';
import { startTestEngine, TEST_ENGINE_NAME, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';

// The token import on the test engine: each legacy token becomes a relay key that accepts the same secret (with
// or without `sk-`), stored only as its keyed hash, with status, expiry, models, IPs, group and quota carried.

const HMAC_KEY = Buffer.alloc(32, 9);
const NOW = new Date('2026-11-27T10:00:00.000Z');
let engine: TestEngine;
let client: DynamoDBClient;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  engine = await startTestEngine();
  client = localDynamoClient(engine);
  documents = DynamoDBDocumentClient.from(client);
});
afterAll(async () => {
  client?.destroy();
  await engine?.close();
});

async function tables() {
  const keys = uniqueTableName('relayKeys');
  const state = uniqueTableName('relayState');
  await ensureTable(client, keys, TABLES.relayKeys);
  await ensureTable(client, state, TABLES.relayState);
  const repo = new RelayKeysRepository(documents, keys);
  const deps: TokenImportDeps = {
    store: repo,
    ratios: new DynamoRatioWriter(documents, state),
    hmacKey: async () => HMAC_KEY,
    now: () => NOW,
  };
  return { keys, state, repo, deps };
}

const find = (repo: RelayKeysRepository, n: number, prefixed = false) =>
  repo.findByHash(relayKeyHash(HMAC_KEY, `${prefixed ? 'sk-' : ''}${legacyKey(n)}`));

describe(`token import on ${TEST_ENGINE_NAME}`, () => {
  it('carries One API tokens as relay keys that accept the same secret, with or without sk-', async () => {
    const { repo, deps, keys } = await tables();

    const report = await importTokens({ family: 'oneapi', ...ONE_API, dryRun: false }, deps);

    expect(report).toMatchObject({ read: 6, created: 5, updated: 0, unchanged: 0, edited: 0, skipped: 1 });
    expect(report.items).toEqual([
      {
        legacyId: '6',
        reason: 'key is not 48 letters and digits, nor a One Hub or Done Hub signed key (a relay key cannot accept it)',
      },
    ]);
    expect(report.options).toEqual({
      imported: ['ModelRatio', 'CompletionRatio', 'GroupRatio', 'RetryTimes'],
      ignored: [],
    });
    const unlimited = await find(repo, 1, true);
    expect(unlimited && relayKeyUsable(unlimited, NOW)).toBe(true);
    expect(await find(repo, 1)).toEqual(unlimited);
    expect(unlimited).toMatchObject({ groups: ['default'], unlimitedQuota: true, status: 'enabled' });
    expect(await find(repo, 2)).toMatchObject({ status: 'disabled', statusReason: 'disabled-at-source' });
    expect(await find(repo, 3)).toMatchObject({ status: 'disabled', statusReason: 'expired' });
    expect(await find(repo, 4)).toMatchObject({ status: 'disabled', statusReason: 'exhausted', remainQuota: 0 });
    const limited = await find(repo, 5);
    expect(limited).toMatchObject({
      groups: ['vip'],
      models: ['gpt-4o', 'gpt-4o-mini'],
      ips: ['10.0.0.0/8'],
      expiresAt: '2099-01-01T00:00:00.000Z',
      remainQuota: 500000,
      unlimitedQuota: false,
    });
    expect(limited && relayAuthorizerContext(limited).quota).toBe('limited');
    // The table and the report hold no key, nor any 8 characters of one.
    const dump = JSON.stringify((await documents.send(new ScanCommand({ TableName: keys }))).Items);
    for (const n of [1, 2, 3, 4, 5]) {
      expect(dump).not.toContain(legacyKey(n).slice(0, 8));
      expect(JSON.stringify(report)).not.toContain(legacyKey(n).slice(0, 8));
    }
  });

  it('stores the ratios where the relay reads them', async () => {
    const { deps, state } = await tables();

    await importTokens({ family: 'oneapi', ...ONE_API, dryRun: false }, deps);

    expect(await new DynamoRatioSource(documents, state).ratios()).toMatchObject({
      family: 'oneapi',
      modelRatio: { 'gpt-4o': 2.5, 'gpt-4o-mini': 0.075 },
      completionRatio: { 'gpt-4o': 4 },
      groupRatio: { default: 1, vip: 0.8 },
    });
  });

  it("carries New API's group, enabled model limits, allowed IPs, and skips deleted tokens", async () => {
    const { repo, deps } = await tables();

    const report = await importTokens({ family: 'newapi', ...NEW_API, dryRun: false }, deps);

    expect(report).toMatchObject({ read: 5, created: 4, skipped: 1 });
    expect(report.items).toEqual([{ legacyId: '4', reason: 'deleted in the legacy gateway' }]);
    expect(await find(repo, 101)).toMatchObject({ groups: ['vip'], models: ['gpt-4o', 'claude-3-5-sonnet'] });
    expect(await find(repo, 102)).toMatchObject({ groups: ['svip'], ips: ['203.0.113.7', '198.51.100.0/24'] });
    expect((await find(repo, 103))?.models).toBeUndefined();
    expect(await find(repo, 105, true)).toMatchObject({ name: 'na-token-5', remainQuota: 1000 });
  });

  it("gives One Hub's tokens their user's group and no model or IP list (its token table has none)", async () => {
    const { repo, deps } = await tables();

    const report = await importTokens({ family: 'onehub', ...ONE_HUB, dryRun: false }, deps);

    expect(report).toMatchObject({ read: 1, created: 1, skipped: 0 });
    const key = await find(repo, 201);
    expect(key).toMatchObject({ groups: ['hub-vip'], remainQuota: 300, usedQuota: 12, unlimitedQuota: false });
    expect(key?.models).toBeUndefined();
    expect(key?.ips).toBeUndefined();
  });

  it('imports a table of 300 tokens, a few store calls at a time, each once', async () => {
    const { deps, keys } = await tables();
    const many = Array.from({ length: 300 }, (_, i) => ({
      ...ONE_API.tokens[0],
      id: String(1000 + i),
      key: legacyKey(1000 + i),
    }));

    const report = await importTokens({ family: 'oneapi', ...ONE_API, tokens: many, dryRun: false }, deps);

    expect(report).toMatchObject({ read: 300, created: 300, skipped: 0 });
    const { Items = [] } = await documents.send(new ScanCommand({ TableName: keys }));
    expect(new Set(Items.map((item) => item.id)).size).toBe(300);
  });

  it('is idempotent, keeps keys edited here, and a dry run reports what the import does', async () => {
    const { repo, deps, keys } = await tables();
    const preview = await importTokens({ family: 'oneapi', ...ONE_API, dryRun: true }, deps);
    expect((await documents.send(new ScanCommand({ TableName: keys }))).Items).toEqual([]);

    const first = await importTokens({ family: 'oneapi', ...ONE_API, dryRun: false }, deps);
    const edited = await find(repo, 2);
    await repo.update(edited?.id ?? '', { status: 'enabled', statusReason: undefined, editedAt: NOW.toISOString() });
    const changed = ONE_API.tokens.map((t) => (t.id === '5' ? { ...t, remain_quota: '42' } : t));
    const again = await importTokens({ family: 'oneapi', ...ONE_API, tokens: changed, dryRun: false }, deps);

    expect(preview).toEqual(first);
    expect(again).toMatchObject({ created: 0, updated: 1, unchanged: 3, edited: 1, skipped: 1 });
    expect(await find(repo, 2)).toMatchObject({ status: 'enabled' });
    expect(await find(repo, 5)).toMatchObject({ remainQuota: 42, id: (await find(repo, 5))?.id });
  });

  it('keeps what the relay metered across a re-import and adds what changed at the source since (docs/relay.md)', async () => {
    const { repo, deps, keys } = await tables();
    await importTokens({ family: 'oneapi', ...ONE_API, dryRun: false }, deps);
    const imported = await find(repo, 5);
    // The relay meters 1,000 of the key's 500,000 (the quota store's ADDs).
    await documents.send(
      new UpdateCommand({
        TableName: keys,
        Key: { keyHash: imported?.keyHash },
        UpdateExpression: 'ADD remainQuota :minus, usedQuota :plus',
        ExpressionAttributeValues: { ':minus': -1000, ':plus': 1000 },
      }),
    );

    const unchanged = await importTokens({ family: 'oneapi', ...ONE_API, dryRun: false }, deps);
    const afterUnchanged = await find(repo, 5);
    // The legacy gateway metered 300 more, and its operator topped the token up by 10,000 there.
    const changed = ONE_API.tokens.map((t) =>
      t.id === '5' ? { ...t, remain_quota: String(500_000 - 300 + 10_000), used_quota: '300' } : t,
    );
    const topUp = await importTokens({ family: 'oneapi', ...ONE_API, tokens: changed, dryRun: false }, deps);

    expect(unchanged).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
    expect(afterUnchanged).toMatchObject({ remainQuota: 499_000, usedQuota: 1000 });
    expect(topUp).toMatchObject({ updated: 1, unchanged: 4 });
    expect(await find(repo, 5)).toMatchObject({
      remainQuota: 499_000 - 300 + 10_000,
      usedQuota: 1300,
      legacyQuota: { remain: 509_700, used: 300 },
    });
  });
});
