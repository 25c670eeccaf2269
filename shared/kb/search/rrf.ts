import type { SearchResultItem, SearchScore } from './types.ts';

/*
 * Reciprocal-rank fusion as FastGPT merges result lists (packages/global/core/dataset/search/utils.ts,
 * datasetSearchResultConcat, read at v4.12–v4.14): each list adds 1 / (k + rank) to an item's fused score, with its
 * own k (a smaller k weighs a list more); an item in several lists keeps the best value of each score type; the fused
 * list carries an `rrf` score whose `index` is the item's new rank. One non-empty list is returned as it is.
 */

/** FastGPT's k for fusing several queries' lists of one kind. */
export const RRF_K = 60;
/** FastGPT's base k, split between two lists by their weights (`embeddingWeight`, `rerankWeight`). */
export const RRF_BASE_K = 120;

export function rrfConcat(lists: readonly { k: number; list: readonly SearchResultItem[] }[]): SearchResultItem[] {
  const nonEmpty = lists.filter((l) => l.list.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return [...nonEmpty[0]!.list];
  const fused = new Map<string, { item: SearchResultItem; rrf: number }>();
  for (const { k, list } of nonEmpty) {
    list.forEach((item, i) => {
      const add = 1 / (k + i + 1);
      const found = fused.get(item.id);
      if (!found) {
        fused.set(item.id, { item: { ...item, score: item.score.map((s) => ({ ...s })) }, rrf: add });
        return;
      }
      found.rrf += add;
      for (const score of item.score) {
        const same = found.item.score.find((s) => s.type === score.type);
        if (same) same.value = Math.max(same.value, score.value);
        else found.item.score.push({ ...score });
      }
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.rrf - a.rrf)
    .map(({ item, rrf }, index) => {
      const score: SearchScore[] = item.score.filter((s) => s.type !== 'rrf');
      const previous = item.score.find((s) => s.type === 'rrf');
      // FastGPT resets an existing rrf score in place, else appends one: the order of `score` follows.
      const rrfScore: SearchScore = { type: 'rrf', value: rrf, index };
      return {
        ...item,
        score: previous ? item.score.map((s) => (s.type === 'rrf' ? rrfScore : s)) : [...score, rrfScore],
      };
    });
}
