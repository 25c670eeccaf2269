import mysql from 'mysql2/promise';
import { createMariaDbProcess } from '#test/support/mariadb';

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

/** Starts a private mariadbd (docs/development.md allows MYSQL_URL instead, but an external server cannot be killed). */
export async function startKillableMariaDb(): Promise<KillableMariaDb> {
  const server = await createMariaDbProcess();
  try {
    await server.start();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    port: server.port,
    admin: () =>
      mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'root', multipleStatements: true }),
    kill: server.kill,
    // start() kills a running server first.
    restart: server.start,
    stop: server.stop,
  };
}
