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
  return `${visible(chars.slice(0, 3))}${ELLIPSIS}${visible(chars.slice(-4))}`;
}

/**
 * The shown ends with control characters as their pictures (a service account's JSON key ends in `}\n`): a mask is
 * one line wherever it is shown (a table cell, a log line, a terminal), never a raw line break or escape.
 */
function visible(chars: readonly string[]): string {
  return chars
    .map((c) => {
      const code = c.codePointAt(0) as number;
      if (code < 0x20) return String.fromCodePoint(0x2400 + code);
      if (code === 0x7f) return '\u2421';
      return (code >= 0x80 && code < 0xa0) || code === 0x2028 || code === 0x2029 ? '\ufffd' : c;
    })
    .join('');
}

/** True when `key` looks like a masked key rather than a real one (it holds `…` or is `****`). */
export function looksMasked(key: string): boolean {
  return key.includes(ELLIPSIS) || key === HIDDEN_KEY;
}
