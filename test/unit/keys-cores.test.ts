import { describe, expect, it } from 'vitest';
import { createKey } from '#functions/create-key/create-key';
import { listKeys } from '#functions/list-keys/list-keys';
import { keyChanges } from '#functions/update-key/update-key';
import { toKeyView } from '#shared/key-view';
import { type RelayKeyRecord, relayKeyHash } from '#shared/relay-keys';

const NOW = new Date('2026-11-27T10:00:00.000Z');
const HMAC_KEY = Buffer.alloc(32, 7);
const KEY = `sk-${'A1b2'.repeat(12)}`;

function stored(fields: Partial<RelayKeyRecord> = {}): RelayKeyRecord {
  return {
    keyHash: 'a'.repeat(64),
    id: '0123456789abcdef01234567',
    name: 'svc',
    groups: ['default'],
    expiresAt: null,
    status: 'enabled',
    createdAt: '2026-11-01T00:00:00.000Z',
    ...fields,
  };
}

describe('createKey', () => {
  it('stores the keyed hash only, answers the whole key once and logs the id only', async () => {
    const records: RelayKeyRecord[] = [];
    const logs: unknown[] = [];

    const created = await createKey(
      { name: 'svc', models: ['gpt-4o'], remainQuota: 10 },
      {
        repo: {
          create: async (r) => {
            records.push(r);
            return true;
          },
        },
        hmacKey: async () => HMAC_KEY,
        newKey: () => KEY,
        newId: () => '0123456789abcdef01234567',
        now: () => NOW,
        logger: { info: (...args: unknown[]) => void logs.push(args) },
      },
    );

    expect(created.key).toBe(KEY);
    expect(records).toEqual([
      {
        keyHash: relayKeyHash(HMAC_KEY, KEY),
        id: '0123456789abcdef01234567',
        name: 'svc',
        groups: ['default'],
        models: ['gpt-4o'],
        expiresAt: null,
        status: 'enabled',
        createdAt: NOW.toISOString(),
        usedQuota: 0,
        unlimitedQuota: false,
        remainQuota: 10,
      },
    ]);
    expect(JSON.stringify(records)).not.toContain(KEY.slice(3, 11));
    expect(JSON.stringify(logs)).not.toContain(KEY.slice(3));
  });

  it('tries a new key when the hash exists already, and writes nothing for a past expiry', async () => {
    let calls = 0;
    const deps = {
      repo: { create: async () => ++calls > 1 },
      hmacKey: async () => HMAC_KEY,
      newKey: () => KEY,
      newId: () => '0123456789abcdef01234567',
      now: () => NOW,
      logger: { info: () => {} },
    };

    await createKey({ name: 'svc' }, deps);
    expect(calls).toBe(2);
    calls = 0;
    await expect(createKey({ name: 'svc', expiresAt: '2026-01-01' }, deps)).rejects.toThrow(/future/);
    expect(calls).toBe(0);
  });
});

describe('keyChanges', () => {
  it('records a disable as revoked, an enable without reason, and null as the removal of a limit', () => {
    const current = stored({ models: ['a'], status: 'disabled', statusReason: 'expired' });

    expect(keyChanges({ status: 'enabled', models: null }, current, NOW)).toEqual({
      editedAt: NOW.toISOString(),
      status: 'enabled',
      statusReason: undefined,
      statusChangedAt: NOW.toISOString(),
      models: undefined,
    });
    expect(keyChanges({ status: 'disabled' }, stored(), NOW)).toMatchObject({ statusReason: 'revoked' });
  });

  it('makes a key limited when a remaining quota is set, and refuses a limited key without one', () => {
    expect(keyChanges({ remainQuota: 5 }, stored(), NOW)).toMatchObject({ unlimitedQuota: false, remainQuota: 5 });
    expect(keyChanges({ unlimitedQuota: true }, stored({ remainQuota: 5 }), NOW)).toMatchObject({
      unlimitedQuota: true,
      remainQuota: 5,
    });
    expect(() => keyChanges({ unlimitedQuota: false }, stored(), NOW)).toThrow(/remainQuota is required/);
  });
});

describe('key views', () => {
  it('mask every key as sk-…<id>, say when it expired, and list newest first', async () => {
    const old = stored({ id: 'aaaaaaaaaaaaaaaaaaaaaaaa', expiresAt: '2026-01-01T00:00:00.000Z' });
    const fresh = stored({ id: 'bbbbbbbbbbbbbbbbbbbbbbbb', createdAt: '2026-11-20T00:00:00.000Z' });

    const listed = await listKeys({ repo: { list: async () => [old, fresh] }, now: () => NOW });

    expect(listed.map((k) => [k.key, k.expired])).toEqual([
      ['sk-…bbbbbbbbbbbbbbbbbbbbbbbb', false],
      ['sk-…aaaaaaaaaaaaaaaaaaaaaaaa', true],
    ]);
    expect(Object.keys(toKeyView(old, NOW))).not.toContain('keyHash');
  });
});
