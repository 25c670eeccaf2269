import { describe, expect, it } from 'vitest';
import { detectFamily } from '#functions/import-legacygw/families/detect';
import type { Family } from '#functions/import-legacygw/families/family';
import { FAMILIES } from '#functions/import-legacygw/families/index';
import { settingsColumn } from '#functions/import-legacygw/limits';
import { ProxyApiError } from '#shared/errors';
import { SCHEMA_VERSIONS } from '#test/support/family-schemas';

const REQUIRED = ['id', 'type', 'key', 'status', 'base_url', 'models'];

/** A family that matches when every one of `marks` is a column; nothing else about it matters here. */
function family(kind: Family['kind'], name: string, marks: string[], columns: string[] = []): Family {
  return {
    kind,
    name,
    upstream: { repository: 'example/gateway', commit: '0'.repeat(40) },
    match: (present) => (marks.every((m) => present.has(m)) ? marks : undefined),
    schemaColumns: new Set([...REQUIRED, 'name', 'group', ...marks, ...columns]),
    types: new Map(),
    columns: columns.map((c) => settingsColumn(c)),
    keys: () => ({ keys: [] }),
    settings: () => ({ settings: {}, warnings: [] }),
  };
}

const ALPHA = family('oneapi', 'Alpha', ['alpha_only'], ['alpha_only', 'config']);
const BETA = family('newapi', 'Beta', ['beta_only']);

function refusal(columns: readonly string[], families = [ALPHA, BETA]): ProxyApiError {
  try {
    detectFamily(new Set(columns), families, 'gw');
  } catch (e) {
    if (e instanceof ProxyApiError) return e;
    throw e;
  }
  throw new Error('expected the table to be refused');
}

describe('detectFamily (docs/channel-import.md, "Families")', () => {
  it('picks the one family that matches and selects the core and family columns the table has', () => {
    const detected = detectFamily(new Set([...REQUIRED, 'name', 'group', 'alpha_only', 'config']), [ALPHA, BETA], 'gw');

    expect(detected.family).toBe(ALPHA);
    expect(detected.evidence).toEqual(['alpha_only']);
    expect(detected.select.map((c) => c.name)).toEqual([...REQUIRED, 'name', 'group', 'alpha_only', 'config']);
    expect(detected.foreign).toEqual([]);
  });

  it("refuses a fork's table naming only the columns no version of its family has, and how to choose the family", () => {
    const error = refusal([...REQUIRED, 'name', 'group', 'alpha_only', 'config', 'exchange_rate', 'limits']);

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/looks like Alpha's, but no version of Alpha has column\(s\) exchange_rate, limits:/);
    expect(error.message).toContain('"family": "oneapi"');
    expect(error.message).not.toMatch(/\bmodels\b|alpha_only|config/);
  });

  it('reads a fork as the family the operator chose, selecting its foreign columns bounded like settings', () => {
    const detected = detectFamily(
      new Set([...REQUIRED, 'alpha_only', 'limits', 'beta_only']),
      [ALPHA, BETA],
      'gw',
      'oneapi',
    );

    expect(detected.family).toBe(ALPHA);
    expect(detected.foreign).toEqual(['beta_only', 'limits']);
    expect(detected.select.slice(-2)).toEqual([
      { name: 'beta_only', kind: 'text', maxBytes: 64 * 1024 },
      { name: 'limits', kind: 'text', maxBytes: 64 * 1024 },
    ]);
  });

  it('refuses a table that matches no family, naming its columns and never guessing', () => {
    const error = refusal([...REQUIRED, 'gamma_only']);

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/matches no gateway this import knows \(Alpha, Beta\)/);
    expect(error.message).toContain('gamma_only');
  });

  it('refuses a table that matches two families, naming each with the columns that decided it', () => {
    const error = refusal([...REQUIRED, 'alpha_only', 'beta_only']);

    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(/more than one gateway.*Alpha \(alpha_only\); Beta \(beta_only\)/);
  });

  it('refuses a database without a channels table', () => {
    expect(refusal([]).message).toMatch(/"gw" has no channels table/);
  });

  it('refuses a table that lacks a required column, naming it', () => {
    expect(refusal(REQUIRED.filter((c) => c !== 'models').concat('alpha_only')).message).toMatch(
      /lacks required column\(s\): models/,
    );
  });
});

describe('the families\' schema columns (docs/channel-import.md, "Forks")', () => {
  it.each(SCHEMA_VERSIONS.map((v) => [v.source, v] as const))(
    'detects %s as its family with no foreign column',
    (_, version) => {
      const detected = detectFamily(new Set(version.columns), FAMILIES, 'gw');

      expect(detected.family.kind).toBe(version.readAs);
      expect(detected.foreign).toEqual([]);
    },
  );
});
