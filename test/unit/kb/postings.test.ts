import { describe, expect, it } from 'vitest';
import { postingsIn } from '#shared/kb/search/postings';

describe('a term’s postings count', () => {
  it('is the line count of its blocks, or the count an older block carries', () => {
    const line = (id: string) => `${id} ${'c'.repeat(24)} 0 1 12`;
    expect(
      postingsIn([
        { p: [line('a'), line('b'), line('c')].join('\n') },
        { p: line('d') },
        // Written before 2026-11-28: the count beside the lines.
        { p: [line('e'), line('f')].join('\n'), c: 2 },
        { p: '' },
      ]),
    ).toBe(6);
  });
});
