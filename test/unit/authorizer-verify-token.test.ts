import { describe, expect, it } from 'vitest';
import { bearerToken, verifyToken } from '#functions/authorizer/verify-token';
import { type AccessTokenRecord, type CredentialSource, sha256Hex } from '#shared/access-tokens';

const ADMIN_KEY = 'admin-key-0123456789-0123456789-0123456789';
const TOKEN = 'kb-live-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NOW = new Date('2030-06-01T12:00:00Z');

const record = (token: string, overrides: Partial<AccessTokenRecord> = {}): AccessTokenRecord => ({
  id: `id-${token.slice(-4)}`,
  sha256: sha256Hex(token),
  teamId: '65a0c0ffee0000000000beef',
  tmbId: '65a0c0ffee0000000000f00d',
  label: '',
  expiresAt: null,
  ...overrides,
});

const sourceOf = (records: AccessTokenRecord[], adminKey = ADMIN_KEY): CredentialSource => ({
  adminKey: async () => adminKey,
  accessTokens: async () => records,
});

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer   abc', 'abc'],
    ['  Bearer abc\t ', 'abc'],
    ['Bearer a.b-c_d~e+f/g==', 'a.b-c_d~e+f/g=='],
  ])('reads the token of %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([
    [undefined],
    [''],
    ['   '],
    ['Bearer'],
    ['Bearer '],
    ['Basic dXNlcjpwdw=='],
    ['abc'],
    ['Bearer a b'],
    ['Bearer\tabc'],
    ['Bearerabc'],
    ['Bearer abc\u00e9'],
    ['Bearer abc\u0000'],
  ])('rejects %j as malformed', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});

describe('verifyToken', () => {
  it('identifies a live access token and returns its record', async () => {
    const live = record(TOKEN);
    const source = sourceOf([record('kb-other-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), live]);

    const result = await verifyToken(`Bearer ${TOKEN}`, source, NOW);

    expect(result).toEqual({ kind: 'access', record: live });
  });

  it('identifies the admin key', async () => {
    const result = await verifyToken(`bearer ${ADMIN_KEY}`, sourceOf([record(TOKEN)]), NOW);

    expect(result).toEqual({ kind: 'admin' });
  });

  it('treats a token that is not stored as unknown', async () => {
    const result = await verifyToken('Bearer kb-not-stored', sourceOf([record(TOKEN)]), NOW);

    expect(result).toEqual({ kind: 'unknown' });
  });

  it('treats a token whose expiry has passed as expired, and one expiring later as live', async () => {
    const expired = record(TOKEN, { expiresAt: '2030-06-01T12:00:00Z' });
    const later = record('kb-later-token-cccccccccccccccccccccccccccccccc', { expiresAt: '2030-06-01T12:00:01Z' });
    const source = sourceOf([expired, later]);

    const expiredResult = await verifyToken(`Bearer ${TOKEN}`, source, NOW);
    const laterResult = await verifyToken('Bearer kb-later-token-cccccccccccccccccccccccccccccccc', source, NOW);

    expect(expiredResult).toEqual({ kind: 'expired', record: expired });
    expect(laterResult.kind).toBe('access');
  });

  it('does not treat the digest itself as a token', async () => {
    const result = await verifyToken(`Bearer ${sha256Hex(TOKEN)}`, sourceOf([record(TOKEN)]), NOW);

    expect(result).toEqual({ kind: 'unknown' });
  });

  it('reports a malformed header without reading any credential', async () => {
    const failing: CredentialSource = {
      adminKey: () => Promise.reject(new Error('must not be read')),
      accessTokens: () => Promise.reject(new Error('must not be read')),
    };

    const result = await verifyToken('Basic abc', failing, NOW);

    expect(result).toEqual({ kind: 'malformed' });
  });

  it('propagates a failing credential source instead of answering', async () => {
    const failing: CredentialSource = { ...sourceOf([]), accessTokens: () => Promise.reject(new Error('boom')) };

    await expect(verifyToken(`Bearer ${ADMIN_KEY}`, failing, NOW)).rejects.toThrow('boom');
  });
});
