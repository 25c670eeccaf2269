import { describe, expect, it } from 'vitest';
import { countTokens } from '#shared/kb/tokens';

describe('countTokens (cl100k_base, as FastGPT counts)', () => {
  it('counts English and Chinese text as the encoding does', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
    // Each CJK character is at least one token in cl100k_base, never fewer tokens than words.
    expect(countTokens('知识库的向量检索很重要')).toBeGreaterThanOrEqual(8);
  });
});
