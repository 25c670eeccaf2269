/** Shortest key whose ends may be shown: 3 + 4 shown leaves at least 17 hidden, too many to guess. */
export const MIN_KEY_SHOWN = 24;
const ELLIPSIS = '\u2026';
/** The masked form of a key too short to show any of it. */
export const HIDDEN_KEY = '****';

/**
 * The key (or secret setting) as a response may show it: the first 3 and last 4 characters around `…` when it has
 * at least 24 characters, else `****`. Counted in code points, so a split never halves one.
 */
export function maskKey(key: string): string {
  const chars = [...key];
  if (chars.length < MIN_KEY_SHOWN) return HIDDEN_KEY;
  return `${chars.slice(0, 3).join('')}${ELLIPSIS}${chars.slice(-4).join('')}`;
}

/** True when `key` looks like a masked key rather than a real one (it holds `…` or is `****`). */
export function looksMasked(key: string): boolean {
  return key.includes(ELLIPSIS) || key === HIDDEN_KEY;
}
