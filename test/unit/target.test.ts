import { describe, expect, it } from 'vitest';
import { type LookupFn, resolveTarget } from '#functions/import-legacygw/target';
import { ANY_HOST, parseAllowList } from '#shared/allow-list';
import { importEnvSchema, loadConfig } from '#shared/config';
import { ConfigError, ProxyApiError } from '#shared/errors';

/** A fake resolver: answers from the table, fails like getaddrinfo for anything else, and records its calls. */
function fakeLookup(answers: Record<string, string[]>): LookupFn & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

async function rejection(promise: Promise<unknown>): Promise<ProxyApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProxyApiError) return error;
    throw error;
  }
  throw new Error('expected the target to be refused');
}

describe('resolveTarget, link-local targets', () => {
  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '169.254.0.0',
    '169.254.255.255',
    'fe80::1',
    'FE80::a:b',
    'febf:ffff::1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::169.254.169.254',
    'fd00:ec2::254',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:FF9B:0:0:0:0:a9fe:aa02',
    '64:ff9b::169.254.0.0',
    '64:ff9b::a9fe:ffff',
    '64:ff9b:1:a9fe:a9:fe00::',
    '::ffff:0:169.254.169.254',
    '::ffff:0:a9fe:a9fe',
    '0:0:0:0:ffff:0:a9fe:aa02',
    '64:ff9b:1:12a9:fe:a9fe::',
    '64:ff9b:1:1234:a9:fea9:fe00:0',
    '64:ff9b:1:1:2:3:a9fe:a9fe',
    '64:ff9b:1:1:2:3:169.254.169.254',
  ])('refuses the address %s with 400, without a DNS query', async (address) => {
    const lookup = fakeLookup({});

    const error = await rejection(resolveTarget(address, ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/link-local/);
    expect(lookup.calls).toEqual([]);
  });

  it.each([
    '169.253.255.255',
    '169.255.0.1',
    'fec0::1',
    'fe7f::1',
    '127.0.0.1',
    '::1',
    '10.1.2.3',
    '64:ff9b::a9fd:ffff',
    '64:ff9b::a9ff:0',
    '64:ff9b::10.1.2.3',
    '64:ff9b:1:a9fd::',
    '::ffff:0:10.1.2.3',
    '::ffff:0:a9fd:ffff',
    '64:ff9b:1:1:2:3:a9fd:a9fe',
    '64:ff9b:2::a9fe:a9fe',
  ])('accepts the neighbouring or ordinary address %s', async (address) => {
    const target = await resolveTarget(address, ANY_HOST, fakeLookup({}));

    expect(target.address).toBe(address);
  });

  it('refuses a host name that resolves to a link-local address', async () => {
    const lookup = fakeLookup({ 'metadata.example': ['169.254.169.254'] });

    const error = await rejection(resolveTarget('metadata.example', ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/link-local/);
  });

  it('refuses a host name when any of its addresses is link-local', async () => {
    const lookup = fakeLookup({ 'mixed.example': ['10.0.0.5', 'fe80::1'] });

    const error = await rejection(resolveTarget('mixed.example', ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
  });

  it('refuses a host name that a DNS64 resolver answers with the NAT64 form of the metadata address', async () => {
    const lookup = fakeLookup({ 'metadata.dns64.example': ['64:ff9b::a9fe:a9fe'] });

    const error = await rejection(resolveTarget('metadata.dns64.example', ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/link-local/);
  });

  it('refuses a host name that a SIIT translator answers with the IPv4-translated form of the metadata address', async () => {
    const lookup = fakeLookup({ 'metadata.siit.example': ['::ffff:0:a9fe:a9fe'] });

    const error = await rejection(resolveTarget('metadata.siit.example', ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/link-local/);
  });

  it('refuses a host name that resolves to an IPv4-mapped link-local address', async () => {
    const lookup = fakeLookup({ 'mapped.example': ['::ffff:169.254.170.2'] });

    const error = await rejection(resolveTarget('mapped.example', ANY_HOST, lookup));

    expect(error.httpStatus).toBe(400);
  });
});

describe('resolveTarget, resolution', () => {
  it('resolves a host name once and returns its first address with the family', async () => {
    const lookup = fakeLookup({ 'db.internal': ['10.0.0.5', '10.0.0.6'] });

    const target = await resolveTarget('db.internal', ANY_HOST, lookup);

    expect(target).toEqual({ address: '10.0.0.5', family: 4 });
    expect(lookup.calls).toEqual(['db.internal']);
  });

  it('returns family 6 for an IPv6 address', async () => {
    const lookup = fakeLookup({ 'db6.internal': ['fd00::5'] });

    expect(await resolveTarget('db6.internal', ANY_HOST, lookup)).toEqual({ address: 'fd00::5', family: 6 });
  });

  it('takes an IP literal as it is, brackets or not', async () => {
    expect(await resolveTarget('[::1]', ANY_HOST, fakeLookup({}))).toEqual({ address: '::1', family: 6 });
    expect(await resolveTarget('192.0.2.1', ANY_HOST, fakeLookup({}))).toEqual({ address: '192.0.2.1', family: 4 });
  });

  it('reports a DNS failure as 502', async () => {
    const error = await rejection(resolveTarget('missing.example', ANY_HOST, fakeLookup({})));

    expect(error.httpStatus).toBe(502);
    expect(error.message).toMatch(/could not be resolved/);
  });

  it('reports an empty or unusable DNS answer as 502', async () => {
    const lookup = fakeLookup({ 'empty.example': [], 'junk.example': ['not-an-address'] });

    expect((await rejection(resolveTarget('empty.example', ANY_HOST, lookup))).httpStatus).toBe(502);
    expect((await rejection(resolveTarget('junk.example', ANY_HOST, lookup))).httpStatus).toBe(502);
  });
});

describe('resolveTarget, allow-list', () => {
  const lookup = fakeLookup({
    'db.internal': ['10.0.0.5'],
    'db.INTERNAL.': ['10.0.0.5'],
    'other.internal': ['10.9.0.5'],
    'db6.internal': ['fd00:1::5'],
    'two.internal': ['192.0.2.9', '10.0.0.7'],
  });

  it('allows a host named in the list, whatever it resolves to, case-insensitively', async () => {
    const allowList = parseAllowList(['DB.Internal.']);

    expect(await resolveTarget('db.internal', allowList, lookup)).toEqual({ address: '10.0.0.5', family: 4 });
    expect(await resolveTarget('db.INTERNAL.', allowList, lookup)).toMatchObject({ address: '10.0.0.5' });
  });

  it('refuses a host that is not in the list with 400', async () => {
    const error = await rejection(resolveTarget('other.internal', parseAllowList(['db.internal']), lookup));

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/LEGACYGW_ALLOWED_HOSTS/);
  });

  it('allows an address listed as an IP, given literally or through a name', async () => {
    const allowList = parseAllowList(['10.0.0.5']);

    expect(await resolveTarget('10.0.0.5', allowList, lookup)).toMatchObject({ address: '10.0.0.5' });
    expect(await resolveTarget('db.internal', allowList, lookup)).toMatchObject({ address: '10.0.0.5' });
    expect((await rejection(resolveTarget('10.0.0.6', allowList, lookup))).httpStatus).toBe(400);
  });

  it('allows addresses inside an IPv4 CIDR only', async () => {
    const allowList = parseAllowList(['10.0.0.0/24']);

    expect(await resolveTarget('db.internal', allowList, lookup)).toMatchObject({ address: '10.0.0.5' });
    expect(await resolveTarget('10.0.0.255', allowList, lookup)).toMatchObject({ address: '10.0.0.255' });
    expect((await rejection(resolveTarget('other.internal', allowList, lookup))).httpStatus).toBe(400);
    expect((await rejection(resolveTarget('10.0.1.0', allowList, lookup))).httpStatus).toBe(400);
  });

  it('matches the IPv4-mapped form of an address against an IPv4 CIDR', async () => {
    const allowList = parseAllowList(['10.0.0.0/8']);

    expect(await resolveTarget('::ffff:10.1.2.3', allowList, lookup)).toMatchObject({ address: '::ffff:10.1.2.3' });
  });

  it('allows addresses inside an IPv6 CIDR only', async () => {
    const allowList = parseAllowList(['fd00:1::/32']);

    expect(await resolveTarget('db6.internal', allowList, lookup)).toEqual({ address: 'fd00:1::5', family: 6 });
    expect(await resolveTarget('[fd00:1:ffff::1]', allowList, lookup)).toMatchObject({ address: 'fd00:1:ffff::1' });
    expect((await rejection(resolveTarget('fd00:2::1', allowList, lookup))).httpStatus).toBe(400);
    expect((await rejection(resolveTarget('db.internal', allowList, lookup))).httpStatus).toBe(400);
  });

  it('connects to the first resolved address that the list allows', async () => {
    const allowList = parseAllowList(['10.0.0.0/8']);

    expect(await resolveTarget('two.internal', allowList, lookup)).toEqual({ address: '10.0.0.7', family: 4 });
  });

  it('still refuses link-local targets that the list would allow', async () => {
    const allowList = parseAllowList(['169.254.0.0/16', 'metadata.example', '0.0.0.0/0']);
    const metadata = fakeLookup({ 'metadata.example': ['169.254.169.254'] });

    expect((await rejection(resolveTarget('169.254.169.254', allowList, metadata))).httpStatus).toBe(400);
    expect((await rejection(resolveTarget('metadata.example', allowList, metadata))).httpStatus).toBe(400);
  });

  it('receives LEGACYGW_ALLOWED_HOSTS already parsed by the import environment, which names the variable on a bad entry', async () => {
    const config = loadConfig(importEnvSchema, {
      CHANNELS_TABLE: 'channels',
      LEGACYGW_ALLOWED_HOSTS: ' db.internal , 10.1.0.0/16',
    });

    expect(await resolveTarget('db.internal', config.LEGACYGW_ALLOWED_HOSTS, lookup)).toMatchObject({
      address: '10.0.0.5',
    });
    expect((await rejection(resolveTarget('other.internal', config.LEGACYGW_ALLOWED_HOSTS, lookup))).httpStatus).toBe(
      400,
    );
    expect(() => loadConfig(importEnvSchema, { CHANNELS_TABLE: 'c', LEGACYGW_ALLOWED_HOSTS: 'db..internal' })).toThrow(
      /LEGACYGW_ALLOWED_HOSTS entry "db\.\.internal"/,
    );
  });

  it('treats an empty list as "any non-link-local target"', async () => {
    expect(parseAllowList([]).isEmpty).toBe(true);
    expect(parseAllowList(['', '  ']).isEmpty).toBe(true);
    expect(await resolveTarget('other.internal', parseAllowList([]), lookup)).toMatchObject({ address: '10.9.0.5' });
  });
});

describe('parseAllowList', () => {
  it('accepts host names, IPv4 and IPv6 addresses and CIDRs', () => {
    const allowList = parseAllowList([' db.internal ', '10.0.0.5', '[fd00::1]', '192.168.0.0/16', 'fd00::/8', '::/0']);

    expect(allowList.isEmpty).toBe(false);
    expect([...allowList.hostNames]).toEqual(['db.internal']);
    expect(allowList.networks.check('192.168.4.4', 'ipv4')).toBe(true);
    expect(allowList.networks.check('fd00::1', 'ipv6')).toBe(true);
  });

  it.each([
    '10.0.0.0/33',
    'fd00::/129',
    '10.0.0.0/',
    '10.0.0.0/x',
    '10.0.0/8',
    'db.internal/24',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    'fe80::1%eth0/64',
  ])('rejects the bad CIDR %s with a ConfigError naming it', (entry) => {
    expect(() => parseAllowList([entry])).toThrow(ConfigError);
    expect(() => parseAllowList([entry])).toThrow(entry);
  });

  it.each(['*.internal', 'db internal', 'db..internal', '-db.internal', 'http://db.internal'])(
    'rejects the entry %s that is neither a host name nor an address',
    (entry) => {
      expect(() => parseAllowList([entry])).toThrow(ConfigError);
    },
  );
});
