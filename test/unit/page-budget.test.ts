import { describe, expect, it } from 'vitest';
import { abbreviate, boundPage, jsonBytes, PAGE_BUDGET_BYTES } from '#functions/list-channels/page-budget';
import { type ChannelView, toChannelView } from '#shared/channel-view';
import { proxySuccess } from '#shared/envelopes/proxy';
import { reviewChannel } from '#test/integration/channel-review.helpers';

const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
const KIB = 1024;
/** Text that costs the most once escaped twice: a control character is 1 byte stored, 6 in the body, 7 in Lambda's. */
const costly = (count: number, seed: string) => `${seed}${'\u0001'.repeat(Math.max(0, count - seed.length))}`;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** A channel view at every limit of the import, in the costliest characters. */
function largest(n: number): ChannelView {
  const field = (tag: string) => costly(64 * KIB - 64, `${tag}-${n}-`);
  return toChannelView({
    ...reviewChannel(n),
    name: costly(64, `c${n}-`),
    baseUrl: costly(2 * KIB, `https://h${n}.example/`),
    models: Array.from({ length: 1_000 }, (_, i) => costly(32, `m${i}-`)),
    settings: {
      modelMapping: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [costly(60, `a${i}-`), costly(60, 'b')])),
      systemPrompt: field('prompt'),
      headerOverride: { 'X-Big': field('header') },
      paramOverride: { big: field('param') },
      extra: { big: field('extra') },
      statusCodeMapping: { '429': '503' },
      priority: 5,
    },
  });
}

describe('jsonBytes', () => {
  it("counts a value's JSON text exactly, escapes and multi-byte characters included", () => {
    const values = [
      'plain',
      'quote " backslash \\ tab \t nul \u0000 bell \u0007 line \u2028 emoji \u{1F511} é',
      { a: [1, -2.5, true, null, 'x'], 'k"ey': { nested: [] }, skipped: undefined },
      [],
      {},
      2 ** 64,
    ];

    expect(values.map((v) => jsonBytes(v))).toEqual(values.map(bytes));
  });

  it('answers some count over its limit, at most the exact one, once a value is over it', () => {
    const value = { a: 'x'.repeat(50), b: '\u0001'.repeat(1_000) };

    const counted = jsonBytes(value, 100);

    expect(counted).toBeGreaterThan(100);
    expect(counted).toBeLessThan(bytes(value));
  });
});

describe('boundPage', () => {
  it('keeps 100 channels of the costliest maximum size under 6 MB as Lambda counts the response', () => {
    const views = Array.from({ length: 100 }, (_, i) => largest(i + 1));

    const page = boundPage(views);

    expect(jsonBytes(views)).toBeGreaterThan(10 * LAMBDA_RESPONSE_LIMIT);
    expect(bytes(page)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
    expect(bytes(proxySuccess({ channels: page, total: 100 }))).toBeLessThan(LAMBDA_RESPONSE_LIMIT);
    expect(page.every((view) => view.abbreviated?.join() === 'baseUrl,models,settings')).toBe(true);
    // What fits is kept: the small settings and the first models.
    expect(page[0]?.settings).toMatchObject({ statusCodeMapping: { '429': '503' }, priority: 5 });
    expect(page[0]?.models.length).toBeGreaterThan(10);
    expect(views[0]?.models.slice(0, page[0]?.models.length)).toEqual(page[0]?.models);
  });

  it('leaves the small channels of a large page whole and shortens only the large ones', () => {
    const small = Array.from({ length: 60 }, (_, i) => toChannelView(reviewChannel(i + 1)));
    const large = Array.from({ length: 40 }, (_, i) => largest(i + 61));

    const page = boundPage([...small, ...large]);

    expect(page.slice(0, 60)).toEqual(small);
    expect(page.slice(60).every((view) => view.abbreviated !== undefined)).toBe(true);
    expect(bytes(page)).toBeLessThanOrEqual(PAGE_BUDGET_BYTES);
  });

  it('answers a page within budget unchanged, without a marker', () => {
    const views = Array.from({ length: 100 }, (_, i) => toChannelView(reviewChannel(i + 1)));

    expect(boundPage(views)).toBe(views);
  });

  it('cuts a base URL stored before the limits to 2,048 characters at most, never inside a character', () => {
    const view = toChannelView({ ...reviewChannel(1), baseUrl: `https://old.example/${'\u{1F511}'.repeat(100_000)}` });

    const short = abbreviate(view, 30_000);

    expect([...short.baseUrl].length).toBeLessThanOrEqual(2_048);
    expect(view.baseUrl.startsWith(short.baseUrl)).toBe(true);
    expect(short.abbreviated).toEqual(['baseUrl']);
    expect(bytes(short)).toBeLessThanOrEqual(30_000);
  });
});
