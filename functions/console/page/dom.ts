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
