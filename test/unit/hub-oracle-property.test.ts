import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DONEHUB } from '#functions/import-legacygw/families/donehub';
import type { RowValues } from '#functions/import-legacygw/families/family';
import { ONEHUB } from '#functions/import-legacygw/families/onehub';
import { mapRows } from '#test/support/family-mapping';
import { normalised, type Routing, routingOf, target } from '#test/support/family-routing';

/*
 * The oracle over generated tables: for any One Hub (or Done Hub) table, the imported channels route every model to
 * the same (provider, base URL, key) set as the gateway. The gateway side is a small model of One Hub written from its
 * source (model/balancer.go Load; providers/base/common.go GetBaseURL; each provider's BaseURL and key reading),
 * independent of the family module; the rows go through the family with the tests' minimal mapping
 * (test/support/family-mapping.ts).
 */

// One Hub at 387f8bf1: the provider each generated type stands for and its own default base URL.
const GATEWAY: Readonly<Record<number, { provider: string; base: string }>> = {
  1: { provider: 'openai', base: 'https://api.openai.com' },
  8: { provider: 'custom', base: '' },
  25: { provider: 'gemini', base: 'https://generativelanguage.googleapis.com' },
  28: { provider: 'deepseek', base: 'https://api.deepseek.com' },
  29: { provider: 'moonshot', base: 'https://api.moonshot.cn' },
  31: { provider: 'groq', base: 'https://api.groq.com/openai' },
  32: { provider: 'aws', base: '' },
  35: { provider: 'cloudflare', base: 'https://api.cloudflare.com' },
  39: { provider: 'ollama', base: 'https://ollama.com' },
  56: { provider: 'xai', base: 'https://api.x.ai' },
};

interface GeneratedRow {
  readonly type: number;
  readonly keyIndex: number;
  readonly status: number;
  readonly deleted: boolean;
  readonly baseUrl: string;
  readonly group: string;
  readonly models: readonly string[];
  readonly name: string;
}

const rowArb: fc.Arbitrary<GeneratedRow> = fc.record({
  type: fc.constantFrom(...Object.keys(GATEWAY).map(Number)),
  keyIndex: fc.integer({ min: 0, max: 3 }),
  status: fc.constantFrom(1, 1, 1, 2, 3),
  deleted: fc.constantFrom(false, false, false, true),
  baseUrl: fc.constantFrom('', '', 'https://gw.example.com', 'https://gw.example.com/', ' https://gw2.example.com '),
  // An empty group serves no group in One Hub; the import leaves it to the routes report (docs/channel-import.md).
  group: fc.constantFrom('default', 'default,vip', 'vip', ' vip , default '),
  models: fc.subarray(['gpt-4o', 'gpt-4o-mini', 'm-3', 'm-4'], { minLength: 1 }),
  name: fc.constantFrom('a', 'b', ''),
});

// The key column as One Hub stores it, and the key the gateway uses, in the product's format.
function keyOf(row: GeneratedRow): { column: string; used: string } {
  const k = row.keyIndex;
  if (row.type === 32)
    return { column: `us-east-${k}|AKIAGEN${k}|genSecret${k}`, used: `AKIAGEN${k}|genSecret${k}|us-east-${k}` };
  if (row.type === 35) return { column: `gen-account-${k}|gen-token-${k}`, used: `gen-token-${k}` };
  return { column: `sk-gen-${k}`, used: `sk-gen-${k}` };
}

function values(row: GeneratedRow, id: number): RowValues {
  return {
    id: String(id),
    type: String(row.type),
    key: keyOf(row).column,
    status: String(row.status),
    base_url: row.baseUrl,
    models: row.models.join(','),
    name: row.name,
    group: row.group,
    deleted_at: row.deleted ? '2025-01-01 00:00:00' : null,
    weight: '1',
    priority: '0',
    plugin: '{}',
    disabled_stream: '[]',
  };
}

function gatewayRouting(rows: readonly GeneratedRow[]): Routing {
  const byModel: Record<string, string[]> = {};
  for (const row of rows) {
    if (row.status !== 1 || row.deleted) continue;
    const { provider, base } = GATEWAY[row.type]!;
    const baseUrl = row.baseUrl.trim().replace(/\/$/, '') || base;
    for (const model of row.models) (byModel[model] ??= []).push(target(provider, baseUrl, keyOf(row).used));
  }
  return normalised(byModel);
}

function importedRouting(rows: readonly GeneratedRow[], family: typeof ONEHUB): Routing {
  return routingOf(
    mapRows(
      family,
      rows.map((row, index) => values(row, index + 1)),
    ).channels,
  );
}

describe('generated hub tables', () => {
  for (const family of [ONEHUB, DONEHUB]) {
    it(`imports through ${family.name} exactly the routes the gateway serves`, () => {
      fc.assert(
        fc.property(fc.array(rowArb, { maxLength: 25 }), (rows) => {
          expect(importedRouting(rows, family)).toEqual(gatewayRouting(rows));
        }),
        { numRuns: 200 },
      );
    });
  }
});
