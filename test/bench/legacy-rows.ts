import type { TestRow } from '#test/support/legacy-mapper';
import type { TestMariaDb } from '#test/support/mariadb';
import type { TestPostgres } from '#test/support/postgres';

// The legacy gateway's current `channels` schema (docs/channel-import.md; as in test/fixtures/legacygw-channels.sql).
const CREATE_TABLE = `CREATE TABLE \`channels\` (
  \`id\` bigint NOT NULL AUTO_INCREMENT,
  \`type\` bigint DEFAULT 0,
  \`key\` text,
  \`status\` bigint DEFAULT 1,
  \`name\` varchar(191) DEFAULT NULL,
  \`weight\` bigint unsigned DEFAULT 0,
  \`created_time\` bigint DEFAULT NULL,
  \`test_time\` bigint DEFAULT NULL,
  \`response_time\` bigint DEFAULT NULL,
  \`base_url\` varchar(191) DEFAULT '',
  \`other\` longtext,
  \`balance\` double DEFAULT NULL,
  \`balance_updated_time\` bigint DEFAULT NULL,
  \`models\` longtext,
  \`group\` varchar(32) DEFAULT 'default',
  \`used_quota\` bigint DEFAULT 0,
  \`model_mapping\` varchar(1024) DEFAULT '',
  \`priority\` bigint DEFAULT 0,
  \`config\` longtext,
  \`system_prompt\` text,
  PRIMARY KEY (\`id\`),
  KEY \`idx_channels_name\` (\`name\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`;

// The same table as GORM's AutoMigrate creates it on PostgreSQL (as in test/fixtures/legacygw-channels.pg.sql).
const CREATE_PG_TABLE = `CREATE TABLE "channels" (
  "id" bigserial, "type" bigint DEFAULT 0, "key" text, "status" bigint DEFAULT 1, "name" text,
  "weight" bigint DEFAULT 0, "created_time" bigint, "test_time" bigint, "response_time" bigint,
  "base_url" text DEFAULT '', "other" text, "balance" decimal, "balance_updated_time" bigint, "models" text,
  "group" varchar(32) DEFAULT 'default', "used_quota" bigint DEFAULT 0, "model_mapping" varchar(1024) DEFAULT '',
  "priority" bigint DEFAULT 0, "config" text, "system_prompt" text, PRIMARY KEY ("id")
);
CREATE INDEX IF NOT EXISTS "idx_channels_name" ON "channels" ("name")`;

const COLUMNS = [
  'id',
  'type',
  'key',
  'status',
  'name',
  'created_time',
  'base_url',
  'other',
  'models',
  'group',
  'model_mapping',
  'config',
] as const;

// Known legacy types with and without a default base URL (docs/channel-import.md), weighted towards OpenAI.
const TYPES = [1, 1, 1, 1, 14, 17, 24, 28, 36, 44, 3, 8, 15, 33, 50] as const;
const MODELS = [
  'gpt-4o,gpt-4o-mini,gpt-3.5-turbo,text-embedding-3-small',
  'claude-3-5-sonnet-20241022,claude-3-5-haiku-20241022',
  'qwen-plus,qwen-max,qwen-turbo',
  'deepseek-chat,deepseek-reasoner',
] as const;
const EMPTY_CONFIG = '{"region":"","sk":"","ak":"","user_id":"","api_version":"","library_id":"","plugin":""}';
const INSERT_BATCH = 1_000;

/**
 * One generated legacy row: a single distinct key (so every row becomes exactly one channel), a
 * mix of types, statuses, default and explicit base URLs, model lists, and the occasional model
 * mapping or Azure API version (which the import reports as warnings).
 */
function row(id: number): unknown[] {
  const type = TYPES[id % TYPES.length]!;
  const explicitBaseUrl = type === 3 || type === 8 || type === 33 || type === 50 || id % 5 === 0;
  return [
    id,
    type,
    // Composite credentials in the form One API's relay reads them (docs/channel-import.md, "One API: keys").
    type === 15
      ? `bench-ak-${id}|bench-sk-${id.toString(36)}`
      : type === 33
        ? `AKIABENCH${id}|bench-sk-${id.toString(36)}|us-east-1`
        : `sk-bench-${id.toString().padStart(8, '0')}-0123456789abcdef`,
    id % 10 === 0 ? 2 : id % 17 === 0 ? 3 : 1,
    `bench channel ${id}`,
    1_717_200_000 + id,
    explicitBaseUrl ? `https://llm-${id % 50}.example.internal/v1/` : '',
    type === 3 ? '2024-06-01' : '',
    MODELS[id % MODELS.length]!,
    'default',
    id % 10 === 3 ? '{"gpt-4":"gpt-4o"}' : '',
    type === 33 ? '{"region":"us-east-1","sk":"","ak":"","user_id":""}' : EMPTY_CONFIG,
  ];
}

/** One generated legacy row as the import's source reader hands it to the mapper (column name to value). */
export function legacyRow(id: number): TestRow {
  const values = row(id);
  return Object.fromEntries(COLUMNS.map((column, i) => [column, values[i]])) as unknown as TestRow;
}

/** Creates a database holding `rows` generated legacy channels (batched multi-row INSERTs); returns its name. */
export async function createLegacyDatabase(mariadb: TestMariaDb, rows: number): Promise<string> {
  const database = await mariadb.createDatabase();
  await mariadb.query(`USE \`${database}\``);
  await mariadb.query(CREATE_TABLE);
  const insert = `INSERT INTO \`channels\` (${COLUMNS.map((c) => `\`${c}\``).join(', ')}) VALUES ?`;
  for (let first = 1; first <= rows; first += INSERT_BATCH) {
    const batch: unknown[][] = [];
    for (let id = first; id < Math.min(first + INSERT_BATCH, rows + 1); id++) batch.push(row(id));
    await mariadb.query(insert, [batch]);
  }
  return database;
}

/** The same rows as `createLegacyDatabase`, in a PostgreSQL database of their own; returns its name. */
export async function createLegacyPgDatabase(postgres: TestPostgres, rows: number): Promise<string> {
  const database = await postgres.createDatabase(undefined, CREATE_PG_TABLE);
  const admin = await postgres.connectAdmin(database);
  try {
    // One array per column, unnested into rows: a batch is one statement with 12 parameters.
    const names = COLUMNS.map((c) => `"${c}"`).join(', ');
    const types = COLUMNS.map((c, i) => `$${i + 1}::${INTEGER_COLUMNS.has(c) ? 'bigint' : 'text'}[]`).join(', ');
    for (let first = 1; first <= rows; first += INSERT_BATCH) {
      const columns: unknown[][] = COLUMNS.map(() => []);
      for (let id = first; id < Math.min(first + INSERT_BATCH, rows + 1); id++) {
        for (const [i, value] of row(id).entries()) columns[i]?.push(value);
      }
      await admin.query(`INSERT INTO "channels" (${names}) SELECT * FROM unnest(${types})`, columns);
    }
  } finally {
    await admin.end();
  }
  return database;
}

const INTEGER_COLUMNS: ReadonlySet<string> = new Set(['id', 'type', 'status', 'created_time']);
