import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, chmod, chown, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, type ServerTls, serverLogin, type TestDatabaseServer } from './mariadb.ts';

const run = promisify(execFile);

/** A PostgreSQL server for one test file; its importer user is a login role. */
export interface TestPostgres extends TestDatabaseServer {
  /** Runs trusted test SQL as the administrative user in `database` (several statements allowed). */
  query(database: string, sql: string): Promise<void>;
  /** An open administrative connection to `database` (for a test that holds a lock or a transaction); end it. */
  connectAdmin(database: string): Promise<pg.Client>;
  /** A `postgres://` DSN for the importer user, e.g. `postgres://user:pw@127.0.0.1:port/db?sslmode=disable`. */
  dsn(database: string, options?: { user?: string; password?: string; params?: string; port?: number }): string;
}

/** The Debian package's binaries, which are not on PATH. */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

const INSTALL_HINT =
  'PostgreSQL tests need a server: set PG_URL=postgres://postgres:pw@127.0.0.1:5432/postgres ' +
  `or install the server binaries (Debian/Ubuntu: apt-get install -y postgresql; expected in ${POSTGRES_BIN}).`;

interface AdminEndpoint {
  /** Connection options of the administrative user, without a database. */
  readonly admin: Omit<pg.ClientConfig, 'database'>;
  readonly host: string;
  readonly port: number;
  readonly pid: number | undefined;
  shutdown(): Promise<void>;
}

/**
 * Uses PG_URL when set, otherwise starts a throwaway cluster (initdb, pg_ctl) on a free loopback port. A server
 * with `tls` or `hba` (pg_hba.conf lines placed before the default ones) is always a throwaway one: an external
 * server's set-up is unknown.
 */
export async function startPostgres(options: { tls?: ServerTls; hba?: readonly string[] } = {}): Promise<TestPostgres> {
  const external = process.env.PG_URL;
  if (external && !options.tls && !options.hba) {
    const url = new URL(external);
    const port = Number(url.port || 5432);
    return prepare({
      admin: {
        host: url.hostname,
        port,
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      },
      host: url.hostname,
      port,
      pid: undefined,
      shutdown: async () => {},
    });
  }
  return prepare(await startCluster(options.tls, options.hba ?? []));
}

async function prepare(endpoint: AdminEndpoint): Promise<TestPostgres> {
  const adminOf = (database: string) => new pg.Client({ ...endpoint.admin, database });
  const suffix = randomBytes(4).toString('hex');
  const user = `importer_${suffix}`;
  const password = `p@ss:w/rd(${suffix})`;
  const databases: string[] = [];
  const runSql = async (database: string, sql: string) => {
    const client = adminOf(database);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await runSql('postgres', `CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);

  return {
    ...serverLogin(endpoint, user, password),
    async createDatabase(name, fixtureSql) {
      const database = name ?? `legacygw_${randomBytes(6).toString('hex')}`;
      await runSql('postgres', `CREATE DATABASE "${database}" ENCODING 'UTF8' TEMPLATE template0`);
      databases.push(database);
      await runSql(
        database,
        `${fixtureSql ?? ''};
         REVOKE ALL ON DATABASE "${database}" FROM PUBLIC;
         GRANT CONNECT ON DATABASE "${database}" TO ${user};
         GRANT USAGE ON SCHEMA public TO ${user};
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${user};`,
      );
      return database;
    },
    query: runSql,
    async connectAdmin(database) {
      const client = adminOf(database);
      await client.connect();
      return client;
    },
    dsn(database, options = {}) {
      const params = options.params ? `?${options.params}` : '';
      const userInfo = `${encodeURIComponent(options.user ?? user)}:${encodeURIComponent(options.password ?? password)}`;
      return `postgres://${userInfo}@${endpoint.host}:${options.port ?? endpoint.port}/${database}${params}`;
    },
    async stop() {
      try {
        if (endpoint.pid === undefined) {
          for (const database of databases)
            await runSql('postgres', `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
          await runSql('postgres', `DROP ROLE IF EXISTS ${user}`);
        }
      } finally {
        await endpoint.shutdown();
      }
    },
  };
}

/**
 * A private cluster: its own directory (owned by the `postgres` account when run as root, since PostgreSQL refuses
 * to run as root), a loopback port, and a unix socket in the directory. Local socket logins are trusted (the
 * tests' administrator); TCP logins need a password (SCRAM), so a wrong password fails as it does in production.
 */
async function startCluster(tls: ServerTls | undefined, hba: readonly string[]): Promise<AdminEndpoint> {
  const initdb = join(POSTGRES_BIN, 'initdb');
  const pgCtl = join(POSTGRES_BIN, 'pg_ctl');
  try {
    await access(initdb);
    await access(pgCtl);
  } catch {
    throw new Error(INSTALL_HINT);
  }
  const dir = await mkdtemp(join(tmpdir(), 'postgres-test-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  if (asRoot) {
    owner = await accountIds('postgres');
    await chown(dir, owner.uid, owner.gid);
  }
  const as = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);

  try {
    await as(initdb, [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(e as Error).message}`);
  }
  const settings = [
    // Small footprint and no durability: several test files may run a server at once on a shared machine.
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    'shared_buffers = 16MB',
    'max_connections = 30',
    "listen_addresses = '127.0.0.1'",
  ];
  if (tls) {
    // The server reads its key only when it is private to its owner.
    for (const [from, to] of [
      [tls.certFile, 'server.crt'],
      [tls.keyFile, 'server.key'],
    ] as const) {
      await copyFile(from, join(dir, to));
      await chmod(join(dir, to), 0o600);
      if (owner) await chown(join(dir, to), owner.uid, owner.gid);
    }
    settings.push(
      'ssl = on',
      `ssl_cert_file = '${join(dir, 'server.crt')}'`,
      `ssl_key_file = '${join(dir, 'server.key')}'`,
    );
  }
  const conf = join(data, 'postgresql.conf');
  await writeFile(conf, `${await readFile(conf, 'utf8')}\n${settings.join('\n')}\n`);
  // The first matching line decides, so the test's own lines go first.
  const hbaFile = join(data, 'pg_hba.conf');
  await writeFile(hbaFile, `${hba.join('\n')}\n${await readFile(hbaFile, 'utf8')}`);

  const port = await freePort();
  const stop = async () => {
    try {
      await as(pgCtl, ['-D', data, '-m', 'immediate', 'stop']);
    } catch {
      // Already stopped (or never started): the directory goes either way.
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await as(pgCtl, ['-D', data, '-o', `-p ${port} -k ${dir}`, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  } catch (e) {
    const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
    await stop();
    throw new Error(`pg_ctl start failed: ${(e as Error).message}\n${log.slice(-2000)}`);
  }
  const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return {
    admin: { host: dir, port, user: 'postgres' },
    host: '127.0.0.1',
    port,
    pid,
    shutdown: stop,
  };
}

async function accountIds(name: string): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
