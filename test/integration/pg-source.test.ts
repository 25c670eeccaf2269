import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresDsn, parseDsn } from '#functions/import-legacygw/dsn';
import type { ColumnSpec, SourceRow } from '#functions/import-legacygw/families/family';
import { CORE_COLUMNS, LIMITS, settingsColumn } from '#functions/import-legacygw/limits';
import { openPgSource, type PgSourceLimits } from '#functions/import-legacygw/pg-source';
import type { RowSource } from '#functions/import-legacygw/source';
import { ProxyApiError } from '#shared/errors';
import { startStallingProxy } from '#test/support/fake-mysql';
import { startFakePostgres } from '#test/support/fake-postgres';
import { freePort, startMariaDb, type TestMariaDb } from '#test/support/mariadb';
import { startPostgres, type TestPostgres } from '#test/support/postgres';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
const LEGACY_PG = fixture('legacygw-channels.pg.sql');
const NEWAPI_PG = fixture('newapi-channels.pg.sql');
const LOCAL = { address: '127.0.0.1', family: 4 } as const;

let pg: TestPostgres;
// For the comparison with the MySQL form of the fixtures.
let mariadb: TestMariaDb;

beforeAll(async () => {
  [pg, mariadb] = await Promise.all([startPostgres(), startMariaDb()]);
});

afterAll(async () => {
  await Promise.all([pg?.stop(), mariadb?.stop()]);
});

function limits(overrides: Partial<PgSourceLimits> = {}): PgSourceLimits {
  return { signal: new AbortController().signal, deadlineAt: Date.now() + 20_000, now: () => Date.now(), ...overrides };
}

function pgDsn(text: string): PostgresDsn {
  const dsn = parseDsn(text);
  if (dsn.engine !== 'postgres') throw new Error('expected a PostgreSQL DSN');
  return dsn;
}

async function open(text: string, overrides: Partial<PgSourceLimits> = {}): Promise<RowSource> {
  return openPgSource(pgDsn(text), LOCAL, limits(overrides));
}

async function all(rows: AsyncIterable<SourceRow>): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ProxyApiError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof ProxyApiError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

/** The core's columns that the table has. */
async function present(source: RowSource, extra: readonly ColumnSpec[] = []): Promise<ColumnSpec[]> {
  const columns = await source.columns();
  return [...CORE_COLUMNS, ...extra].filter((c) => columns.has(c.name));
}

describe('the PostgreSQL source on the legacy gateway fixture (GORM PostgreSQL form)', () => {
  it('lists the columns in lower case, counts the rows and streams them in id order as text', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    const source = await open(pg.dsn(database, { params: 'sslmode=disable' }));
    try {
      const columns = await source.columns();
      const count = await source.count();
      const rows = await all(source.rows(await present(source, [settingsColumn('config', 'json')]), 1_000));

      expect([...columns]).toEqual(expect.arrayContaining(['id', 'type', 'key', 'status', 'group', 'config']));
      expect(columns.size).toBe(20);
      expect(count).toBe(20);
      expect(rows.map((r) => r.values.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
      expect(rows[0]).toEqual({
        values: {
          id: '1',
          type: '1',
          key: 'sk-fixture-openai-main-0001',
          status: '1',
          base_url: '',
          models: 'gpt-4o,gpt-4o-mini,gpt-3.5-turbo',
          name: 'openai-main',
          group: 'default',
          config: '',
        },
        oversize: [],
      });
      expect(rows[9]?.values.key).toBe('sk-fixture-deepseek-a\nsk-fixture-deepseek-b\n\nsk-fixture-deepseek-c\n');
      expect(rows[3]?.values).toMatchObject({ base_url: null, config: null, status: '2' });
    } finally {
      await source.close();
    }
  });

  it('reads at most `limit` rows', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    const source = await open(pg.dsn(database));
    try {
      const rows = await all(source.rows(await present(source), 3));

      expect(rows.map((r) => r.values.id)).toEqual(['1', '2', '3']);
    } finally {
      await source.close();
    }
  });

  it('reads the same values as MariaDB holds from the MySQL form of each fixture', async () => {
    for (const [mysqlFixture, pgFixture, extra] of [
      ['legacygw-channels.sql', LEGACY_PG, ['model_mapping', 'config', 'other', 'system_prompt', 'priority', 'weight']],
      [
        'newapi-channels.sql',
        NEWAPI_PG,
        ['model_mapping', 'setting', 'settings', 'channel_info', 'other', 'tag', 'param_override', 'priority'],
      ],
    ] as const) {
      const pgDatabase = await pg.createDatabase(undefined, pgFixture);
      const source = await open(pg.dsn(pgDatabase));
      let fromPg: SourceRow[];
      try {
        const select = await present(
          source,
          extra.map((name) =>
            name === 'priority' || name === 'weight' ? { name, kind: 'integer', maxBytes: null } : settingsColumn(name),
          ),
        );
        fromPg = await all(source.rows(select, 1_000));
      } finally {
        await source.close();
      }
      const fromMySql = await readMariaDb(mariadb, fixture(mysqlFixture), Object.keys(fromPg[0]?.values ?? {}));

      expect(fromPg.map((r) => normaliseJson(r.values))).toEqual(fromMySql.map(normaliseJson));
    }
  });
});

describe('the PostgreSQL source, limits checked in SQL', () => {
  it('never fetches a value over its limit, names it as oversize, and cuts a long name to 65 characters', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    await pg.query(
      database,
      `UPDATE channels SET "key" = repeat('k', ${LIMITS.keyColumnBytes + 1}), base_url = repeat('u', 3000),
              name = repeat('名', 200), models = repeat('m', ${LIMITS.modelsBytes}) WHERE id = 2;
       UPDATE channels SET "key" = repeat('k', ${LIMITS.keyColumnBytes}) WHERE id = 3;`,
    );
    const proxy = await startStallingProxy(pg.port);
    const source = await open(pg.dsn(database, { port: proxy.port, params: 'sslmode=disable' }));
    try {
      const rows = await all(source.rows(await present(source), 1_000));

      expect([...(rows[1]?.oversize ?? [])].sort()).toEqual(['base_url', 'key']);
      expect(rows[1]?.values).toMatchObject({ key: null, base_url: null, models: 'm'.repeat(LIMITS.modelsBytes) });
      expect(rows[1]?.values.name).toBe('名'.repeat(LIMITS.nameChars + 1));
      expect(rows[2]).toMatchObject({ oversize: [], values: { key: 'k'.repeat(LIMITS.keyColumnBytes) } });
      // The over-limit key never crossed the wire: one exactly at the limit did, the 1 MiB + 1 did not.
      const sent = proxy.serverData().length;
      expect(sent).toBeGreaterThan(LIMITS.keyColumnBytes);
      expect(sent).toBeLessThan(2 * LIMITS.keyColumnBytes);
    } finally {
      await source.close();
      await proxy.close();
    }
  });

  it('carries an id above 2^53 exactly, and a JSON column as its text', async () => {
    const database = await pg.createDatabase(undefined, NEWAPI_PG);
    await pg.query(database, `UPDATE channels SET id = 9007199254740993 WHERE id = 20`);
    const source = await open(pg.dsn(database));
    try {
      const rows = await all(source.rows(await present(source, [settingsColumn('channel_info', 'json')]), 1_000));

      expect(rows.at(-1)?.values.id).toBe('9007199254740993');
      expect(JSON.parse(rows.at(-1)?.values.channel_info ?? 'null')).toMatchObject({ is_multi_key: true });
    } finally {
      await source.close();
    }
  });

  it('bounds an integer column that is text in a hand-made table', async () => {
    const database = await pg.createDatabase(
      undefined,
      `CREATE TABLE channels (id text, type text, "key" text, status text, base_url text, models text);
       INSERT INTO channels VALUES (repeat('9', 100), '1', 'sk-a', '1', '', 'm'), ('2', '1', 'sk-b', '1', '', 'm');`,
    );
    const source = await open(pg.dsn(database));
    try {
      const rows = await all(source.rows(await present(source), 1_000));

      expect(rows.map((r) => [r.values.id, r.oversize])).toEqual([
        ['2', []],
        [null, ['id']],
      ]);
    } finally {
      await source.close();
    }
  });
});

describe('the PostgreSQL source, one read-only snapshot', () => {
  it('counts and streams the table as it was when the source opened, and cannot write', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    const source = await open(pg.dsn(database));
    try {
      await source.columns();
      await pg.query(database, `DELETE FROM channels WHERE id > 5`);

      const count = await source.count();
      const rows = await all(source.rows(await present(source), 1_000));

      expect(count).toBe(20);
      expect(rows).toHaveLength(20);
    } finally {
      await source.close();
    }
  });

  it('finds no channels table in a database without one (an empty column set)', async () => {
    const database = await pg.createDatabase(undefined, 'CREATE TABLE other_table (id int)');
    const source = await open(pg.dsn(database));
    try {
      expect((await source.columns()).size).toBe(0);
    } finally {
      await source.close();
    }
  });
});

describe('the PostgreSQL source, failures (never the password, never the driver text)', () => {
  it('a wrong password is a 400 that says access was denied', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    const wrong = 'wrong-password-that-must-not-leak';

    const error = await failure(open(pg.dsn(database, { password: wrong })));

    expect([error.httpStatus, error.message]).toEqual([400, expect.stringMatching(/denied access/)]);
    expect(JSON.stringify([error.message, String(error.cause)])).not.toContain(wrong);
  });

  it('an unknown database is a 400 naming it', async () => {
    const error = await failure(open(pg.dsn('no_such_database')));

    expect([error.httpStatus, error.message]).toEqual([
      400,
      expect.stringMatching(/"no_such_database" does not exist/),
    ]);
  });

  it('a database the user may not connect to is a 400', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    await pg.query(database, `REVOKE CONNECT ON DATABASE "${database}" FROM ${pg.user}`);

    const error = await failure(open(pg.dsn(database)));

    expect([error.httpStatus, error.message]).toEqual([400, expect.stringMatching(/may not connect/)]);
  });

  it('a refused connection is a 502', async () => {
    const error = await failure(open(pg.dsn('legacy', { port: await freePort() })));

    expect([error.httpStatus, error.message]).toEqual([502, expect.stringMatching(/refused/)]);
  });

  it('sslmode=require against a server without TLS is a 400; sslmode=prefer falls back to plaintext', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);

    const error = await failure(open(pg.dsn(database, { params: 'sslmode=require' })));
    const source = await open(pg.dsn(database, { params: 'sslmode=prefer' }));
    const count = await source.count().finally(() => source.close());

    expect([error.httpStatus, error.message]).toEqual([400, expect.stringMatching(/offers no TLS.*sslmode=require/)]);
    expect(count).toBe(20);
  });

  it('at the deadline the read stops with the signal reason and the connection is closed', async () => {
    const database = await pg.createDatabase(undefined, LEGACY_PG);
    const proxy = await startStallingProxy(pg.port);
    const deadline = new AbortController();
    const reason = new Error('deadline');
    const source = await open(pg.dsn(database, { port: proxy.port }), { signal: deadline.signal });
    // A migration holds the table: the SELECT waits for the lock, as on a stuck server.
    const admin = await pg.connectAdmin(database);
    try {
      const select = await present(source);
      await admin.query('BEGIN; LOCK TABLE channels IN ACCESS EXCLUSIVE MODE');
      const pending = source.rows(select, 1_000)[Symbol.asyncIterator]().next();
      setTimeout(() => deadline.abort(reason), 100);

      await expect(pending).rejects.toBe(reason);
      await vi.waitFor(() => expect(proxy.openSockets()).toBe(0));
    } finally {
      await admin.end();
      await source.close();
      await proxy.close();
    }
  });
});

describe('a hostile PostgreSQL server', () => {
  it('that accepts the connection and never speaks is cut off by the DSN connect timeout (502)', async () => {
    const fake = await startFakePostgres({ kind: 'silent' });
    try {
      // The deadline is far away: a 504 here would mean the connect timeout did not fire.
      const error = await failure(
        open(`postgres://u:pw@127.0.0.1:${fake.port}/legacy?connect_timeout=1`, { deadlineAt: Date.now() + 60_000 }),
      );

      expect([error.httpStatus, error.message]).toEqual([502, expect.stringMatching(/timed out/)]);
    } finally {
      await fake.close();
    }
  });

  it('asking for the password in clear text over plaintext gets nothing and is a 502', async () => {
    const password = 'clear-text-password-that-must-not-cross-0123';
    const fake = await startFakePostgres({ kind: 'cleartext-password' });
    try {
      const error = await failure(open(`postgres://u:${password}@127.0.0.1:${fake.port}/legacy?sslmode=prefer`));

      expect([error.httpStatus, error.message]).toEqual([502, expect.stringMatching(/password in clear text/)]);
      expect(fake.clientData().length).toBeGreaterThan(0);
      expect(fake.clientData().includes(password)).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('sending a 300 MB row is refused from its header: a 502, and the client never buffers it', async () => {
    const bytes = 300 * 1024 * 1024;
    const fake = await startFakePostgres({
      kind: 'huge-row',
      bytes,
      columns: ['id', 'type', 'key', 'status', 'base_url', 'models'],
    });
    const source = await open(`postgres://u:pw@127.0.0.1:${fake.port}/legacy?sslmode=disable`);
    try {
      const select = await present(source);
      const rssBefore = process.memoryUsage().rss;

      const error = await failure(all(source.rows(select, 10)));

      expect([error.httpStatus, error.message]).toEqual([
        502,
        expect.stringMatching(/more data at once than the import accepts/),
      ]);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
      expect(fake.hugeBytesWritten()).toBeLessThan(bytes / 4);
    } finally {
      await source.close();
      await fake.close();
    }
  });
});

/** The MySQL form of a fixture read from MariaDB with the same columns, every value as text. */
async function readMariaDb(db: TestMariaDb, sql: string, columns: string[]): Promise<Record<string, string | null>[]> {
  const database = await db.createDatabase(undefined, sql);
  const connection = await mysql.createConnection({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database,
  });
  try {
    const select = columns.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(', ');
    const [rows] = await connection.query(`SELECT ${select} FROM channels ORDER BY channels.id`);
    return (rows as Record<string, string | null>[]).map((row) =>
      Object.fromEntries(
        columns.map((c) => [c, c === 'name' && row[c] ? [...row[c]].slice(0, 65).join('') : (row[c] ?? null)]),
      ),
    );
  } finally {
    await connection.end();
  }
}

/** JSON text compared by value: MySQL and PostgreSQL space JSON differently. */
function normaliseJson(values: Record<string, string | null>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      if (value === null || !/^[[{]/.test(value)) return [name, value];
      try {
        return [name, JSON.parse(value)];
      } catch {
        return [name, value];
      }
    }),
  );
}
