import { describe, expect, it } from 'vitest';
import type { ImportDeps } from '#functions/import-legacygw/import-legacygw';
import { proxyErrorResponse, proxySuccess } from '#shared/envelopes/proxy';
import { ChannelsNotStoredError } from '#shared/errors';
import { ChannelWriteError, type StoredChannel } from '#shared/repositories/channels';
import { captureOutput } from '#test/support/capture-output';
import { testChannelId } from '#test/support/channel-ids';
import { freePort } from '#test/support/mariadb';
import {
  FIXTURE_KEYS,
  FIXTURE_SQL,
  FIXTURE_V05_SQL,
  importDeps,
  runImport,
  testLogger,
  useImportEngines,
} from './import.helpers.ts';
import { LEGACYGW_EXPECTED_SETTINGS } from './legacygw-fixture.expected.ts';
import { ONEAPI_V05_EXPECTED_SETTINGS } from './oneapi-v05-fixture.expected.ts';

const { db, dynamo } = useImportEngines();

const NOW = '2026-03-01T10:00:00.000Z';

type Expected = Pick<StoredChannel, 'provider' | 'legacyType' | 'name' | 'baseUrl' | 'models' | 'key' | 'status'> & {
  legacyId: number;
};

const enabled = 'enabled' as const;
const disabled = 'disabled' as const;

/** The channels of a row whose key column holds several keys: one per key, named `<name>`, `<name> #2` and so on. */
const pooled = (row: Omit<Expected, 'key'>, keys: readonly string[]): Expected[] =>
  keys.map((key, i) => ({ ...row, key, name: i === 0 ? row.name : `${row.name} #${i + 1}` }));

// docs/channel-import.md and the fixture's rows, channel by channel.

const EXPECTED_CHANNELS: Expected[] = [
  {
    legacyId: 1,
    legacyType: 1,
    provider: 'openai',
    baseUrl: 'https://api.openai.com',
    key: 'sk-fixture-openai-main-0001',
    models: ['gpt-4o', 'gpt-4o-mini', 'gpt-3.5-turbo'],
    status: enabled,
    name: 'openai-main',
  },
  {
    legacyId: 2,
    legacyType: 1,
    provider: 'openai',
    baseUrl: 'https://openai-proxy.example.com',
    key: 'sk-fixture-openai-proxy-0002',
    models: ['gpt-4o', 'gpt-4o-mini', 'text-embedding-3-small'],
    status: enabled,
    name: 'OpenAI 备用代理',
  },
  {
    legacyId: 3,
    legacyType: 3,
    provider: 'azure',
    baseUrl: 'https://fixture-eastus.openai.azure.com',
    key: 'fixtureazurekey00000000000000003',
    models: ['gpt-4o', 'gpt-35-turbo', 'text-embedding-ada-002'],
    status: enabled,
    name: 'azure-eastus',
  },
  {
    legacyId: 4,
    legacyType: 14,
    provider: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    key: 'sk-ant-fixture-0004',
    models: ['claude-3-5-sonnet-20241022', 'claude-3-haiku-20240307'],
    status: disabled,
    name: 'claude-disabled-by-admin',
  },
  {
    legacyId: 5,
    legacyType: 15,
    provider: 'baidu',
    baseUrl: 'https://aip.baidubce.com',
    key: 'fixtureBaiduApiKey0005|fixtureBaiduSecretKey0005',
    models: ['ERNIE-4.0-8K', 'ERNIE-Speed-128K'],
    status: disabled,
    name: 'ernie-auto-disabled',
  },
  {
    legacyId: 6,
    legacyType: 2,
    provider: 'api2d',
    baseUrl: 'https://oa.api2d.net',
    key: 'fk-fixture-api2d-0006',
    models: ['gpt-4o-mini'],
    status: enabled,
    name: 'api2d-reseller',
  },
  {
    legacyId: 7,
    legacyType: 17,
    provider: 'ali',
    baseUrl: 'https://dashscope.aliyuncs.com',
    key: 'sk-fixture-dashscope-0007',
    models: ['qwen-turbo', 'qwen-plus', 'qwen-max', 'text-embedding-v1'],
    status: enabled,
    name: 'qwen',
  },
  {
    legacyId: 8,
    legacyType: 24,
    provider: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com',
    key: 'AIzaFixtureGeminiKey000000000000008',
    models: ['gemini-1.5-pro', 'gemini-1.5-flash'],
    status: enabled,
    name: 'gemini',
  },
  {
    legacyId: 9,
    legacyType: 33,
    provider: 'aws',
    baseUrl: '',
    key: 'AKIAFIXTURE0009|fixtureAwsSecret0009|us-east-1',
    models: ['claude-3-5-sonnet-20240620', 'claude-3-haiku-20240307'],
    status: enabled,
    name: 'bedrock-claude',
  },
  ...pooled(
    {
      legacyId: 10,
      legacyType: 36,
      provider: 'deepseek',
      baseUrl: 'https://api.deepseek.com',
      models: ['deepseek-chat', 'deepseek-reasoner'],
      status: enabled,
      name: 'deepseek-pool',
    },
    ['sk-fixture-deepseek-a', 'sk-fixture-deepseek-b', 'sk-fixture-deepseek-c'],
  ),
  {
    legacyId: 11,
    legacyType: 50,
    provider: 'openai-compatible',
    baseUrl: 'https://llm.example.internal/v1',
    key: 'sk-fixture-compat-0011',
    models: ['Qwen2.5-72B-Instruct', 'bge-m3'],
    status: enabled,
    name: 'vllm-internal',
  },
  {
    legacyId: 12,
    legacyType: 8,
    provider: 'custom',
    baseUrl: 'https://custom-proxy.example.com',
    key: 'sk-fixture-custom-0012',
    models: ['gpt-4o-mini'],
    status: enabled,
    name: 'custom-domain-proxy',
  },
  {
    legacyId: 13,
    legacyType: 42,
    provider: 'vertex-ai',
    baseUrl: '',
    // One API sends config's service account (vertex_ai_adc), not the key column's (docs/channel-import.md).
    key: 'us-central1|fixture-project-13|{"type":"service_account","project_id":"fixture-project-13"}',
    models: ['gemini-1.5-pro-002', 'claude-3-5-sonnet@20240620'],
    status: enabled,
    name: 'vertex',
  },
  {
    legacyId: 14,
    legacyType: 18,
    provider: 'xunfei',
    baseUrl: '',
    key: 'fixtureAppId14|fixtureApiSecret14|fixtureApiKey14',
    models: ['SparkDesk-v3.5'],
    status: enabled,
    name: 'spark-ws',
  },
  {
    legacyId: 15,
    legacyType: 34,
    provider: 'coze',
    baseUrl: 'https://api.coze.com',
    key: 'pat_fixture_coze_0015',
    models: ['coze-fixture-bot'],
    status: enabled,
    name: 'coze-bot',
  },
  {
    legacyId: 16,
    legacyType: 44,
    provider: 'siliconflow',
    baseUrl: 'https://api.siliconflow.cn',
    key: 'sk-fixture-siliconflow-0016',
    models: [],
    status: enabled,
    name: 'siliconflow-no-models',
  },
  ...pooled(
    {
      legacyId: 18,
      legacyType: 1,
      provider: 'openai',
      baseUrl: 'https://api.openai.com',
      models: ['gpt-4o-mini', 'GPT-4o-mini'],
      status: enabled,
      name: 'openai-crlf-keys',
    },
    ['sk-fixture-crlf-a', 'sk-fixture-crlf-b'],
  ),
  {
    legacyId: 20,
    legacyType: 37,
    provider: 'cloudflare',
    baseUrl: 'https://api.cloudflare.com',
    key: 'fixture-cloudflare-token-0020',
    models: ['@cf/meta/llama-3.1-8b-instruct', '@cf/baai/bge-base-en-v1.5'],
    status: enabled,
    name: 'workers-ai',
  },
];

/**
 * The report's `routes` for the fixture: row 17 (unknown type) is enabled and skipped, so the default group's gpt-4o
 * keeps fewer rows than it had; row 19 is identical to row 1 and serves its routes through row 1's channel.
 */
const EXPECTED_ROUTES = {
  total: 28,
  kept: 27,
  changed: 1,
  lost: 0,
  items: [{ group: 'default', model: 'gpt-4o', legacy: 5, imported: 4 }],
  itemsTruncated: false,
  complete: true,
};

/**
 * The enabled channels whose provider the relay cannot serve yet (docs/relay.md, "Providers"): imported and kept, named
 * per provider in the report and in one note.
 */
const EXPECTED_NOT_SERVABLE = ['cloudflare', 'coze', 'xunfei'].map((provider) => ({
  provider,
  channels: 1,
  reason: expect.stringContaining(provider),
}));
const EXPECTED_NOTES = [
  '3 enabled channels are of a provider the relay cannot serve yet: cloudflare (1), coze (1), xunfei (1). They are kept, but no /v1 request reaches them (see "notServable").',
];

// One API's settings are carried (test/integration/legacygw-fixture.expected.ts); what still warns is row 12's model
// mapping (not a JSON object of names) and the rows without a base URL or models.
const EXPECTED_ITEMS = [
  { legacyId: 9, outcome: 'imported', channels: 1, warnings: ['no base URL'] },
  { legacyId: 12, outcome: 'imported', channels: 1, warnings: ['model mapping not imported'] },
  { legacyId: 13, outcome: 'imported', channels: 1, warnings: ['no base URL'] },
  { legacyId: 14, outcome: 'imported', channels: 1, warnings: ['no base URL'] },
  { legacyId: 16, outcome: 'imported', channels: 1, warnings: ['no models'] },
  { legacyId: 17, outcome: 'skipped', reason: 'unknown legacy channel type 999' },
  { legacyId: 19, outcome: 'skipped', reason: 'identical to legacy channel 1' },
];

function storedFor(
  expected: Expected[],
  database: string,
  settings: Readonly<Record<number, unknown>> = LEGACYGW_EXPECTED_SETTINGS,
): StoredChannel[] {
  return expected
    .map(({ legacyId, ...c }) => ({
      ...c,
      id: testChannelId(legacyId, c.key),
      settings: settings[legacyId] as StoredChannel['settings'],
      source: { legacyId, host: '127.0.0.1', database },
      createdAt: NOW,
      updatedAt: NOW,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

async function freshFixture(sql = FIXTURE_SQL) {
  const [database, table] = await Promise.all([db.createDatabase(undefined, sql), dynamo.createChannelsTable()]);
  return { database, table, dsn: db.dsn(database) };
}

describe('importing the legacy gateway fixture', () => {
  it('imports 18 rows as 21 channels, field by field as the expected import in docs/channel-import.md says', async () => {
    const { database, table, dsn } = await freshFixture();

    const result = await runImport(dsn, importDeps(dynamo, table));

    expect(result.ok && result.report).toEqual({
      dryRun: false,
      source: { host: '127.0.0.1', port: db.port, database, rows: 20, kind: 'oneapi' },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
      items: EXPECTED_ITEMS,
      itemsTruncated: false,
      routes: EXPECTED_ROUTES,
      notServable: EXPECTED_NOT_SERVABLE,
      notes: EXPECTED_NOTES,
    });
    expect(await dynamo.scan(table)).toEqual(storedFor(EXPECTED_CHANNELS, database));
  });

  it('creates nothing on a second run and counts every channel unchanged', async () => {
    const { table, dsn } = await freshFixture();
    await runImport(dsn, importDeps(dynamo, table));
    const before = await dynamo.scan(table);
    const later = { ...importDeps(dynamo, table), now: () => new Date('2026-03-02T00:00:00.000Z') };

    const result = await runImport(dsn, later);

    expect(result.ok && result.report.channels).toEqual({ created: 0, updated: 0, unchanged: 21, edited: 0 });
    expect(result.ok && result.report.rows).toEqual({ imported: 18, skipped: 2 });
    expect(await dynamo.scan(table)).toEqual(before);
  });

  it('reports a dry run like a real one and writes nothing', async () => {
    const { database, table, dsn } = await freshFixture();

    const result = await runImport(dsn, importDeps(dynamo, table), true);

    expect(result.ok && result.report).toMatchObject({
      dryRun: true,
      source: { database, rows: 20 },
      rows: { imported: 18, skipped: 2 },
      channels: { created: 21, updated: 0, unchanged: 0, edited: 0 },
      items: EXPECTED_ITEMS,
      routes: EXPECTED_ROUTES,
    });
    expect(await dynamo.scan(table)).toEqual([]);
  });

  it('counts a channel whose legacy row changed as updated and keeps its creation time', async () => {
    const { database, table, dsn } = await freshFixture();
    await runImport(dsn, importDeps(dynamo, table));
    await db.query(`UPDATE \`${database}\`.channels SET models = 'gpt-4o', name = 'openai-renamed' WHERE id = 1`);
    await db.query(`UPDATE \`${database}\`.channels SET status = 2 WHERE id = 6`);
    const later = { ...importDeps(dynamo, table), now: () => new Date('2026-03-02T00:00:00.000Z') };

    const result = await runImport(dsn, later);

    // Row 19 was identical to row 1; with row 1's models changed it is a route of its own, so a channel of its own.
    expect(result.ok && result.report.channels).toEqual({ created: 1, updated: 2, unchanged: 19, edited: 0 });
    const byId = new Map((await dynamo.scan(table)).map((c) => [c.id, c]));
    const row1 = byId.get(testChannelId(1, 'sk-fixture-openai-main-0001'));
    expect(row1).toMatchObject({
      name: 'openai-renamed',
      models: ['gpt-4o'],
      status: 'enabled',
      createdAt: NOW,
      updatedAt: '2026-03-02T00:00:00.000Z',
    });
    const row6 = byId.get(testChannelId(6, 'fk-fixture-api2d-0006'));
    expect(row6).toMatchObject({ status: 'disabled', createdAt: NOW, updatedAt: '2026-03-02T00:00:00.000Z' });
    const row7 = byId.get(testChannelId(7, 'sk-fixture-dashscope-0007'));
    expect(row7?.updatedAt).toBe(NOW);
  });

  it('imports the v0.5 schema (no config column, key NOT NULL): 3 rows, 3 channels, row 3 disabled', async () => {
    const { database, table, dsn } = await freshFixture(FIXTURE_V05_SQL);

    const result = await runImport(dsn, importDeps(dynamo, table));

    expect(result.ok && result.report).toMatchObject({
      source: { rows: 3 },
      rows: { imported: 3, skipped: 0 },
      channels: { created: 3, updated: 0, unchanged: 0, edited: 0 },
    });
    const expected: Expected[] = [
      {
        legacyId: 1,
        legacyType: 1,
        provider: 'openai',
        baseUrl: 'https://legacy-proxy.example.com',
        key: 'sk-fixture-legacy-openai-0001',
        models: ['gpt-3.5-turbo', 'gpt-4'],
        status: enabled,
        name: 'legacy-openai',
      },
      {
        legacyId: 2,
        legacyType: 3,
        provider: 'azure',
        baseUrl: 'https://legacy-res.openai.azure.com',
        key: 'fixturelegacyazure0002',
        models: ['gpt-35-turbo'],
        status: enabled,
        name: 'legacy-azure',
      },
      {
        legacyId: 3,
        legacyType: 17,
        provider: 'ali',
        baseUrl: 'https://dashscope.aliyuncs.com',
        key: 'sk-fixture-legacy-ali-0003',
        models: ['qwen-turbo'],
        status: disabled,
        name: 'legacy-qwen',
      },
    ];
    expect(await dynamo.scan(table)).toEqual(storedFor(expected, database, ONEAPI_V05_EXPECTED_SETTINGS));
  });

  it('accepts the URL form of the DSN and tls=preferred against a server without TLS', async () => {
    const { database, table } = await freshFixture();
    const dsn = `mysql://${db.user}:${encodeURIComponent(db.password)}@127.0.0.1:${db.port}/${database}?tls=preferred`;

    const result = await runImport(dsn, importDeps(dynamo, table));

    expect(result.ok && result.report.channels.created).toBe(21);
  });
});

describe('an import that failed part-way', () => {
  it('converges on a re-run to the same table as a clean import', async () => {
    const { table: clean, dsn } = await freshFixture();
    const partial = await dynamo.createChannelsTable();
    await runImport(dsn, importDeps(dynamo, clean));
    const healthy = importDeps(dynamo, partial);
    // Stores the first 10 channels, then gives up the way the repository does after its last retry.
    const failing: ImportDeps = {
      ...healthy,
      repo: {
        getCompared: (ids, options) => healthy.repo.getCompared(ids, options),
        isEmpty: (options) => healthy.repo.isEmpty(options),
        scanIds: (options) => healthy.repo.scanIds(options),
        getSummaries: (ids, options) => healthy.repo.getSummaries(ids, options),
        getMany: (ids, options) => healthy.repo.getMany(ids, options),
        putMany: async (items, options) => {
          const written = await healthy.repo.putMany(items.slice(0, 10), options);
          throw new ChannelWriteError(written, { cause: new Error('throttled') });
        },
      },
    };

    const first = await runImport(dsn, failing);
    const afterFailure = await dynamo.scan(partial);
    const rerun = await runImport(dsn, healthy);

    expect(!first.ok && first.error).toBeInstanceOf(ChannelsNotStoredError);
    expect(!first.ok && first.error.message).toContain('10 channel(s) were written');
    expect(afterFailure).toHaveLength(10);
    expect(rerun.ok && rerun.report.channels).toEqual({ created: 11, updated: 0, unchanged: 10, edited: 0 });
    expect(await dynamo.scan(partial)).toEqual(await dynamo.scan(clean));
  });
});

describe('import failures', () => {
  it('rejects a wrong MySQL password with 400 and never repeats it', async () => {
    const { database, table } = await freshFixture();
    const password = 'Wr0ng@pa:ss/(x)';

    const result = await runImport(db.dsn(database, { password }), importDeps(dynamo, table));

    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.httpStatus).toBe(400);
    expect(!result.ok && result.error.message).toMatch(/denied access/);
    expect(
      JSON.stringify(!result.ok && { message: result.error.message, cause: String(result.error.cause) }),
    ).not.toContain(password);
    expect(await dynamo.scan(table)).toEqual([]);
  });

  it('rejects an unknown database with 400', async () => {
    const table = await dynamo.createChannelsTable();
    // The administrative user sees "unknown database" (1049); an unprivileged one gets "access denied" (1044).
    const asRoot = `root:@tcp(127.0.0.1:${db.port})/no_such_db_${Date.now()}`;

    const root = await runImport(asRoot, importDeps(dynamo, table));
    const unprivileged = await runImport(db.dsn('no_such_db'), importDeps(dynamo, table));

    expect(!root.ok && [root.error.httpStatus, root.error.message]).toEqual([
      400,
      expect.stringMatching(/does not exist/),
    ]);
    expect(!unprivileged.ok && [unprivileged.error.httpStatus, unprivileged.error.message]).toEqual([
      400,
      expect.stringMatching(/does not exist on the MySQL server, or the MySQL user may not use it/),
    ]);
  });

  it('reports a closed port as 502 without waiting for the connect timeout', async () => {
    const table = await dynamo.createChannelsTable();
    const dsn = `u:p@tcp(127.0.0.1:${await freePort()})/legacy?timeout=10s`;

    const result = await runImport(dsn, importDeps(dynamo, table, { deadlineMs: 60_000 }));

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      502,
      expect.stringMatching(/refused/),
    ]);
  });

  it('rejects a database without a channels table with 400', async () => {
    const database = await db.createDatabase(undefined, 'CREATE TABLE users (id bigint PRIMARY KEY)');
    const table = await dynamo.createChannelsTable();

    const result = await runImport(db.dsn(database), importDeps(dynamo, table));

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      400,
      expect.stringMatching(/no channels table/),
    ]);
  });

  it('reads a One API table upgraded in place by New API (fork columns added beside config) as New API', async () => {
    const { database, table, dsn } = await freshFixture();
    await db.query(`ALTER TABLE \`${database}\`.channels ADD COLUMN tag varchar(30), ADD COLUMN auto_ban int`);

    const result = await runImport(dsn, importDeps(dynamo, table), true);

    expect(result.ok && result.report.source.kind).toBe('newapi');
  });

  it('rejects a channels table that lacks a required column with 400', async () => {
    const { database, table, dsn } = await freshFixture();
    await db.query(`ALTER TABLE \`${database}\`.channels DROP COLUMN base_url`);

    const result = await runImport(dsn, importDeps(dynamo, table));

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      400,
      expect.stringMatching(/required column\(s\): base_url/),
    ]);
  });

  it('rejects a table with more rows than LEGACYGW_MAX_ROWS with 400 before writing', async () => {
    const { table, dsn } = await freshFixture();

    const result = await runImport(dsn, importDeps(dynamo, table, { maxRows: 19 }));

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      400,
      expect.stringMatching(/too many rows \(20 rows; at most 19/),
    ]);
    expect(await dynamo.scan(table)).toEqual([]);
  });

  it('imports a table of exactly LEGACYGW_MAX_ROWS rows', async () => {
    const { table, dsn } = await freshFixture();

    const result = await runImport(dsn, importDeps(dynamo, table, { maxRows: 20 }));

    expect(result.ok && result.report.source.rows).toBe(20);
  });

  it('requires TLS when the DSN says tls=true and the server offers none (400)', async () => {
    const { database, table } = await freshFixture();

    const result = await runImport(db.dsn(database, { params: 'tls=true' }), importDeps(dynamo, table));

    expect(!result.ok && [result.error.httpStatus, result.error.message]).toEqual([
      400,
      expect.stringMatching(/offers no TLS/),
    ]);
  });

  it('refuses a link-local target before connecting (400)', async () => {
    const table = await dynamo.createChannelsTable();

    const result = await runImport('u:p@tcp(169.254.169.254:3306)/legacy', importDeps(dynamo, table));

    expect(!result.ok && result.error.httpStatus).toBe(400);
  });
});

describe('secrets', () => {
  it('never puts an imported key, the MySQL password or the DSN into a response or a log line', async () => {
    const { database, table, dsn } = await freshFixture();
    const wrongPassword = db.dsn(database, { password: `${db.password}-wrong` });
    const logger = testLogger('DEBUG');
    const deps = { ...importDeps(dynamo, table), logger };
    const output = captureOutput();
    const responses: string[] = [];
    try {
      for (const [input, dryRun] of [
        [dsn, false],
        [dsn, true],
        [wrongPassword, false],
        [`${dsn}?allowAllFiles=true`, false],
      ] as const) {
        const result = await runImport(input, deps, dryRun);
        const response = result.ok ? proxySuccess(result.report) : proxyErrorResponse(result.error, logger);
        responses.push(response.body);
      }
    } finally {
      output.restore();
    }

    expect(responses.map((r) => JSON.parse(r).success)).toEqual([true, true, false, false]);
    expect(output.text()).toContain('Import finished');
    const everything = [...responses, output.text()].join('\n');
    for (const secret of [...FIXTURE_KEYS, db.password, dsn, wrongPassword]) expect(everything).not.toContain(secret);
    // The keys did reach the table, so the check above is not vacuous.
    expect((await dynamo.scan(table)).map((c) => c.key)).toEqual(expect.arrayContaining([...FIXTURE_KEYS.slice(0, 3)]));
  });
});
