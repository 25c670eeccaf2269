/*
 * A terminal is not a page: it obeys escape sequences (ESC [ 2 K erases a line, ESC [ 1 A moves up, the
 * 8-bit CSI U+009B does the same on many terminals), a carriage return rewrites a line, and bidi overrides reorder it.
 * Names and reasons in the summary come from a SQLite file anyone may have written, and the proxy's messages may echo
 * them: each such character is shown as a marker, as the console does (functions/console/page/dom.ts `visible`).
 */

// Control (C0, DEL, C1) and format characters (bidi overrides, embeddings and isolates, zero-width characters, the
// BOM, tag characters), line and paragraph separators.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const marker = (c: string) => `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;

/** `text` with every control, escape and reordering character shown as a marker such as ⟨U+001B⟩, line breaks too. */
export function shown(text: string): string {
  return text.replace(HIDDEN, marker);
}

/** Lines the CLI wrote (its own line breaks kept), each with every other such character shown as a marker. */
export function shownLines(text: string): string {
  return text.split('\n').map(shown).join('\n');
}

// JSON.stringify escapes C0 controls only; these are what it leaves raw (they occur only inside strings there).
const RAW_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * JSON text with DEL, C1 controls, format characters and separators escaped as \uXXXX: the same value for a program
 * that reads it, nothing a terminal obeys for a person who looks at it.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(RAW_IN_JSON, (c) =>
    [...c].length === 1 && c.length === 2
      ? `\\u${(c.charCodeAt(0) ?? 0).toString(16).padStart(4, '0')}\\u${(c.charCodeAt(1) ?? 0).toString(16).padStart(4, '0')}`
      : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
