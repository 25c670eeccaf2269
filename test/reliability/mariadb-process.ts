import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from '#test/support/mariadb';

const run = promisify(execFile);

/** A throwaway mariadbd this test may kill with SIGKILL and start again on the same data and port. */
export interface KillableMariaDb {
  readonly port: number;
  /** Root over TCP from 127.0.0.1 (no password on a fresh install). */
  admin(): Promise<mysql.Connection>;
  /** SIGKILL: no shutdown, no flush, sockets reset by the kernel. */
  kill(): Promise<void>;
  /** Starts mariadbd again on the same data directory and port (crash recovery included); kills it first if running. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function which(command: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('sh', ['-c', `command -v "${command}"`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Installs and starts a private mariadbd (SPEC 8 allows MYSQL_URL instead, but an external server cannot be killed). */
export async function startKillableMariaDb(): Promise<KillableMariaDb> {
  const installDb = await which('mariadb-install-db');
  const mariadbd = (await which('mariadbd')) ?? (await which('/usr/sbin/mariadbd'));
  if (!installDb || !mariadbd) {
    throw new Error(
      'This test kills a MariaDB server: install the MariaDB server binaries (apt-get install -y mariadb-server).',
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'mariadb-kill-'));
  const datadir = join(dir, 'data');
  // A private tmpdir: at start-up mariadbd deletes every leftover #sql file in its tmpdir, which breaks any other
  // instance bootstrapping or running in a shared /tmp at the same moment.
  const tmp = `--tmpdir=${dir}`;
  await run(installDb, [
    '--no-defaults',
    '--user=root',
    `--datadir=${datadir}`,
    tmp,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ]);
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const process = spawn(
      mariadbd,
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${datadir}`,
        tmp,
        `--socket=${join(dir, 'sock')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        '--performance-schema=OFF',
      ],
      { stdio: 'ignore' },
    );
    child = process;
    for (let attempt = 0; attempt < 300; attempt++) {
      if (process.exitCode !== null) throw new Error('mariadbd exited during start-up');
      try {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        await connection.end();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error('mariadbd did not become ready');
  };

  const kill = async () => {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGKILL');
    await exited;
  };

  try {
    await start();
  } catch (error) {
    await kill();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    admin: () => mysql.createConnection({ host: '127.0.0.1', port, user: 'root', multipleStatements: true }),
    kill,
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
