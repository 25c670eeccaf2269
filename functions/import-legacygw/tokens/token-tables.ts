import { ProxyApiError } from '#shared/errors';
import type { ColumnSpec, RowValues } from '../families/family.ts';
import { LIMITS } from '../limits.ts';
import type { LegacyTable, RowSource } from '../source.ts';
import { OPTION_NAMES, type SkippedToken } from './token-families.ts';

/*
 * The `tokens`, `users` and `options` tables of a database source (docs/relay.md, "Keys carried over from the legacy
 * gateway"), read as the channels are: in the same read-only snapshot, SELECT only, only the columns the families use
 * that the table has, each bounded value checked in SQL so that a value over its limit is never transferred, and a row
 * count checked before the rows are read.
 */

const KiB = 1024;

/** Every `tokens` column a family reads (token-families.ts), with its limit. */
const TOKEN_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', kind: 'integer', maxBytes: null },
  { name: 'user_id', kind: 'integer', maxBytes: null },
  // 48 characters, or a Hub's signed 59 (`sk-` included in some dumps): anything longer cannot be a relay key.
  { name: 'key', kind: 'text', maxBytes: 128 },
  { name: 'status', kind: 'integer', maxBytes: null },
  { name: 'name', kind: 'text', maxBytes: null, prefixChars: 200 },
  { name: 'expired_time', kind: 'integer', maxBytes: null },
  { name: 'remain_quota', kind: 'integer', maxBytes: null },
  { name: 'used_quota', kind: 'integer', maxBytes: null },
  // Booleans: tinyint on MySQL, boolean on PostgreSQL (read as `true`/`false`).
  { name: 'unlimited_quota', kind: 'text', maxBytes: 16 },
  { name: 'models', kind: 'text', maxBytes: LIMITS.modelsBytes },
  { name: 'subnet', kind: 'text', maxBytes: LIMITS.settingsColumnBytes },
  { name: 'group', kind: 'text', maxBytes: KiB },
  { name: 'backup_group', kind: 'text', maxBytes: KiB },
  { name: 'model_limits_enabled', kind: 'text', maxBytes: 16 },
  { name: 'model_limits', kind: 'text', maxBytes: LIMITS.modelsBytes },
  { name: 'allow_ips', kind: 'text', maxBytes: LIMITS.settingsColumnBytes },
  { name: 'setting', kind: 'json', maxBytes: LIMITS.settingsColumnBytes },
  { name: 'deleted_at', kind: 'text', maxBytes: 64 },
];

const USER_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', kind: 'integer', maxBytes: null },
  // varchar(32) in every family.
  { name: 'group', kind: 'text', maxBytes: KiB },
  { name: 'status', kind: 'integer', maxBytes: null },
  { name: 'deleted_at', kind: 'text', maxBytes: 64 },
];

const OPTION_COLUMNS: readonly ColumnSpec[] = [
  { name: 'key', kind: 'text', maxBytes: 256 },
  // A ratio table of a few thousand models; a larger value is named as ignored.
  { name: 'value', kind: 'text', maxBytes: 1024 * KiB },
];

/** Most `users` rows read (each a few bytes: id, group, status); only the token owners' are kept. */
export const MAX_USER_ROWS = 1_000_000;
/** Most `options` rows read; a gateway writes about 200, and only OPTION_NAMES' are kept. */
export const MAX_OPTION_ROWS = 10_000;

/** The three tables' rows as the token import reads them, and the tokens left out while reading. */
export interface TokenTables {
  readonly tokens: RowValues[];
  readonly users: RowValues[];
  readonly options: RowValues[];
  /** Whether the database has a users table: then a token whose user is not in it is refused, as the gateways do. */
  readonly usersKnown: boolean;
  readonly skipped: SkippedToken[];
}

/**
 * Reads the token tables of `source`: 400 when there is no `tokens` table with `id` and `key`, or when a table is
 * over its row cap (`maxTokens` for tokens); `check` runs between rows (the import's deadline).
 */
export async function readTokenTables(source: RowSource, maxTokens: number, check: () => void): Promise<TokenTables> {
  const skipped: SkippedToken[] = [];
  const tokens: RowValues[] = [];
  const owners = new Set<string>();
  const tokenColumns = await checkTokensTable(source);
  for await (const row of readTable(source, 'tokens', TOKEN_COLUMNS, tokenColumns, maxTokens, check)) {
    const legacyId = row.values.id ?? '(no id)';
    if (row.oversize.length > 0) {
      const limits = row.oversize.map((name) => `${name} (over ${limitOf(TOKEN_COLUMNS, name)} bytes)`);
      skipped.push({ legacyId, reason: `over its limit: ${limits.join(', ')}` });
      continue;
    }
    tokens.push(row.values);
    owners.add(row.values.user_id ?? '');
  }
  const users: RowValues[] = [];
  const userColumns = await source.columns('users');
  if (userColumns.has('id')) {
    for await (const row of readTable(source, 'users', USER_COLUMNS, userColumns, MAX_USER_ROWS, check)) {
      // A group over its limit reads as no group: the user's tokens are then refused rather than moved to `default`.
      if (owners.has(row.values.id ?? '')) {
        users.push(row.oversize.length > 0 ? { ...row.values, status: '0' } : row.values);
      }
    }
  }
  const options: RowValues[] = [];
  const optionColumns = await source.columns('options');
  if (optionColumns.has('key') && optionColumns.has('value')) {
    for await (const row of readTable(source, 'options', OPTION_COLUMNS, optionColumns, MAX_OPTION_ROWS, check)) {
      // A value over its limit arrives null: the option is then named as ignored.
      if (OPTION_NAMES.has(row.values.key ?? '')) options.push(row.values);
    }
  }
  return { tokens, users, options, usersKnown: userColumns.has('id'), skipped };
}

/**
 * The `tokens` table's columns, or 400 when it has no `id` and `key` (checked before the channels are imported, so a
 * request that cannot carry the keys over changes nothing).
 */
export async function checkTokensTable(source: RowSource): Promise<ReadonlySet<string>> {
  const columns = await source.columns('tokens');
  if (!columns.has('id') || !columns.has('key')) {
    throw new ProxyApiError(
      400,
      'The database has no tokens table with the columns id and key, or the user may not read it (grant SELECT on tokens, users and options, or import without "tokens")',
    );
  }
  return columns;
}

async function* readTable(
  source: RowSource,
  table: Exclude<LegacyTable, 'channels'>,
  wanted: readonly ColumnSpec[],
  present: ReadonlySet<string>,
  maxRows: number,
  check: () => void,
) {
  const rows = await source.count(table);
  if (rows > maxRows) throw tooMany(table, maxRows, rows);
  let read = 0;
  for await (const row of source.rows(
    wanted.filter((c) => present.has(c.name)),
    maxRows,
    table,
  )) {
    read += 1;
    if (read > maxRows) throw tooMany(table, maxRows);
    check();
    yield row;
  }
}

function tooMany(table: string, maxRows: number, rows?: number): ProxyApiError {
  const found = rows === undefined ? 'more than' : `${rows} rows;`;
  return new ProxyApiError(400, `The ${table} table has too many rows (${found} at most ${maxRows} can be imported)`);
}

function limitOf(columns: readonly ColumnSpec[], name: string): number | null | undefined {
  return columns.find((c) => c.name === name)?.maxBytes;
}
