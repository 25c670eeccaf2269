import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from '@sqlite.org/sqlite-wasm';
import { loadSqlite } from '../../scripts/import-sqlite/node-file.ts';

/*
 * Builds gateway SQLite files at test time (no .db file is kept in git): the `channels` table exactly as GORM's
 * AutoMigrate creates it on SQLite (test/fixtures/<name>.sqlite.sql, which records the upstream commit), filled with
 * the INSERT statements of the MySQL form of the same fixture (test/fixtures/<name>.sql), so that both forms hold
 * the same rows by construction.
 */

/** The fixtures that exist in GORM's SQLite form (every family runs on SQLite when no DSN is set). */
export const SQLITE_FIXTURES = [
  'oneapi-channels',
  'legacygw-channels',
  'legacygw-channels-v05',
  'newapi-newest-channels',
  'newapi-channels',
  'newapi-v0-channels',
  'newapi-upgraded-channels',
  'onehub-channels',
  'donehub-channels',
] as const;
export type SqliteFixture = (typeof SQLITE_FIXTURES)[number];

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const AFTER_ROWS = '-- after the rows';

/** The INSERT statements of a MySQL fixture, in file order (each runs unchanged on SQLite). */
export function mysqlFixtureInserts(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] | undefined;
  for (const line of sql.split('\n')) {
    if (current === undefined && line.startsWith('INSERT INTO')) current = [];
    if (current === undefined) continue;
    current.push(line);
    if (line.trimEnd().endsWith(');')) {
      statements.push(current.join('\n'));
      current = undefined;
    }
  }
  if (current !== undefined) throw new Error('A MySQL fixture ends inside an INSERT statement');
  return statements;
}

/** The statements that make the fixture's SQLite form: the DDL, the MySQL form's rows, then any fix-ups. */
export function sqliteFixtureStatements(name: SqliteFixture): string[] {
  const ddl = readFileSync(`${FIXTURES}${name}.sqlite.sql`, 'utf8');
  const [before = '', after = ''] = ddl.split(AFTER_ROWS);
  const statements = [before, ...mysqlFixtureInserts(readFileSync(`${FIXTURES}${name}.sql`, 'utf8')), after];
  return statements.filter((sql) => sql.replace(/--.*$/gm, '').trim() !== '');
}

/** Builds the fixture's SQLite database and returns the file's bytes. */
export async function sqliteFixtureBytes(
  name: SqliteFixture,
  extra: (db: Database) => void = () => {},
): Promise<Uint8Array> {
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(':memory:', 'c');
  try {
    for (const statement of sqliteFixtureStatements(name)) db.exec(statement);
    extra(db);
    return sqlite3.capi.sqlite3_js_db_export(db);
  } finally {
    db.close();
  }
}

/** Writes the fixture's SQLite database to `path`. */
export async function writeSqliteFixture(name: SqliteFixture, path: string): Promise<void> {
  writeFileSync(path, await sqliteFixtureBytes(name));
}

const MiB = 1024 * 1024;

/**
 * Writes a gateway file over `totalBytes` (default 210 MiB) whose bulk is a `logs` table, as a busy gateway's file
 * is: the fixture's channels plus a few large log rows, written in between the channels so that the two tables'
 * pages interleave in the file. Large rows keep it fast (no millions of inserts); the reader must skip them all.
 */
export async function writeLargeSqliteFile(
  name: SqliteFixture,
  path: string,
  options: { totalBytes?: number; logRowBytes?: number } = {},
): Promise<void> {
  const total = options.totalBytes ?? 210 * MiB;
  const rowBytes = options.logRowBytes ?? 8 * MiB;
  const sqlite3 = await loadSqlite();
  const db = new sqlite3.oo1.DB(':memory:', 'c');
  try {
    // One API's Log struct as GORM creates it on SQLite (the columns that matter here).
    db.exec(
      'CREATE TABLE `logs` (`id` integer,`user_id` integer,`created_at` integer,`type` integer,`content` text,`username` text DEFAULT "",`token_name` text DEFAULT "",`model_name` text DEFAULT "",`quota` integer DEFAULT 0,`channel_id` integer,PRIMARY KEY (`id`))',
    );
    const statements = sqliteFixtureStatements(name);
    const logRows = Math.ceil(total / rowBytes);
    const insertLog = () =>
      db.exec({
        sql: 'INSERT INTO `logs` (`user_id`, `created_at`, `type`, `content`) VALUES (1, 1740000000, 2, zeroblob(?))',
        bind: [rowBytes],
      });
    statements.forEach((statement, i) => {
      db.exec(statement);
      if (i > 0 && i <= logRows) insertLog();
    });
    for (let i = statements.length - 1; i <= logRows; i += 1) insertLog();
    writeFileSync(path, sqlite3.capi.sqlite3_js_db_export(db));
  } finally {
    db.close();
  }
}
