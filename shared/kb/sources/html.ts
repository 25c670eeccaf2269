import { compile, type HtmlToTextOptions } from 'html-to-text';
import { SourceError } from '../contract.ts';

/*
 * HTML to plain text with html-to-text (a well-kept library; docs/knowledge-base-sources.md): no line wrapping, links
 * as their text only, images, scripts, styles and forms left out, headings kept as lines of their own so the chunker's
 * paragraph rules apply. Depth and breadth limits keep a hostile page from costing more than its size.
 */

const BASE_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  limits: { maxDepth: 200, maxChildNodes: 20_000, maxInputLength: 8 * 1024 * 1024, ellipsis: '' },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    ...['img', 'script', 'style', 'noscript', 'form', 'svg'].map((selector) => ({ selector, format: 'skip' })),
    // Headings as written: the library upper-cases them unless told.
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

const convertWhole = compile({ ...BASE_OPTIONS });
const convertTitle = compile({ wordwrap: false, limits: { maxInputLength: 4096 } });

/** The page's `<title>`, entities decoded, blanks collapsed; undefined when absent or empty. */
export function htmlTitle(html: string): string | undefined {
  const inner = /<title[^>]*>([\s\S]{0,2000}?)<\/title>/i.exec(html.slice(0, 256 * 1024))?.[1];
  if (inner === undefined) return undefined;
  const title = convertTitle(inner.replace(/</g, '&lt;')).replace(/\s+/g, ' ').trim();
  return title === '' ? undefined : title.slice(0, 200);
}

/** The text of an HTML document (of the elements matching `selector` only, when given and found) and its title. */
export function htmlToText(html: string, selector?: string): { text: string; title?: string } {
  let text: string;
  try {
    text = selector
      ? compile({ ...BASE_OPTIONS, baseElements: { selectors: [selector], returnDomByDefault: true } })(html)
      : convertWhole(html);
  } catch {
    throw new SourceError('the page could not be read as HTML');
  }
  const title = htmlTitle(html);
  return { text: text.replace(/\n{3,}/g, '\n\n').trim(), ...(title ? { title } : {}) };
}
