/*
 * Word segments for full-text recall (docs/knowledge-base-search.md, "Full text"). `Intl.Segmenter` at word granularity
 * splits Chinese and Japanese with ICU's dictionary and everything else at Unicode word boundaries, with no model to
 * download (FastGPT uses jieba for the same purpose). Before segmenting, text is folded: NFKC turns full-width Latin
 * letters and digits and half-width katakana into their usual forms, and case is folded, so `ＡＰＩ`, `API` and `api`
 * are one term.
 */

/** The longest term kept, in UTF-16 units: longer "words" are noise (hashes, base64) and would bloat the index. */
export const MAX_TERM_LENGTH = 40;

// Function words that carry no meaning alone, in English and Chinese. Optional (segment's `stopWords`): dropped from
// the index and the query, as BM25 would give them almost no weight while their postings cost the most to read.
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'in',
  'is',
  'it',
  'of',
  'on',
  'or',
  'that',
  'the',
  'this',
  'to',
  'was',
  'were',
  'with',
  '的',
  '了',
  '和',
  '是',
  '在',
  '与',
  '及',
  '或',
  '之',
  '也',
  '就',
  '都',
  '而',
  'の',
  'は',
  'が',
  'を',
  'に',
  'で',
  'と',
  'も',
]);

let segmenter: Intl.Segmenter | undefined;

/** The folded form of a text: NFKC (width) and lower case. */
export function foldText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export interface SegmentOptions {
  /** Leave out common function words (default true). */
  readonly stopWords?: boolean;
}

/** The terms of a text, in order, repeats kept (a term's frequency counts). */
export function segment(text: string, options: SegmentOptions = {}): string[] {
  const dropStopWords = options.stopWords ?? true;
  // The locale only picks the dictionary ICU prefers; its CJK dictionary covers Chinese and Japanese alike.
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  const terms: string[] = [];
  for (const part of segmenter.segment(foldText(text))) {
    if (!part.isWordLike) continue;
    // English possessives: "base's" is found by "base".
    const term = part.segment.replace(/['’]s$/u, '');
    if (term.length > MAX_TERM_LENGTH) continue;
    if (dropStopWords && STOP_WORDS.has(term)) continue;
    terms.push(term);
  }
  return terms;
}

/** Each term of a text with its count, and the text's length in terms. */
export function termFrequencies(
  texts: readonly string[],
  options?: SegmentOptions,
): {
  tf: Map<string, number>;
  length: number;
} {
  const tf = new Map<string, number>();
  let length = 0;
  for (const text of texts) {
    for (const term of segment(text, options)) {
      tf.set(term, (tf.get(term) ?? 0) + 1);
      length++;
    }
  }
  return { tf, length };
}
