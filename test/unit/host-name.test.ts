import { describe, expect, it } from 'vitest';
import { parseDsn } from '#functions/import-legacygw/dsn';
import { parseAllowList } from '#shared/allow-list';
import { isHostName } from '#shared/host-name';

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
