import type { FamilyKind } from '#functions/import-legacygw/families/family';
import type { Routing } from '#test/support/family-routing';
import * as donehub from './donehub-fixture.expected.ts';
import * as legacygw from './legacygw-fixture.expected.ts';
import * as newest from './newapi-newest-fixture.expected.ts';
import * as upgraded from './newapi-upgraded-fixture.expected.ts';
import * as v0 from './newapi-v0-fixture.expected.ts';
import * as oneapi from './oneapi-fixture.expected.ts';
import * as v05 from './oneapi-v05-fixture.expected.ts';
import * as onehub from './onehub-fixture.expected.ts';

/*
 * Every family fixture with what its gateway routes from it, worked out by hand from the gateway's Go source: the
 * oracle of the family tests (family-oracle.test.ts, without the core) and of the imports (family-import.test.ts).
 */

/** A fixture and what its gateway routes from it (test/integration/<fixture>.expected.ts). */
export interface Oracle {
  readonly fixture: string;
  readonly family: FamilyKind;
  readonly routing: Routing;
  readonly skips: Readonly<Record<number, string>>;
  readonly lost: readonly string[];
  readonly settings: Readonly<Record<number, unknown>>;
  readonly warnings: Readonly<Record<number, readonly string[]>>;
  readonly disabledKeys?: Readonly<Record<number, readonly string[]>>;
}

export const ORACLES: readonly Oracle[] = [
  {
    fixture: 'oneapi-channels',
    family: 'oneapi',
    routing: oneapi.ONEAPI_EXPECTED_ROUTING,
    skips: oneapi.ONEAPI_EXPECTED_SKIPS,
    lost: oneapi.ONEAPI_LOST_MODELS,
    settings: oneapi.ONEAPI_EXPECTED_SETTINGS,
    warnings: oneapi.ONEAPI_EXPECTED_WARNINGS,
  },
  {
    fixture: 'legacygw-channels',
    family: 'oneapi',
    routing: legacygw.LEGACYGW_EXPECTED_ROUTING,
    skips: legacygw.LEGACYGW_EXPECTED_SKIPS,
    lost: legacygw.LEGACYGW_LOST_MODELS,
    settings: legacygw.LEGACYGW_EXPECTED_SETTINGS,
    warnings: legacygw.LEGACYGW_EXPECTED_WARNINGS,
  },
  {
    fixture: 'legacygw-channels-v05',
    family: 'oneapi',
    routing: v05.ONEAPI_V05_EXPECTED_ROUTING,
    skips: v05.ONEAPI_V05_EXPECTED_SKIPS,
    lost: v05.ONEAPI_V05_LOST_MODELS,
    settings: v05.ONEAPI_V05_EXPECTED_SETTINGS,
    warnings: v05.ONEAPI_V05_EXPECTED_WARNINGS,
  },
  {
    fixture: 'newapi-v0-channels',
    family: 'newapi',
    routing: v0.NEWAPI_V0_EXPECTED_ROUTING,
    skips: v0.NEWAPI_V0_EXPECTED_SKIPS,
    lost: v0.NEWAPI_V0_LOST_MODELS,
    settings: v0.NEWAPI_V0_EXPECTED_SETTINGS,
    warnings: v0.NEWAPI_V0_EXPECTED_WARNINGS,
  },
  {
    fixture: 'newapi-newest-channels',
    family: 'newapi',
    routing: newest.NEWAPI_NEWEST_EXPECTED_ROUTING,
    skips: newest.NEWAPI_NEWEST_EXPECTED_SKIPS,
    lost: newest.NEWAPI_NEWEST_LOST_MODELS,
    settings: newest.NEWAPI_NEWEST_EXPECTED_SETTINGS,
    warnings: newest.NEWAPI_NEWEST_EXPECTED_WARNINGS,
    disabledKeys: newest.NEWAPI_NEWEST_DISABLED_KEYS,
  },
  {
    fixture: 'newapi-upgraded-channels',
    family: 'newapi',
    routing: upgraded.NEWAPI_UPGRADED_EXPECTED_ROUTING,
    skips: upgraded.NEWAPI_UPGRADED_EXPECTED_SKIPS,
    lost: upgraded.NEWAPI_UPGRADED_LOST_MODELS,
    settings: upgraded.NEWAPI_UPGRADED_EXPECTED_SETTINGS,
    warnings: upgraded.NEWAPI_UPGRADED_EXPECTED_WARNINGS,
  },
  {
    fixture: 'onehub-channels',
    family: 'onehub',
    routing: onehub.ONEHUB_EXPECTED_ROUTING,
    skips: onehub.ONEHUB_EXPECTED_SKIPS,
    lost: onehub.ONEHUB_LOST_MODELS,
    settings: onehub.ONEHUB_EXPECTED_SETTINGS,
    warnings: onehub.ONEHUB_EXPECTED_WARNINGS,
  },
  {
    fixture: 'donehub-channels',
    family: 'donehub',
    routing: donehub.DONEHUB_EXPECTED_ROUTING,
    skips: donehub.DONEHUB_EXPECTED_SKIPS,
    lost: donehub.DONEHUB_LOST_MODELS,
    settings: donehub.DONEHUB_EXPECTED_SETTINGS,
    warnings: donehub.DONEHUB_EXPECTED_WARNINGS,
  },
];
