import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '#functions/import-legacygw/canonical-json';
import { sameSettings } from '#functions/import-legacygw/mapping';
import type { ChannelSettings } from '#shared/schemas/channel-settings';

// The import counts a channel `updated` when its settings differ from the stored ones (docs/channel-import.md):
// equal means equal as JSON, whatever the order of the keys.
const s = (value: unknown) => value as ChannelSettings;

describe('sameSettings', () => {
  it('ignores key order at every depth, and treats absent, undefined and no settings alike', () => {
    expect(
      sameSettings(
        s({ a: 1, b: { x: [1, { p: 'q', r: 's' }], y: 'z' } }),
        s({ b: { y: 'z', x: [1, { r: 's', p: 'q' }] }, a: 1 }),
      ),
    ).toBe(true);
    expect(sameSettings(undefined, s({}))).toBe(true);
    expect(sameSettings(s({ priority: undefined }), undefined)).toBe(true);
    expect(sameSettings(s({ tag: 't', priority: undefined }), s({ tag: 't' }))).toBe(true);
  });

  it('tells apart values, types, array order and extra keys', () => {
    expect(sameSettings(s({ priority: 1 }), s({ priority: '1' }))).toBe(false);
    expect(sameSettings(s({ groups: ['a', 'b'] }), s({ groups: ['b', 'a'] }))).toBe(false);
    expect(sameSettings(s({ tag: 't' }), s({ tag: 't', weight: 0 }))).toBe(false);
    expect(sameSettings(s({ extra: { a: null } }), s({ extra: {} }))).toBe(false);
    expect(sameSettings(s({ extra: { a: [] } }), s({ extra: { a: {} } }))).toBe(false);
  });

  it('agrees with comparing canonical JSON texts, for any JSON values', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const shuffled = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(shuffled);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, shuffled(v)]),
        );
      }
      return value;
    };
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json), fc.dictionary(fc.string(), json), (a, b) => {
        expect(sameSettings(s(a), s(b))).toBe(canonicalJson(a) === canonicalJson(b));
        expect(sameSettings(s(a), s(shuffled(a)))).toBe(true);
      }),
    );
  });
});

describe('canonicalJson', () => {
  it('is JSON text of the same value, the same whatever the order of the keys, with the keys of every object sorted', () => {
    const reversed = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reversed);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([k, v]) => [k, reversed(v)]),
        );
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reversed(value))).toBe(canonicalJson(value));
      }),
    );
    expect(canonicalJson({ b: undefined, a: [undefined, 1], c: { z: 1, y: 2 } })).toBe(
      '{"a":[null,1],"c":{"y":2,"z":1}}',
    );
  });
});
