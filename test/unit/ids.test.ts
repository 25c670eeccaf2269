import { describe, expect, it } from 'vitest';
import { isObjectId, newObjectId } from '#shared/ids';

describe('newObjectId', () => {
  it('returns 24 lowercase hex characters that start with the creation second', () => {
    const now = new Date('2026-01-02T03:04:05Z');

    const id = newObjectId(now);

    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Math.floor(now.getTime() / 1000));
  });

  it('never repeats within one process', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newObjectId()));

    expect(ids.size).toBe(10_000);
  });

  it('recognises only 24-character hex strings as ids', () => {
    expect(isObjectId('0123456789abcdefABCDEF01')).toBe(true);
    expect(isObjectId('0123456789abcdef0123456')).toBe(false);
    expect(isObjectId('0123456789abcdef0123456g')).toBe(false);
  });
});
