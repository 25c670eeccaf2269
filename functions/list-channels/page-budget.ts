import type { ChannelView } from '#shared/channel-view';
import { SETTINGS_FIELDS } from '#shared/schemas/channel-settings';

/*
 * Bounded list pages (docs/channel-review-api.md, "Bounded pages"). Lambda refuses a response over 6 MB, counted on
 * the JSON it returns to API Gateway, where the body is itself a JSON string: every `"` and `\` of the body is
 * escaped again, so a body of B bytes costs at most 2B. A page's channels are therefore kept within PAGE_BUDGET_BYTES
 * of JSON text (2.5 MB, so at most 5 MB once escaped, whatever the channels hold). A page within it is answered as
 * it is; otherwise the largest items are shortened, each to the same cap, and say so in `abbreviated`; the detail
 * call answers them whole (a DynamoDB item is at most 400 KB, so one channel always fits in a response).
 */

export const PAGE_BUDGET_BYTES = 2_500_000;
/** A base URL in a shortened item keeps at most this many characters (the import's limit, in code points). */
export const SHORT_BASE_URL_CHARS = 2_048;

type Abbreviable = NonNullable<ChannelView['abbreviated']>[number];

// One character's extra bytes in JSON text: `"` and `\` take a backslash; a control character is `\uXXXX`
// except the five with a short escape.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON escapes
const ESCAPED = /["\\\u0000-\u001f]/g;
const SHORT_ESCAPES = new Set(['"', '\\', '\b', '\f', '\n', '\r', '\t']);

/**
 * Bytes of `value`'s JSON text, counted without building it and given up once over `limit` (then some number over
 * it): a page may hold 100 channels of 400 KB, whose JSON text would be hundreds of MB.
 */
export function jsonBytes(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  if (typeof value === 'string') {
    let size = Buffer.byteLength(value) + 2;
    if (size > limit) return size;
    for (const match of value.matchAll(ESCAPED)) {
      size += SHORT_ESCAPES.has(match[0]) ? 1 : 5;
      if (size > limit) return size;
    }
    return size;
  }
  if (value === null || typeof value !== 'object')
    return value === undefined ? 0 : String(JSON.stringify(value)).length;
  let size = 2;
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value).filter(([, item]) => item !== undefined);
  for (const [i, [name, item]] of entries.entries()) {
    if (i > 0) size += 1;
    if (name !== undefined) size += jsonBytes(name) + 1;
    size += jsonBytes(item, limit - size);
    if (size > limit) return size;
  }
  return size;
}

/** The longest prefix of `text` (in whole code points) whose JSON string text, quotes included, fits in `bytes`. */
function prefixWithin(text: string, bytes: number): string {
  let used = 2;
  let end = 0;
  for (const char of text) {
    used += jsonBytes(char) - 2;
    if (used > bytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** `view` shortened to at most `cap` bytes of JSON: base URL cut, models and settings fields kept while they fit. */
export function abbreviate(view: ChannelView, cap: number): ChannelView {
  const marker: Abbreviable[] = ['baseUrl', 'models', 'settings'];
  const fixed = jsonBytes({ ...view, baseUrl: '', models: [], settings: {}, abbreviated: marker });
  let room = Math.max(0, cap - fixed);
  const abbreviated: Abbreviable[] = [];

  let baseUrl = view.baseUrl;
  if (jsonBytes(baseUrl) - 2 > room / 4 || [...baseUrl].length > SHORT_BASE_URL_CHARS) {
    baseUrl = prefixWithin([...baseUrl].slice(0, SHORT_BASE_URL_CHARS).join(''), Math.floor(room / 4) + 2);
    abbreviated.push('baseUrl');
  }
  room -= jsonBytes(baseUrl) - 2;

  // Half of what is left for the models (the list's main column), the rest for the settings.
  const models: string[] = [];
  let modelRoom = Math.floor(room / 2);
  for (const model of view.models) {
    const cost = jsonBytes(model, modelRoom) + 1;
    if (cost > modelRoom) break;
    models.push(model);
    modelRoom -= cost;
  }
  if (models.length < view.models.length) abbreviated.push('models');
  room -= jsonBytes(models) - 2;

  const settings: Record<string, unknown> = {};
  const source = view.settings as Record<string, unknown>;
  for (const field of SETTINGS_FIELDS) {
    if (source[field] === undefined) continue;
    const cost = jsonBytes(field) + 2 + jsonBytes(source[field], room);
    if (cost > room) continue;
    settings[field] = source[field];
    room -= cost;
  }
  if (Object.keys(settings).length < Object.keys(source).length) abbreviated.push('settings');

  return { ...view, baseUrl, models, settings, abbreviated };
}

/**
 * The page's items within PAGE_BUDGET_BYTES: unchanged when they fit; else every item larger than a common cap is
 * shortened to it, the cap being the largest that keeps the page within budget (small items stay whole).
 */
export function boundPage(views: ChannelView[], budget = PAGE_BUDGET_BYTES): ChannelView[] {
  const sizes = views.map((view) => jsonBytes(view, budget));
  const total = sizes.reduce((sum, size) => sum + size + 1, 0);
  if (total <= budget) return views;
  // The cap that fills the budget: items under it stay whole, the rest share what is left equally.
  const ascending = [...sizes].sort((a, b) => a - b);
  let left = budget - views.length;
  let cap = 0;
  for (let i = 0; i < ascending.length; i++) {
    const share = Math.floor(left / (ascending.length - i));
    const size = ascending[i] as number;
    if (size > share) {
      cap = share;
      break;
    }
    left -= size;
  }
  return views.map((view, i) => ((sizes[i] as number) > cap ? abbreviate(view, cap) : view));
}
