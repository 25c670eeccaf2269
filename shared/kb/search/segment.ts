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
  const terms: string[] = [];
  const keep = (word: string) => {
    // English possessives: "base's" is found by "base".
    const term = word.endsWith('s') ? word.replace(/['’]s$/u, '') : word;
    if (term.length > MAX_TERM_LENGTH) return;
    if (dropStopWords && STOP_WORDS.has(term)) return;
    terms.push(term);
  };
  wordsOf(foldText(text), keep);
  return terms;
}

// A whitespace-delimited token of ASCII letters, with only punctuation around it that never joins a word at a Unicode
// word boundary (UAX #29: `.` `'` `:` join letters only with a letter on both sides; the others never).
const SIMPLE_TOKEN = /^[(["']*([a-z]+)[)\]"'.,;:!?]*$/;
const TOKEN = /[^ \t\n\r\f\v]+/g;

// The locale only picks the dictionary ICU prefers; its CJK dictionary covers Chinese and Japanese alike.
const wordSegmenter = (): Intl.Segmenter => {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return segmenter;
};

/**
 * Intl.Segmenter's word-like segments of a folded text, in order, asked segment by segment from the end of the one
 * before (`containing`): the same boundaries as iterating, at about four fifths of the cost on Chinese, where V8's work
 * per segment is most of the time (docs/performance.md). test/unit/kb/segment.test.ts holds it to the iteration.
 */
function intlWords(text: string, keep: (word: string) => void): void {
  const segments = wordSegmenter().segment(text);
  for (let at = 0; at < text.length; ) {
    const part = segments.containing(at);
    if (part === undefined) return;
    if (part.isWordLike) keep(part.segment);
    at = part.index + part.segment.length;
  }
}

/**
 * The word-like segments `Intl.Segmenter` finds, found faster: a token of plain ASCII letters between whitespace is one
 * word at Unicode word boundaries whatever surrounds it, so it is taken as it is; every other stretch of text (CJK,
 * digits, hyphens, apostrophes inside a word) goes to the segmenter whole, with its own context. Segmenting English prose
 * costs about a fifth of the segmenter's time; test/unit/kb/segment.test.ts holds the two to the same answers.
 */
function wordsOf(folded: string, keep: (word: string) => void): void {
  let regionStart = -1;
  let regionEnd = -1;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(folded); match !== null; match = TOKEN.exec(folded)) {
    const simple = SIMPLE_TOKEN.exec(match[0]);
    if (simple === null) {
      if (regionStart < 0) regionStart = match.index;
      regionEnd = match.index + match[0].length;
      continue;
    }
    if (regionStart >= 0) {
      intlWords(folded.slice(regionStart, regionEnd), keep);
      regionStart = -1;
    }
    keep(simple[1] as string);
  }
  if (regionStart >= 0) intlWords(folded.slice(regionStart, regionEnd), keep);
}

/** The word-like segments of a folded text by iterating `Intl.Segmenter` (the reference the fast path is tested against). */
export function intlWordSegments(folded: string): string[] {
  const words: string[] = [];
  for (const part of wordSegmenter().segment(folded)) if (part.isWordLike) words.push(part.segment);
  return words;
}

/** The word-like segments of a folded text as `segment` finds them (before possessives and stop words). */
export function wordSegments(folded: string): string[] {
  const words: string[] = [];
  wordsOf(folded, (w) => words.push(w));
  return words;
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
