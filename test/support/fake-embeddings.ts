/**
 * A stand-in for a real embedding model in tests: a bag of words (Intl.Segmenter's word segments, lower case) hashed
 * into `dimensions` buckets and normalised, so texts that share words are near by cosine and others are not.
 */
export function bagOfWordsEmbedding(dimensions = 256): (input: string) => number[] {
  const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
  return (input) => {
    const vector = new Array<number>(dimensions).fill(0);
    for (const { segment, isWordLike } of segmenter.segment(input.toLowerCase())) {
      if (!isWordLike) continue;
      let hash = 2166136261;
      for (const char of segment) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 16777619);
      const bucket = (hash >>> 0) % dimensions;
      vector[bucket] = (vector[bucket] ?? 0) + 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return vector.map((v) => v / norm);
  };
}
