import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';

const run = promisify(execFile);

/** A database server for one test file (MariaDB or PostgreSQL): its own databases and an unprivileged importer user. */
export interface TestDatabaseServer {
  readonly host: string;
  readonly port: number;
  /** A login that may only connect to and SELECT in databases made by `createDatabase`. */
  readonly user: string;
  /** Contains `@ : / ( )` on purpose, to exercise the DSN grammar (a URL must percent-encode it). */
  readonly password: string;
  /** Pid of the throwaway server; undefined when MYSQL_URL or PG_URL points at an external one. */
  readonly pid: number | undefined;
  /** Creates a fresh database (unique name unless given), loads `fixtureSql` into it, grants the user SELECT. */
  createDatabase(name?: string, fixtureSql?: string): Promise<string>;
  stop(): Promise<void>;
}

/** Where a test database server listens and the importer's login on it. */
export function serverLogin(
  endpoint: { host: string; port: number; pid: number | undefined },
  user: string,
  password: string,
): Pick<TestDatabaseServer, 'host' | 'port' | 'user' | 'password' | 'pid'> {
  return { host: endpoint.host, port: endpoint.port, user, password, pid: endpoint.pid };
}

/** A MySQL-compatible server for one test file. */
export interface TestMariaDb extends TestDatabaseServer {
  /** Runs trusted test SQL as the administrative user (several statements allowed). */
  query(sql: string, values?: unknown[]): Promise<unknown>;
  /** A Go-style DSN for the importer user, e.g. `user:pw@tcp(127.0.0.1:port)/db?timeout=2s`. */
  dsn(database: string, options?: { user?: string; password?: string; params?: string }): string;
}

const INSTALL_HINT =
  'Integration tests need a MySQL-compatible server: set MYSQL_URL=mysql://root:pw@127.0.0.1:3306 ' +
  'or install the MariaDB server binaries (Debian/Ubuntu: apt-get install -y mariadb-server).';

/** PEM files for a server that offers TLS. */
export interface ServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
}

/**
 * Uses MYSQL_URL when set, otherwise starts a throwaway mariadbd on a free loopback port. A server
 * with `tls` is always a throwaway one: an external server's TLS setup is unknown.
 */
export async function startMariaDb(options: { tls?: ServerTls } = {}): Promise<TestMariaDb> {
  const external = process.env.MYSQL_URL;
  if (external && !options.tls) {
    const url = new URL(external);
    return prepare({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      pid: undefined,
      shutdown: async () => {},
    });
  }
  return prepare(await startThrowawayServer(options.tls));
}

interface AdminEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  pid: number | undefined;
  shutdown(): Promise<void>;
}

async function prepare(endpoint: AdminEndpoint): Promise<TestMariaDb> {
  const admin = await mysql.createConnection({
    host: endpoint.host,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    // Trusted fixture SQL only; the importer itself never enables this.
    multipleStatements: true,
  });
  const suffix = randomBytes(4).toString('hex');
  const user = `importer_${suffix}`;
  const password = `p@ss:w/rd(${suffix})`;
  await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
  const databases: string[] = [];

  return {
    ...serverLogin(endpoint, user, password),
    async createDatabase(name, fixtureSql) {
      const database = name ?? `legacygw_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
      databases.push(database);
      await admin.query('GRANT SELECT ON ??.* TO ?@?', [database, user, '%']);
      if (fixtureSql) {
        await admin.changeUser({ database });
        await admin.query(fixtureSql);
      }
      return database;
    },
    async query(sql, values) {
      const [result] = await admin.query(sql, values);
      return result;
    },
    dsn(database, options = {}) {
      const params = options.params ? `?${options.params}` : '';
      return `${options.user ?? user}:${options.password ?? password}@tcp(${endpoint.host}:${endpoint.port})/${database}${params}`;
    },
    async stop() {
      try {
        if (endpoint.pid === undefined) {
          for (const database of databases) await admin.query('DROP DATABASE IF EXISTS ??', [database]);
          await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
        }
        await admin.end();
      } finally {
        await endpoint.shutdown();
      }
    },
  };
}

async function startThrowawayServer(tls: ServerTls | undefined): Promise<AdminEndpoint> {
  const server = await createMariaDbProcess(tls);
  try {
    await server.start();
  } catch (e) {
    await server.stop();
    throw e;
  }
  // Root on a fresh install has no password; TCP logins as root work from 127.0.0.1.
  return { host: '127.0.0.1', port: server.port, user: 'root', password: '', pid: server.pid, shutdown: server.stop };
}

/** A private mariadbd: its own data directory, temp directory and loopback port. */
export interface MariaDbProcess {
  readonly port: number;
  /** Pid of the running server, if any. */
  readonly pid: number | undefined;
  /** Starts mariadbd on the data directory (again, after a kill: crash recovery included) and waits until it answers. */
  start(): Promise<void>;
  /** SIGKILL (after SIGCONT: a test may have paused it with SIGSTOP); resolves once it has exited. */
  kill(): Promise<void>;
  /** Kills it and removes its directory. */
  stop(): Promise<void>;
}

/** Installs a fresh data directory for a throwaway mariadbd; call `start()` to run it. */
export async function createMariaDbProcess(tls?: ServerTls): Promise<MariaDbProcess> {
  const installDb = await which('mariadb-install-db');
  const mariadbd = (await which('mariadbd')) ?? (await which('/usr/sbin/mariadbd'));
  if (!installDb || !mariadbd) throw new Error(INSTALL_HINT);

  const dir = await mkdtemp(join(tmpdir(), 'mariadb-test-'));
  const datadir = join(dir, 'data');
  // A private temp dir: at start-up mariadbd deletes every #sql* file in its tmpdir, which breaks any
  // other server bootstrapping or running in a shared /tmp at the same moment.
  const serverTmp = join(dir, 'tmp');
  await mkdir(serverTmp);
  const serverEnv = { ...process.env, TMPDIR: serverTmp };
  try {
    await run(
      installDb,
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { env: serverEnv },
    );
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed: ${(e as Error).message}`);
  }

  const port = await freePort();
  const socket = join(dir, 'sock');
  let child: ChildProcess | undefined;

  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGCONT');
    current.kill('SIGKILL');
    await exited;
  };

  return {
    port,
    get pid() {
      return child?.pid;
    },
    async start() {
      await kill();
      const server = spawn(
        mariadbd,
        [
          '--no-defaults',
          '--user=root',
          `--datadir=${datadir}`,
          `--socket=${socket}`,
          `--port=${port}`,
          '--bind-address=127.0.0.1',
          '--skip-name-resolve',
          '--skip-log-bin',
          // Small footprint: several test files may run a server at once on a shared machine.
          '--innodb-buffer-pool-size=32M',
          '--performance-schema=OFF',
          `--pid-file=${join(dir, 'pid')}`,
          `--tmpdir=${serverTmp}`,
          ...(tls ? [`--ssl-cert=${tls.certFile}`, `--ssl-key=${tls.keyFile}`, `--ssl-ca=${tls.caFile}`] : []),
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], env: serverEnv },
      );
      child = server;
      let stderr = '';
      server.stderr?.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      await waitUntilReady(server, socket, () => stderr);
    },
    kill,
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilReady(child: ChildProcess, socket: string, stderr: () => string): Promise<void> {
  const admin = (await which('mariadb-admin')) ?? (await which('mysqladmin'));
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`mariadbd exited early:\n${stderr()}`);
    try {
      if (admin) await run(admin, ['--no-defaults', `--socket=${socket}`, '-uroot', 'ping']);
      else await pingOverSocket(socket);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`mariadbd did not become ready:\n${stderr()}`);
}

async function pingOverSocket(socketPath: string): Promise<void> {
  const conn = await mysql.createConnection({ socketPath, user: 'root' });
  await conn.end();
}

async function which(command: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('sh', ['-c', `command -v "${command}"`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
