import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cachedRelayKeyLookup } from '#functions/authorizer/relay-key-lookup';
import {
  isIpOrCidr,
  newRelayKey,
  type RelayKeyRecord,
  relayAuthorizerContext,
  relayCallerFromContext,
  relayKeyBody,
  relayKeyExpired,
  relayKeyHash,
  relayKeyIpAllowed,
  relayKeyLabel,
} from '#shared/relay-keys';

const HMAC_KEY = Buffer.from('channel-id-key-0123456789-0123456789', 'utf8');
const NOW = new Date('2026-06-01T00:00:00Z');

describe('relay keys', () => {
  it("makes One API's format: sk- and 48 letters and digits, every one different", () => {
    const keys = Array.from({ length: 200 }, newRelayKey);

    for (const key of keys) expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    expect(new Set(keys).size).toBe(keys.length);
    // Every character of the alphabet shows up in 9,600 draws: none is left out of the generator.
    expect(new Set(keys.join('').replaceAll('sk-', '')).size).toBe(62);
  });

  it.each([
    [`sk-${'a'.repeat(48)}`, 'a'.repeat(48)],
    ['A1'.repeat(24), 'A1'.repeat(24)],
    [`sk-${'a'.repeat(47)}`, undefined],
    [`sk-${'a'.repeat(49)}`, undefined],
    [`sk-${'a'.repeat(46)}-1`, undefined],
    [`SK-${'a'.repeat(48)}`, undefined],
    [`sk-sk-${'a'.repeat(45)}`, undefined],
    [`kb-${'a'.repeat(43)}`, undefined],
    ['', undefined],
    // One Hub's and Done Hub's signed keys (common/user-token.go): sqids payload, `_`, base64url HMAC-SHA-256.
    [`sk-Ab3dEf6hIj9kLm2_${'x-Y_'.repeat(10)}abc`, `Ab3dEf6hIj9kLm2_${'x-Y_'.repeat(10)}abc`],
    [`Ab3dEf6hIj9kLm2_${'z'.repeat(43)}`, `Ab3dEf6hIj9kLm2_${'z'.repeat(43)}`],
    [`Ab3dEf6hIj9kLm_${'z'.repeat(43)}`, undefined],
    [`Ab3dEf6hIj9kLm2_${'z'.repeat(42)}`, undefined],
    [`Ab3dEf6hIj9kLm2_${'z'.repeat(42)}=`, undefined],
    [`Ab3d-f6hIj9kLm2_${'z'.repeat(43)}`, undefined],
  ])('reads %j as the key body %j', (token, body) => {
    expect(relayKeyBody(token)).toBe(body);
  });

  it('hashes a key with and without sk- alike, keyed and apart from a plain HMAC of the same characters', () => {
    const key = newRelayKey();

    const hash = relayKeyHash(HMAC_KEY, key);

    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(relayKeyHash(HMAC_KEY, key.slice(3))).toBe(hash);
    expect(relayKeyHash(Buffer.from('another-key-0123456789-0123456789', 'utf8'), key)).not.toBe(hash);
    // A channel id is an HMAC under the same key: the label keeps the two apart.
    expect(createHmac('sha256', HMAC_KEY).update(key.slice(3)).digest('hex')).not.toBe(hash);
    expect(createHmac('sha256', HMAC_KEY).update(key).digest('hex')).not.toBe(hash);
    expect(() => relayKeyHash(HMAC_KEY, 'not a key')).toThrow('not a relay key');
  });

  it('shows a key as sk-… and its id, nothing of the key', () => {
    expect(relayKeyLabel('0123456789abcdef01234567')).toBe('sk-…0123456789abcdef01234567');
  });

  it.each([
    ['10.0.0.1', true],
    ['10.0.0.0/8', true],
    ['0.0.0.0/0', true],
    ['2001:db8::/32', true],
    ['::1', true],
    ['10.0.0.0/33', false],
    ['2001:db8::/129', false],
    ['10.0.0.0/', false],
    ['10.0.0.0/8/8', false],
    ['fe80::1%eth0', false],
    ['example.com', false],
    ['', false],
  ])('reads %j as an IP or CIDR: %s', (entry, valid) => {
    expect(isIpOrCidr(entry)).toBe(valid);
  });

  it('lets a source IP use a key only from its allow-list, IPv4-mapped forms included', () => {
    const ips = ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'];

    expect(relayKeyIpAllowed(undefined, '203.0.113.9')).toBe(true);
    expect(relayKeyIpAllowed(ips, '10.1.2.3')).toBe(true);
    expect(relayKeyIpAllowed(ips, '::ffff:10.1.2.3')).toBe(true);
    expect(relayKeyIpAllowed(ips, '192.0.2.7')).toBe(true);
    expect(relayKeyIpAllowed(ips, '2001:db8::5')).toBe(true);
    expect(relayKeyIpAllowed(ips, '192.0.2.8')).toBe(false);
    expect(relayKeyIpAllowed(ips, '11.0.0.1')).toBe(false);
    expect(relayKeyIpAllowed(ips, 'not-an-ip')).toBe(false);
    expect(relayKeyIpAllowed(['garbage'], '10.0.0.1')).toBe(false);
    expect(relayKeyIpAllowed([], '10.0.0.1')).toBe(false);
  });

  it('counts a key as expired at its expiry, or with an expiry that does not parse (fail closed)', () => {
    expect(relayKeyExpired({}, NOW)).toBe(false);
    expect(relayKeyExpired({ expiresAt: null }, NOW)).toBe(false);
    expect(relayKeyExpired({ expiresAt: '2026-06-01T00:00:01Z' }, NOW)).toBe(false);
    expect(relayKeyExpired({ expiresAt: '2026-06-01T00:00:00Z' }, NOW)).toBe(true);
    expect(relayKeyExpired({ expiresAt: 'next year' }, NOW)).toBe(true);
  });

  it('round-trips the authorizer context into the caller the relay reads', () => {
    const record: RelayKeyRecord = {
      keyHash: 'a'.repeat(64),
      id: '0123456789abcdef01234567',
      name: 'ci',
      groups: ['vip', 'default'],
      ips: ['10.0.0.0/8'],
      expiresAt: '2999-01-01T00:00:00.000Z',
      status: 'enabled',
      createdAt: NOW.toISOString(),
    };

    const context = relayAuthorizerContext(record);

    expect(Object.values(context).every((v) => typeof v === 'string')).toBe(true);
    expect(JSON.stringify(context)).not.toContain(record.keyHash);
    expect(relayCallerFromContext({ ...context })).toEqual({
      keyId: record.id,
      groups: ['vip', 'default'],
      ips: ['10.0.0.0/8'],
      expiresAt: '2999-01-01T00:00:00.000Z',
    });
  });
  it('tells the relay a key is metered only when its quota is limited', () => {
    const base = {
      keyHash: 'a'.repeat(64),
      id: '0123456789abcdef01234567',
      name: 'q',
      groups: ['default'],
      expiresAt: null,
      status: 'enabled' as const,
      createdAt: NOW.toISOString(),
    };

    const limited = relayCallerFromContext({
      ...relayAuthorizerContext({ ...base, unlimitedQuota: false, remainQuota: 5 }),
    });
    const unlimited = relayCallerFromContext({ ...relayAuthorizerContext({ ...base, unlimitedQuota: true }) });
    const legacy = relayCallerFromContext({ ...relayAuthorizerContext(base) });

    expect(limited?.limitedQuota).toBe(true);
    expect(unlimited?.limitedQuota).toBeUndefined();
    expect(legacy?.limitedQuota).toBeUndefined();
  });
});

describe('cachedRelayKeyLookup', () => {
  const key = newRelayKey();
  const hash = relayKeyHash(HMAC_KEY, key);
  const stored = (extra: Partial<RelayKeyRecord> = {}): RelayKeyRecord => ({
    keyHash: hash,
    id: '0123456789abcdef01234567',
    name: 'ci',
    groups: ['default'],
    status: 'enabled',
    createdAt: NOW.toISOString(),
    ...extra,
  });

  function lookupOver(records: () => RelayKeyRecord[], options: { maxAgeMs?: number; maxEntries?: number } = {}) {
    let t = 0;
    const reads: string[] = [];
    const lookup = cachedRelayKeyLookup({
      store: {
        findByHash: async (keyHash) => {
          reads.push(keyHash);
          return records().find((r) => r.keyHash === keyHash);
        },
      },
      hmacKey: async () => HMAC_KEY,
      maxAgeMs: options.maxAgeMs ?? 60_000,
      ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
      clock: () => t,
    });
    return { lookup, reads, advance: (ms: number) => (t += ms) };
  }

  it('reuses a usable record until its max age, then reads it again', async () => {
    let current = [stored()];
    const { lookup, reads, advance } = lookupOver(() => current);

    await lookup.find(key, NOW);
    current = [stored({ status: 'disabled' })];
    const cached = await lookup.find(key, NOW);
    advance(60_000);
    const fresh = await lookup.find(key, NOW);

    expect([cached?.status, fresh?.status]).toEqual(['enabled', 'disabled']);
    expect(reads).toEqual([hash, hash]);
  });

  it('never caches a miss, a disabled or an expired record: each lookup reads again', async () => {
    let current: RelayKeyRecord[] = [];
    const { lookup, reads } = lookupOver(() => current);

    const missing = await lookup.find(key, NOW);
    current = [stored({ status: 'disabled' })];
    const disabled = await lookup.find(key, NOW);
    current = [stored({ expiresAt: '2020-01-01T00:00:00Z' })];
    const expired = await lookup.find(key, NOW);
    current = [stored()];
    const created = await lookup.find(key, NOW);

    expect([missing, disabled?.status, expired?.expiresAt, created?.status]).toEqual([
      undefined,
      'disabled',
      '2020-01-01T00:00:00Z',
      'enabled',
    ]);
    expect(reads).toHaveLength(4);
  });

  it('reads again a cached record that expired meanwhile', async () => {
    const { lookup, reads } = lookupOver(() => [stored({ expiresAt: '2026-06-01T00:00:30Z' })]);

    await lookup.find(key, NOW);
    await lookup.find(key, new Date('2026-06-01T00:01:00Z'));

    expect(reads).toHaveLength(2);
  });

  it('drops the least recently used record beyond its size', async () => {
    const keys = [newRelayKey(), newRelayKey(), newRelayKey()];
    const records = keys.map((k, i) => stored({ keyHash: relayKeyHash(HMAC_KEY, k), id: `${i}`.repeat(24) }));
    const { lookup, reads } = lookupOver(() => records, { maxEntries: 2 });

    await lookup.find(keys[0] ?? '', NOW);
    await lookup.find(keys[1] ?? '', NOW);
    await lookup.find(keys[0] ?? '', NOW);
    await lookup.find(keys[2] ?? '', NOW);
    reads.length = 0;
    await lookup.find(keys[0] ?? '', NOW);
    await lookup.find(keys[1] ?? '', NOW);

    expect(reads).toEqual([relayKeyHash(HMAC_KEY, keys[1] ?? '')]);
  });

  it('forgets everything when cleared', async () => {
    const { lookup, reads } = lookupOver(() => [stored()]);

    await lookup.find(key, NOW);
    lookup.clear();
    await lookup.find(key, NOW);

    expect(reads).toHaveLength(2);
  });
});
