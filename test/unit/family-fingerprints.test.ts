import { describe, expect, it } from 'vitest';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { SCHEMA_VERSIONS } from '#test/support/family-schemas';

/*
 * Every schema version of every family (test/support/family-schemas.ts) is matched by exactly the family it is read
 * as, and by no other. A family not yet in FAMILIES must simply not be matched by the others.
 */
describe('family fingerprints', () => {
  const known = new Set(FAMILIES.map((f) => f.kind));

  for (const version of SCHEMA_VERSIONS) {
    it(`reads ${version.source} (${version.family}) as ${version.readAs} only`, () => {
      const columns = new Set(version.columns);

      const matched = FAMILIES.filter((family) => family.match(columns) !== undefined).map((f) => f.kind);

      expect(matched).toEqual(known.has(version.readAs) ? [version.readAs] : []);
    });
  }

  it('covers the oldest and the newest version of each family it knows', () => {
    const families = new Set(SCHEMA_VERSIONS.map((v) => v.family));

    expect([...known].filter((kind) => !families.has(kind))).toEqual([]);
  });

  it('names the deciding columns as evidence, and only columns the table has', () => {
    for (const version of SCHEMA_VERSIONS) {
      const columns = new Set(version.columns);
      for (const family of FAMILIES) {
        const evidence = family.match(columns);
        if (evidence === undefined) continue;
        expect(evidence.length).toBeGreaterThan(0);
        expect(evidence.filter((c) => !columns.has(c))).toEqual([]);
      }
    }
  });

  it('refuses a hub table that also has a New API column: neither One Hub nor Done Hub', () => {
    const hub = SCHEMA_VERSIONS.find((v) => v.family === 'donehub' && v.readAs === 'donehub')!;
    for (const extra of ['setting', 'channel_info', 'auto_ban', 'status_code_mapping']) {
      const columns = new Set([...hub.columns, extra]);

      expect(FAMILIES.filter((f) => f.kind === 'onehub' || f.kind === 'donehub').map((f) => f.match(columns))).toEqual([
        undefined,
        undefined,
      ]);
    }
  });
});
