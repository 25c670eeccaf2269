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

  it.each([
    { table: 'a hub column beside New API columns', extra: ['proxy'], of: 'QuantumNous/new-api@0102ffab' },
    { table: 'a column no gateway has beside One API columns', extra: ['tenant_id'], of: 'one-api@8df4a267' },
    { table: 'tag beside One API columns (neither New API nor a hub)', extra: ['tag'], of: 'one-api@8df4a267' },
    { table: 'test_model beside One API columns', extra: ['test_model'], of: 'one-api@8df4a267' },
  ])('claims no family for $table', ({ extra, of }) => {
    const version = SCHEMA_VERSIONS.find((v) => v.source.includes(of))!;
    const columns = new Set([...version.columns, ...extra]);

    expect(FAMILIES.filter((family) => family.match(columns) !== undefined)).toEqual([]);
  });

  it("names One API's own columns, or every column of a v0.5 table, and New API's own columns as evidence", () => {
    const [oneApi, newApi] = [FAMILIES.find((f) => f.kind === 'oneapi')!, FAMILIES.find((f) => f.kind === 'newapi')!];
    const newest = SCHEMA_VERSIONS.find((v) => v.source.includes('one-api@8df4a267'))!;
    const v004 = SCHEMA_VERSIONS.find((v) => v.source.includes('new-api@d6ce413c') && v.note === undefined)!;

    expect(oneApi.match(new Set(newest.columns))).toEqual(['config', 'system_prompt']);
    expect(oneApi.match(new Set(['id', 'type', 'key', 'status', 'base_url', 'models']))).toEqual([
      'base_url',
      'id',
      'key',
      'models',
      'status',
      'type',
    ]);
    expect(newApi.match(new Set(v004.columns))).toEqual(['auto_ban', 'open_ai_organization']);
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
