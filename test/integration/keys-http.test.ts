import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_RELAY_KEY_MAX_AGE_MS } from '#infra/local/backend';
import type { KeyView } from '#shared/key-view';
import { RELAY_KEY_PREFIX } from '#shared/relay-keys';
import { useTestServer } from '#test/support/local-server';
import { callProxy, type Exchange, expectData, expectError, expectNoSecrets } from './import-http.helpers.ts';

// docs/channel-review-api.md, "Keys", through HTTP: the local server runs the real authorizer and key functions over
// its own relay keys table; a created key is tried against the relay API (`GET /v1/models`).

const server = useTestServer({ LOG_LEVEL: 'DEBUG' });
const exchanges: Exchange[] = [];
const wholeKeys: string[] = [];
const UNKNOWN_ID = 'f'.repeat(24);

async function call(method: string, path: string, json?: unknown): Promise<Exchange> {
  const exchange = await callProxy(server, { method, path, ...(json === undefined ? {} : { json }) });
  exchanges.push(exchange);
  return exchange;
}

async function create(body: Record<string, unknown>): Promise<KeyView> {
  const created = expectData<KeyView>(await call('POST', '/api/keys', body));
  wholeKeys.push(created.key);
  return created;
}

/** The relay API's answer to `GET /v1/models` with this bearer token: its status. */
async function relayStatus(token: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${token}` } });
  await response.text();
  return response.status;
}

/** Waits until the relay answers `status` for this token (npm start reuses a found key for LOCAL_RELAY_KEY_MAX_AGE_MS). */
async function expectRelayStatus(token: string, status: number): Promise<void> {
  const deadline = Date.now() + LOCAL_RELAY_KEY_MAX_AGE_MS * 5;
  let last = await relayStatus(token);
  while (last !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await relayStatus(token);
  }
  expect(last).toBe(status);
}

afterAll(() => {
  // No answer but the create's, and no log line, ever held a whole key (or its 48 characters without `sk-`).
  const creates = exchanges.filter((e) => e.status === 200 && /"key":"sk-[A-Za-z0-9]{48}"/.test(e.text));
  expect(creates.length).toBe(wholeKeys.length);
  expectNoSecrets(
    exchanges.filter((e) => !creates.includes(e)),
    { server, extra: wholeKeys.flatMap((k) => [k, k.slice(RELAY_KEY_PREFIX.length)]) },
  );
  for (const exchange of creates) {
    for (const key of wholeKeys) expect(exchange.output, 'log output').not.toContain(key.slice(3));
  }
});

describe('POST /api/keys', () => {
  it('creates a key shown whole once, which then opens the relay API and reads masked everywhere', async () => {
    const created = await create({ name: 'billing', groups: ['vip', 'default'], models: ['gpt-4o'] });

    expect(created.key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(created).toMatchObject({
      name: 'billing',
      status: 'enabled',
      expired: false,
      groups: ['vip', 'default'],
      models: ['gpt-4o'],
      ips: null,
      expiresAt: null,
      unlimitedQuota: true,
      remainQuota: null,
      usedQuota: 0,
      lastUsedAt: null,
      editedAt: null,
      usage: `/api/usage?keyId=${created.id}`,
    });
    await expectRelayStatus(created.key, 200);
    // One API accepts a key without its `sk-`.
    expect(await relayStatus(created.key.slice(3))).toBe(200);
    const listed = expectData<KeyView[]>(await call('GET', '/api/keys'));
    expect(listed.find((k) => k.id === created.id)).toEqual({ ...created, key: `sk-…${created.id}` });
    const one = expectData<KeyView>(await call('GET', `/api/key/${created.id}`));
    expect(one).toEqual({ ...created, key: `sk-…${created.id}` });
  });

  it('stores no key and no part of one: the table holds its keyed hash only', async () => {
    const created = await create({ name: 'scan-me' });

    const { Items = [] } = await server.dynamo.send(new ScanCommand({ TableName: server.tables.relayKeys }));

    const dump = JSON.stringify(Items);
    expect(Items.length).toBeGreaterThan(0);
    const body = created.key.slice(3);
    // No prefix or suffix of 8 characters of the key's 48 anywhere in the table.
    for (let i = 0; i + 8 <= body.length; i += 4) expect(dump).not.toContain(body.slice(i, i + 8));
  });

  it('creates a limited key with a remaining quota, and refuses a limited key without one', async () => {
    const limited = await create({ name: 'metered', remainQuota: 1000 });
    expect(limited).toMatchObject({ unlimitedQuota: false, remainQuota: 1000, usedQuota: 0 });

    expectError(await call('POST', '/api/keys', { name: 'x', unlimitedQuota: false }), 400, /remainQuota is required/);
  });

  it('answers 400 naming the field for an invalid body, a past expiry or an unknown field', async () => {
    expectError(await call('POST', '/api/keys', {}), 400, /name/);
    expectError(await call('POST', '/api/keys', { name: 'x', ips: ['not-an-ip'] }), 400, /IP addresses or CIDRs/);
    expectError(await call('POST', '/api/keys', { name: 'x', groups: [] }), 400, /groups/);
    expectError(await call('POST', '/api/keys', { name: 'x', expiresAt: '2001-01-01T00:00:00Z' }), 400, /future/);
    expectError(await call('POST', '/api/keys', { name: 'x', key: 'sk-chosen' }), 400, /key/i);
    expectError(await call('POST', '/api/keys', { name: 'x', remainQuota: 1.5 }), 400, /whole number/);
  });
});

describe('PUT /api/key/{id}', () => {
  it('changes the fields named, stamps editedAt, and a disabled key stops opening the relay', async () => {
    const created = await create({ name: 'svc', models: ['gpt-4o'], ips: ['10.0.0.0/8'] });

    const updated = expectData<KeyView>(
      await call('PUT', `/api/key/${created.id}`, {
        name: 'svc-renamed',
        status: 'disabled',
        models: null,
        ips: null,
        expiresAt: '2099-01-01',
        remainQuota: 50,
      }),
    );

    expect(updated).toMatchObject({
      id: created.id,
      key: `sk-…${created.id}`,
      name: 'svc-renamed',
      status: 'disabled',
      statusReason: 'revoked',
      models: null,
      ips: null,
      expiresAt: '2099-01-01T00:00:00.000Z',
      unlimitedQuota: false,
      remainQuota: 50,
    });
    expect(updated.editedAt).not.toBeNull();
    await expectRelayStatus(created.key, 401);
    const enabled = expectData<KeyView>(await call('PUT', `/api/key/${created.id}`, { status: 'enabled' }));
    expect(enabled.statusReason).toBeUndefined();
    await expectRelayStatus(created.key, 200);
  });

  it('answers 404 for an unknown id and 400 for a malformed id or body', async () => {
    expectError(await call('PUT', `/api/key/${UNKNOWN_ID}`, { name: 'x' }), 404, /No key has this id/);
    expectError(await call('PUT', '/api/key/not-an-id', { name: 'x' }), 400, /key id/);
    const created = await create({ name: 'bad-body' });
    expectError(await call('PUT', `/api/key/${created.id}`, { status: 'paused' }), 400, /status/);
    expectError(await call('PUT', `/api/key/${created.id}`, { id: 'ffff' }), 400, /id/);
  });
});

describe('GET and DELETE /api/key/{id}', () => {
  it('deletes a key: it reads 404 after and stops opening the relay', async () => {
    const created = await create({ name: 'gone' });

    expect(expectData(await call('DELETE', `/api/key/${created.id}`))).toBeNull();

    expectError(await call('GET', `/api/key/${created.id}`), 404, /No key has this id/);
    expectError(await call('DELETE', `/api/key/${created.id}`), 404, /No key has this id/);
    await expectRelayStatus(created.key, 401);
  });

  it('answers 400 for a malformed id', async () => {
    expectError(await call('GET', `/api/key/${'F'.repeat(24)}`), 400, /key id/);
    expectError(await call('DELETE', '/api/key/123'), 400, /key id/);
  });
});
