import { isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDsn } from '#functions/import-legacygw/dsn';
import { parseAllowList } from '#shared/allow-list';
import { isHostName, isIPv4Address, isIPv6Address } from '#shared/host-name';

describe('the one host-name rule', () => {
  it.each(['db.internal', 'DB.Internal.', 'legacy_db', 'a-b.example.com', 'localhost'])('accepts %s', (host) => {
    expect(isHostName(host)).toBe(true);
  });

  it.each([
    '',
    '.',
    'db..internal',
    '-db.internal',
    'db-.internal',
    'db internal',
    '*.internal',
    '1.2.3.999',
    '0x7f',
    `${'a'.repeat(64)}.example`,
  ])('rejects %s', (host) => {
    expect(isHostName(host)).toBe(false);
  });

  it('is the rule of both the DSN host and the allow-list entries', () => {
    for (const host of ['db..internal', '1.2.3.999', 'db-.internal']) {
      expect(() => parseDsn(`u:p@tcp(${host}:3306)/legacy`)).toThrow('not a valid host name');
      expect(() => parseAllowList([host])).toThrow(`entry "${host}"`);
    }
    expect(parseDsn('u:p@tcp(DB.Internal:3306)/legacy').host).toBe('DB.Internal');
    expect([...parseAllowList(['DB.Internal.']).hostNames]).toEqual(['db.internal']);
  });
});

describe("the address checks written without node:net (the OpenAPI function's Host header)", () => {
  // Pieces that build valid, nearly valid and broken addresses alike.
  const piece = fc.constantFrom(
    '0',
    '1',
    'f',
    'F',
    'ab',
    'ffff',
    '00',
    '0000',
    '12345',
    'g',
    ':',
    '::',
    ':::',
    '.',
    '1.2.3.4',
    '255',
    '256',
    '01',
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 14 }).map((parts) => parts.join(''));

  it('decide as isIPv4 and isIPv6 of node:net do', () => {
    fc.assert(
      fc.property(text, (candidate) => {
        expect(isIPv4Address(candidate)).toBe(isIPv4(candidate));
        expect(isIPv6Address(candidate)).toBe(isIPv6(candidate));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['::', true],
    ['::1', true],
    ['1::', true],
    ['1:2:3:4:5:6:7:8', true],
    ['1:2:3:4:5:6:7::', true],
    ['1:2:3:4::5:6:7:8', false],
    ['::ffff:1.2.3.4', true],
    ['1:2:3:4:5:6:1.2.3.4', true],
    ['1:2:3:4:5:6:7:8::', false],
    ['1:2:3:4:5:6:7:1.2.3.4', false],
    ['1.2.3.4::', false],
    ['1::2::3', false],
    ['1:::2', false],
    ['::1.2.3.04', false],
    ['', false],
  ])('IPv6 %s: %s, as node:net says', (candidate, valid) => {
    expect(isIPv6Address(candidate)).toBe(valid);
    expect(isIPv6(candidate)).toBe(valid);
  });

  it('refuses a zone index, which node:net accepts (a Host header cannot carry one)', () => {
    expect(isIPv6('fe80::1%eth0')).toBe(true);
    expect(isIPv6Address('fe80::1%eth0')).toBe(false);
  });
});
