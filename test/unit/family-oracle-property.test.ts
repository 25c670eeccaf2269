import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RowValues } from '#functions/import-legacygw/families/family';
import { NEWAPI } from '#functions/import-legacygw/families/newapi';
import { ONEAPI } from '#functions/import-legacygw/families/oneapi';
import { mapRows } from '#test/support/family-mapping';
import { normalised, type Routing, routingOf, target } from '#test/support/family-routing';

/*
 * The family oracle on generated tables: whatever rows a table holds, the channels read through the family route
 * exactly what the gateway routes. The gateway's side is a model of its Go source written here, independent of the
 * families' code (and of providers.ts): model/ability.go (an enabled row serves each of its models), the default
 * base URL of a few types, and the key rule (One API: one key per line, as its editor creates them; New API: the
 * whole key, or in a multi-key row each line whose status-list entry is absent or 1).
 */

// A few types of each gateway with the provider and default base URL read in its constant tables.
const ONEAPI_TYPES: Readonly<Record<number, readonly [string, string]>> = {
  1: ['openai', 'https://api.openai.com'],
  2: ['api2d', 'https://oa.api2d.net'],
  14: ['anthropic', 'https://api.anthropic.com'],
  36: ['deepseek', 'https://api.deepseek.com'],
};
const NEWAPI_TYPES: Readonly<Record<number, readonly [string, string]>> = {
  1: ['openai', 'https://api.openai.com'],
  4: ['ollama', 'http://localhost:11434'],
  14: ['anthropic', 'https://api.anthropic.com'],
  43: ['deepseek', 'https://api.deepseek.com'],
};

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'deepseek-chat', 'llama3.1'] as const;
const token = fc.stringMatching(/^[a-z0-9]{1,6}$/).map((t) => `sk-fixture-${t}`);

interface GeneratedRow {
  readonly id: number;
  readonly type: number;
  readonly status: number;
  readonly keys: readonly string[];
  /** Positions (in `keys`) New API marks with a status other than 1; multi-key rows only. */
  readonly disabledAt: readonly number[];
  readonly multi: boolean;
  readonly models: readonly string[];
  readonly padded: boolean;
  readonly baseUrl: string;
}

function rows(types: readonly number[]): fc.Arbitrary<GeneratedRow[]> {
  const row = fc.record({
    type: fc.constantFrom(...types),
    status: fc.constantFrom(1, 1, 1, 2, 3),
    keys: fc.array(token, { minLength: 1, maxLength: 3 }),
    disabledAt: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
    multi: fc.boolean(),
    models: fc.subarray([...MODELS], { minLength: 1 }),
    padded: fc.boolean(),
    baseUrl: fc.constantFrom('', 'https://gw.example.com', 'https://gw.example.com/', 'https://other.example.com'),
  });
  return fc.array(row, { minLength: 1, maxLength: 12 }).map((list) => list.map((r, i) => ({ ...r, id: i + 1 })));
}

function modelsText(row: GeneratedRow): string {
  return row.models.map((m) => (row.padded ? ` ${m} ` : m)).join(',');
}

function oneApiRow(row: GeneratedRow): RowValues {
  return {
    id: String(row.id),
    type: String(row.type),
    key: row.keys.join(row.padded ? '\r\n' : '\n'),
    status: String(row.status),
    base_url: row.baseUrl,
    models: modelsText(row),
    group: 'default',
    config: '',
  };
}

function newApiRow(row: GeneratedRow): RowValues {
  const statusList = Object.fromEntries(row.disabledAt.map((i) => [String(i), 3]));
  return {
    id: String(row.id),
    type: String(row.type),
    key: row.keys.join('\n'),
    status: String(row.status),
    base_url: row.baseUrl,
    models: modelsText(row),
    group: 'default',
    test_model: null,
    channel_info: JSON.stringify({ is_multi_key: row.multi, multi_key_status_list: statusList }),
  };
}

/** The gateway's routing, from the model of its source described above. */
function gatewayRouting(
  generated: readonly GeneratedRow[],
  types: Readonly<Record<number, readonly [string, string]>>,
  keysOf: (row: GeneratedRow) => readonly string[],
): Routing {
  const routing: Record<string, string[]> = {};
  for (const row of generated) {
    if (row.status !== 1) continue;
    const [provider, fallback] = types[row.type]!;
    const baseUrl = row.baseUrl.replace(/\/$/, '') || fallback;
    const keys = keysOf(row);
    // A row whose every key New API no longer uses serves nothing.
    if (keys.length === 0) continue;
    for (const model of row.models) {
      routing[model] = [...(routing[model] ?? []), ...keys.map((key) => target(provider, baseUrl, key))];
    }
  }
  return normalised(routing);
}

describe('the family oracle on generated tables', () => {
  it('One API: the channels read through the family route what One API routes', () => {
    fc.assert(
      fc.property(rows(Object.keys(ONEAPI_TYPES).map(Number)), (generated) => {
        const expected = gatewayRouting(generated, ONEAPI_TYPES, (row) => row.keys);

        expect(routingOf(mapRows(ONEAPI, generated.map(oneApiRow)).channels)).toEqual(expected);
      }),
    );
  });

  it('New API: the channels read through the family route what New API routes, per-key status included', () => {
    fc.assert(
      fc.property(rows(Object.keys(NEWAPI_TYPES).map(Number)), (generated) => {
        const expected = gatewayRouting(generated, NEWAPI_TYPES, (row) =>
          row.multi ? row.keys.filter((_, i) => !row.disabledAt.includes(i)) : [row.keys.join('\n')],
        );

        expect(routingOf(mapRows(NEWAPI, generated.map(newApiRow)).channels)).toEqual(expected);
      }),
    );
  });
});
