import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unkeyedChannelId } from '#functions/import-legacygw/identity';
import { LEGACY_PROVIDERS } from '#functions/import-legacygw/providers';
import { testChannelId } from '#test/support/channel-ids';
import {
  testMapper as createRowMapper,
  familyOf,
  type TestChannel as MappedChannel,
  type TestOutcome as RowOutcome,
} from '#test/support/legacy-mapper';

const legacyProvider = (type: number) => familyOf('oneapi').types.get(type);

/** A row of One API's table as these tests write it (absent optional columns left out). */
type LegacyRow = {
  id: number;
  type: number | null;
  key: string | null;
  status: number | null;
  base_url: string | null;
  models: string | null;
  name?: string | null;
  model_mapping?: string | null;
  config?: string | null;
  other?: string | null;
};

/** A row with every column filled as the legacy gateway's UI leaves an unused one. */
function row(fields: Partial<LegacyRow> & { id: number }): LegacyRow {
  return {
    type: 1,
    key: 'sk-test-key',
    status: 1,
    base_url: '',
    models: 'gpt-4o',
    name: 'channel',
    model_mapping: '',
    config: '',
    other: '',
    ...fields,
  };
}

function mapOne(fields: Partial<LegacyRow> & { id: number }): RowOutcome {
  return createRowMapper().map(row(fields));
}

function imported(outcome: RowOutcome): { channels: MappedChannel[]; warnings: string[] } {
  if (outcome.outcome !== 'imported')
    throw new Error(`expected row ${outcome.legacyId} imported, got: ${outcome.reason}`);
  return outcome;
}

// The fixtures' rows are mapped, field by field and through their family, in test/integration/family-oracle.test.ts
// and test/integration/import-legacygw.test.ts; these tests pin the core's own rules.

describe('provider table (docs/channel-import.md)', () => {
  it('lists types 1 to 51 and nothing else', () => {
    expect([...LEGACY_PROVIDERS.keys()]).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(new Set([...LEGACY_PROVIDERS.values()].map((p) => p.provider)).size).toBe(51);
  });

  it('has no default base URL with a trailing slash', () => {
    for (const { defaultBaseUrl } of LEGACY_PROVIDERS.values()) expect(defaultBaseUrl ?? '').not.toMatch(/\/$/);
  });

  it.each([
    [3, 'azure', null],
    [20, 'openrouter', 'https://openrouter.ai/api'],
    [29, 'groq', 'https://api.groq.com/openai'],
    [41, 'novita', 'https://api.novita.ai/v3/openai'],
    [51, 'gemini-openai', 'https://generativelanguage.googleapis.com/v1beta/openai'],
  ])('maps type %d to %s with default %s', (type, provider, defaultBaseUrl) => {
    expect(legacyProvider(type)).toEqual({ provider, defaultBaseUrl });
  });
});

describe('createRowMapper: provider', () => {
  it.each([
    [null, 'unknown legacy channel type NULL'],
    [0, 'unknown legacy channel type 0'],
    [52, 'unknown legacy channel type 52'],
    [999, 'unknown legacy channel type 999'],
    [-1, 'unknown legacy channel type -1'],
    [1.5, 'unknown legacy channel type 1.5'],
  ])('skips type %s without falling back to another provider', (type, reason) => {
    expect(mapOne({ id: 7, type })).toEqual({ legacyId: 7, outcome: 'skipped', reason, warnings: [] });
  });
});

describe('createRowMapper: keys', () => {
  it.each([null, '', '   ', '\n', '\r\n \r\n\t'])('skips a row whose key column is %j', (key) => {
    expect(mapOne({ id: 3, key })).toEqual({ legacyId: 3, outcome: 'skipped', reason: 'no API key', warnings: [] });
  });

  it('trims keys, drops empty lines and de-duplicates in order', () => {
    const outcome = imported(mapOne({ id: 1, key: ' b \r\na\n\nb\n a\r\nc' }));

    expect(outcome.channels.map((c) => c.key)).toEqual(['b', 'a', 'c']);
  });

  it('does not split on a lone \\r', () => {
    expect(imported(mapOne({ id: 1, key: 'a\rb' })).channels.map((c) => c.key)).toEqual(['a\rb']);
  });
});

describe('createRowMapper: base URL', () => {
  it.each([
    ['https://gw-user:s3cret-pw@proxy.example.com/v1', 'https://proxy.example.com/v1'],
    ['http://only-user@10.0.0.9:8080', 'http://10.0.0.9:8080'],
    ['https://a:b@c@proxy.example.com/', 'https://proxy.example.com'],
  ])('never stores the user information of %s: it keeps %s and warns', (baseUrl, stored) => {
    const outcome = imported(createRowMapper().map(row({ id: 1, base_url: baseUrl })));

    expect(outcome.channels[0]?.baseUrl).toBe(stored);
    expect(outcome.warnings).toEqual(['credentials removed from base URL']);
    expect(JSON.stringify(outcome)).not.toMatch(/s3cret-pw|gw-user|only-user/);
  });

  it.each([
    [1, '  https://proxy.example.com/  ', 'https://proxy.example.com'],
    [1, 'https://proxy.example.com//', 'https://proxy.example.com/'],
    [1, 'https://proxy.example.com/v1/', 'https://proxy.example.com/v1'],
    [1, '', 'https://api.openai.com'],
    [1, null, 'https://api.openai.com'],
    [1, ' \t', 'https://api.openai.com'],
    [1, '/', 'https://api.openai.com'],
    [29, '', 'https://api.groq.com/openai'],
  ])('maps type %d base_url %j to %j with no warning', (type, base_url, baseUrl) => {
    const outcome = imported(mapOne({ id: 1, type, base_url }));

    expect(outcome.channels[0]?.baseUrl).toBe(baseUrl);
    expect(outcome.warnings).toEqual([]);
  });

  it('stores an empty base URL when the type has no default, and warns', () => {
    const outcome = imported(mapOne({ id: 1, type: 8, base_url: ' ' }));

    expect(outcome.channels[0]?.baseUrl).toBe('');
    expect(outcome.warnings).toEqual(['no base URL']);
  });
});

describe('createRowMapper: models', () => {
  it('trims, drops empties and de-duplicates case-sensitively in first-seen order', () => {
    const outcome = imported(mapOne({ id: 1, models: ' b,a , ,B,b,,a,c ' }));

    expect(outcome.channels[0]?.models).toEqual(['b', 'a', 'B', 'c']);
    expect(outcome.warnings).toEqual([]);
  });

  it.each([null, '', ' , ,'])('imports models %j as an empty list with a warning', (models) => {
    const outcome = imported(mapOne({ id: 1, models }));

    expect(outcome.channels[0]?.models).toEqual([]);
    expect(outcome.warnings).toEqual(['no models']);
  });

  it('gives each channel of a row its own models array', () => {
    const [first, second] = imported(mapOne({ id: 1, key: 'a\nb', models: 'm' })).channels;

    first?.models.push('changed');

    expect(second?.models).toEqual(['m']);
  });
});

describe('createRowMapper: status', () => {
  it.each([
    [1, 'enabled'],
    [2, 'disabled'],
    [3, 'disabled'],
    [0, 'disabled'],
    [null, 'disabled'],
    [-1, 'disabled'],
  ])('maps legacy status %s to %s', (status, expected) => {
    expect(imported(mapOne({ id: 1, status })).channels[0]?.status).toBe(expected);
  });
});

describe('createRowMapper: name', () => {
  it.each([null, undefined, '', '   '])('names a channel legacy-<id> when the name is %j', (name) => {
    expect(imported(mapOne({ id: 42, name })).channels[0]?.name).toBe('legacy-42');
  });

  it('trims the name', () => {
    expect(imported(mapOne({ id: 1, name: '  main  ' })).channels[0]?.name).toBe('main');
  });

  it('keeps a name of exactly 64 characters', () => {
    const name = 'n'.repeat(64);

    const outcome = imported(mapOne({ id: 1, name }));

    expect(outcome.channels[0]?.name).toBe(name);
    expect(outcome.warnings).toEqual([]);
  });

  it('truncates a longer name to 64 characters and warns', () => {
    const outcome = imported(mapOne({ id: 1, name: `${'n'.repeat(64)}overflow` }));

    expect(outcome.channels[0]?.name).toBe('n'.repeat(64));
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it.each([
    ['as a source hands it over (cut to 65 code points)', `${'n'.repeat(64)} `],
    ['whole', `${'n'.repeat(64)} and more`],
  ])('warns "name truncated" when the cut falls on a space, the name %s', (_, name) => {
    const outcome = imported(mapOne({ id: 1, name }));

    expect(outcome.channels[0]?.name).toBe('n'.repeat(64));
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('counts code points, so an emoji is never cut in half', () => {
    const outcome = imported(mapOne({ id: 1, name: '😀'.repeat(70) }));

    expect(outcome.channels[0]?.name).toBe('😀'.repeat(64));
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('keeps 64 code points that are longer than 64 UTF-16 units', () => {
    const outcome = imported(mapOne({ id: 1, name: '😀'.repeat(64) }));

    expect(outcome.channels[0]?.name).toBe('😀'.repeat(64));
    expect(outcome.warnings).toEqual([]);
  });

  it('shortens the name before the " #n" suffix so every name fits 64 characters', () => {
    const name = 'n'.repeat(63);

    const outcome = imported(mapOne({ id: 1, name, key: 'a\nb' }));

    expect(outcome.channels.map((c) => c.name)).toEqual([name, `${'n'.repeat(61)} #2`]);
    expect(outcome.warnings).toEqual(['name truncated']);
  });

  it('does not leave a space before the suffix when the cut falls on one', () => {
    const name = `${'n'.repeat(60)} ${'m'.repeat(10)}`;

    const outcome = imported(mapOne({ id: 1, name, key: 'a\nb' }));

    expect(outcome.channels[1]?.name).toBe(`${'n'.repeat(60)} #2`);
  });

  it('numbers ten and more keys with names that still fit', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`).join('\n');

    const names = imported(mapOne({ id: 1, name: 'x'.repeat(64), key: keys })).channels.map((c) => c.name);

    expect(names[11]).toBe(`${'x'.repeat(60)} #12`);
    expect(names.every((n) => [...n].length <= 64)).toBe(true);
  });
});

describe('createRowMapper: identical rows within one run', () => {
  it('skips a later row that differs only in its name, naming the first row', () => {
    const mapper = createRowMapper();

    mapper.map(row({ id: 1, key: 'k', base_url: '' }));
    const second = mapper.map(row({ id: 2, key: 'k', base_url: 'https://api.openai.com/', name: 'other name' }));
    const third = mapper.map(row({ id: 3, key: ' k \n' }));

    expect(second).toEqual({ legacyId: 2, outcome: 'skipped', reason: 'identical to legacy channel 1', warnings: [] });
    expect(third).toMatchObject({ outcome: 'skipped', reason: 'identical to legacy channel 1' });
  });

  it.each([
    ['other models', { models: 'gpt-4o-mini' }],
    ['another status', { status: 2 }],
  ])('keeps a row with the same key and base URL and %s as a channel of its own', (_what, fields) => {
    const mapper = createRowMapper();
    const first = imported(mapper.map(row({ id: 1, key: 'k' })));

    const second = imported(mapper.map(row({ id: 2, key: 'k', ...fields })));

    expect(second.channels).toHaveLength(1);
    expect(second.channels[0]?.id).not.toBe(first.channels[0]?.id);
    expect(second.warnings).toEqual([]);
  });

  it('imports the same key under another provider or base URL', () => {
    const mapper = createRowMapper();

    mapper.map(row({ id: 1, key: 'k' }));
    const otherProvider = mapper.map(row({ id: 2, key: 'k', type: 36 }));
    const otherBaseUrl = mapper.map(row({ id: 3, key: 'k', base_url: 'https://proxy.example.com' }));

    expect(otherProvider.outcome).toBe('imported');
    expect(otherBaseUrl.outcome).toBe('imported');
  });

  it('imports only the new keys of a partly duplicated row, keeping their position numbers, and warns', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k1' }));
    mapper.map(row({ id: 2, key: 'k3' }));

    const outcome = imported(mapper.map(row({ id: 5, key: 'k1\nk2\nk3\nk4', name: 'pool' })));

    expect(outcome.channels.map((c) => [c.key, c.name])).toEqual([
      ['k2', 'pool #2'],
      ['k4', 'pool #4'],
    ]);
    expect(outcome.warnings).toEqual(['2 keys skipped as identical to legacy channels 1, 2']);
  });

  it('words the warning for a single duplicated key', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k1' }));

    expect(imported(mapper.map(row({ id: 2, key: 'k1\nk2' }))).warnings).toEqual([
      '1 key skipped as identical to legacy channel 1',
    ]);
  });

  it('skips a row whose keys all repeat earlier rows, naming the first match', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k2' }));
    mapper.map(row({ id: 2, key: 'k1' }));

    expect(mapper.map(row({ id: 3, key: 'k1\nk2' }))).toMatchObject({
      outcome: 'skipped',
      reason: 'identical to legacy channel 2',
    });
  });

  it('does not remember skipped rows, and each mapper starts empty', () => {
    const mapper = createRowMapper();
    mapper.map(row({ id: 1, key: 'k', type: 999 }));

    expect(mapper.map(row({ id: 2, key: 'k' })).outcome).toBe('imported');
    expect(createRowMapper().map(row({ id: 3, key: 'k' })).outcome).toBe('imported');
  });
});

describe('channel ids (docs/channel-import.md, "Identity")', () => {
  it('are the same for the same legacy row and key whatever else the row says', () => {
    const mapper = createRowMapper();
    const a = imported(mapper.map(row({ id: 4, key: 'sk-same', models: 'a', name: 'x' })));
    const b = imported(
      createRowMapper().map(row({ id: 4, key: 'sk-same', models: 'b', base_url: 'https://o', status: 2 })),
    );

    expect(a.channels[0]?.id).toBe(b.channels[0]?.id);
    expect(a.channels[0]?.id).toBe(testChannelId(4, 'sk-same'));
  });

  it('differ for another legacy row with the same key', () => {
    const mapper = createRowMapper();
    const a = imported(mapper.map(row({ id: 4, key: 'sk-same', models: 'a' })));
    const b = imported(mapper.map(row({ id: 5, key: 'sk-same', models: 'b' })));

    expect(a.channels[0]?.id).not.toBe(b.channels[0]?.id);
  });

  it('cannot be computed from the key without the deployment key: an unkeyed hash of the same inputs differs', () => {
    const id = testChannelId(1, 'sk-1');

    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(id).not.toBe(createHash('sha256').update('1:14:sk-1').digest('hex'));
    expect(id).not.toBe(unkeyedChannelId('openai', 'https://api.openai.com', 'sk-1'));
  });

  it('keeps the unkeyed id of before: sha256 of the length-prefixed provider, base URL and key', () => {
    expect(unkeyedChannelId('openai', 'https://api.openai.com', 'sk-1')).toBe(
      '13506cf4cdbd4d8c505570fcc4976175f10d33c19df3e2f344e9d01fcef8ee59',
    );
    expect(unkeyedChannelId('p', 'é', 'k')).toBe(createHash('sha256').update('1:p2:é1:k').digest('hex'));
  });
});

describe('createRowMapper properties', () => {
  // Markers that appear in no warning or reason text, so finding one there means a value leaked.
  const text = (marker: string) =>
    fc.string({ maxLength: 30, unit: fc.constantFrom(...'aZ09 |{}":,-_./@#'.split('')) }).map((s) => `${marker}${s}`);
  const keyColumn = fc
    .tuple(
      // A small shared pool makes rows repeat each other's keys, so the duplicate paths run too.
      fc.array(fc.oneof(text('Zk~'), fc.constantFrom('Zk~pool-1', ' Zk~pool-2', '', ' ', '\t')), { maxLength: 5 }),
      fc.constantFrom('\n', '\r\n'),
    )
    .map(([lines, eol]) => lines.join(eol));
  const configColumn = fc.oneof(
    fc
      .dictionary(
        fc.oneof(fc.constantFrom('region', 'sk', 'ak', 'user_id', 'api_version', 'plugin'), text('C~')),
        fc.oneof(text('V~'), fc.constantFrom('', null, 0, false), fc.integer()),
        { maxKeys: 5 },
      )
      .map((o) => JSON.stringify(o)),
    text('V~'),
  );
  const raw = fc.string({ maxLength: 40, unit: 'binary' });
  const legacyRow: fc.Arbitrary<LegacyRow> = fc.record(
    {
      id: fc.integer({ min: 1, max: 1_000_000 }),
      type: fc.option(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(1, 8, 36) },
          fc.integer({ min: -2, max: 60 }),
          fc.integer(),
          fc.double(),
        ),
      ),
      key: fc.option(fc.oneof(keyColumn, raw)),
      status: fc.option(fc.integer({ min: -1, max: 4 })),
      base_url: fc.option(fc.oneof(fc.constantFrom('', 'https://V~proxy/'), text('https://V~'), raw)),
      models: fc.option(fc.oneof(text('m'), raw)),
      name: fc.option(fc.oneof(text('V~'), raw)),
      model_mapping: fc.option(fc.oneof(text('V~'), fc.constant('{}'), raw)),
      config: fc.option(fc.oneof(configColumn, raw)),
      other: fc.option(fc.oneof(text('V~'), raw)),
    },
    { requiredKeys: ['id', 'type', 'key', 'status', 'base_url', 'models'] },
  );

  it('never throws, and no warning or reason contains a key or a value', () => {
    fc.assert(
      fc.property(fc.array(legacyRow, { maxLength: 8 }), (rows) => {
        const mapper = createRowMapper();
        for (const source of rows) {
          const outcome = mapper.map(source);
          const texts = [...outcome.warnings, ...(outcome.outcome === 'skipped' ? [outcome.reason] : [])];
          const keys = (source.key ?? '')
            .split(/\r?\n/)
            .map((k) => k.trim())
            .filter((k) => k.includes('Zk~'));
          for (const t of texts) {
            expect(t).not.toMatch(/Zk~|V~|C~/);
            for (const key of keys) expect(t).not.toContain(key);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('only ever produces well-formed channels', () => {
    fc.assert(
      fc.property(legacyRow, (source) => {
        const outcome = createRowMapper().map(source);
        if (outcome.outcome === 'skipped') return;

        expect(outcome.channels.length).toBeGreaterThan(0);
        for (const channel of outcome.channels) {
          expect(channel.key).not.toBe('');
          expect(channel.key).toBe(channel.key.trim());
          expect(channel.key).not.toMatch(/\n/);
          expect([...channel.name].length).toBeLessThanOrEqual(64);
          expect(channel.name).not.toBe('');
          expect(channel.status).toBe(source.status === 1 ? 'enabled' : 'disabled');
          expect(channel.id).toBe(testChannelId(source.id, channel.key));
          expect(channel.legacyId).toBe(source.id);
        }
      }),
      { numRuns: 300 },
    );
  });
});
