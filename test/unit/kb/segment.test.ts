import { describe, expect, it } from 'vitest';
import { foldText, intlWordSegments, segment, wordSegments } from '#shared/kb/search/segment';
import { corpus } from '#test/bench/kb-corpus';
import { seededRandom } from '#test/support/seeded-random';

// Pieces a text is made of: plain words, words with inner punctuation, numbers, CJK, Japanese, Thai, combining marks,
// format characters, emoji with joiners, full-width forms, every kind of whitespace and the punctuation around words.
const PIECES = [
  'refund',
  'Knowledge',
  'base',
  'API',
  'e.g.',
  "don't",
  "base's",
  'well-known',
  'a_b',
  'x:y',
  'v4.12.2',
  '3.14',
  '1,000',
  '14',
  'abc123',
  '中文',
  '知识库的向量检索很重要',
  '退款在十四天内处理',
  'カタカナ',
  'ひらがな',
  'ภาษาไทย',
  'café',
  'e\u0301',
  '\u00ad',
  '\u200d',
  '👩\u200d💻',
  'ＡＰＩ',
  'ｶﾀｶﾅ',
  '(',
  ')',
  '[',
  ']',
  '"',
  "'",
  '’',
  '.',
  ',',
  ';',
  ':',
  '!',
  '?',
  '-',
  '_',
  '/',
  '#',
  '@',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\f',
  '\v',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\u0085',
  'ok.',
  '(see',
  'this)',
  '"quoted"',
  "'single'",
  'end.',
  'Q:',
  'A:',
];

describe('the word segments of full-text recall', () => {
  it('are what Intl.Segmenter finds, on random texts of every kind of piece', () => {
    const random = seededRandom(20261128);
    for (let i = 0; i < 3000; i++) {
      const parts: string[] = [];
      const n = 1 + Math.floor(random() * 14);
      for (let j = 0; j < n; j++) parts.push(PIECES[Math.floor(random() * PIECES.length)] as string);
      const text = foldText(parts.join(random() < 0.5 ? ' ' : ''));
      expect(wordSegments(text), JSON.stringify(text)).toEqual(intlWordSegments(text));
    }
  });

  it('are what Intl.Segmenter finds on the English and Chinese prose of the training bench', () => {
    for (const doc of corpus(8, 5000)) {
      const text = foldText(doc.text);
      expect(wordSegments(text)).toEqual(intlWordSegments(text));
    }
  });

  it('keeps plain words, drops stop words and possessives', () => {
    expect(segment('The base’s refunds: see (the) API.')).toEqual(['base', 'refunds', 'see', 'api']);
  });
});
