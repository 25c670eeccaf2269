/** Small DOM helpers. Text always goes in through textContent: nothing from the API is parsed as HTML. */

/** The element with this id, or a loud failure when the page template and the script disagree. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element as T;
}

type Attributes = Record<string, string | boolean | undefined>;

/** Creates an element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  element.append(...children);
  return element;
}

/** Shows `message` in a message element (an empty message hides it). */
export function say(element: HTMLElement, message: string): void {
  element.textContent = message;
}

// Control and format characters (bidi overrides, embeddings and isolates, zero-width characters, the BOM,
// tag characters, line and paragraph separators) are invisible or reorder the text around them: a name
// holding U+202E could read as another channel's, in the table and in the delete dialog.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `text` with each invisible or reordering character shown as a marker such as ⟨U+202E⟩. */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** `visible(text)` in its own bidi isolate (`<bdi>`): right-to-left letters in it cannot reorder its surroundings. */
export function isolated(text: string): HTMLElement {
  return h('bdi', {}, visible(text));
}
