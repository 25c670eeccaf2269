import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callImport, expectError, expectReport, useImportHarness } from './import-http.helpers.ts';

// docs/channel-import.md, "DSN errors that say what to do": each mistake an operator makes with a DSN is answered
// with what it is and what to do, through HTTP.

const { db, server, channels } = useImportHarness();

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP server on 127.0.0.1 that does `onConnect` with each connection (and keeps it open). */
async function tcpServer(onConnect: (socket: Socket) => void): Promise<number> {
  const s = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onConnect(socket);
  });
  servers.push(s);
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  return (s.address() as { port: number }).port;
}

describe('a MySQL DSN at a server that does not speak MySQL', () => {
  it('fails within seconds, not at the 10 s connect timeout, when the server stays silent (PostgreSQL, HTTP)', async () => {
    const port = await tcpServer(() => {});
    const started = Date.now();

    const reply = await callImport(server, { json: { dsn: `app:pw@tcp(127.0.0.1:${port})/oneapi`, dryRun: true } });

    expectError(
      reply,
      400,
      /^The server at the DSN's address does not speak MySQL \(it accepted the connection but sent no MySQL greeting within 4 s\): check the host and port, or write a postgres:\/\/ DSN/,
    );
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('fails at once when the server greets with something else (an SSH server)', async () => {
    const port = await tcpServer((socket) => socket.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n'));
    const started = Date.now();

    const reply = await callImport(server, { json: { dsn: `app:pw@tcp(127.0.0.1:${port})/oneapi`, dryRun: true } });

    expectError(reply, 400, /does not speak MySQL \(it answered with something other than a MySQL greeting\)/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('a SQLite path pasted as a DSN', () => {
  it('points to the file import in the console and the CLI', async () => {
    const reply = await callImport(server, { json: { dsn: '/opt/one-api/data/one-api.db', dryRun: true } });

    expectError(reply, 400, /SQLite file's path, not a database server: import the file itself instead/);
    expect((reply.body as { message: string }).message).toContain('npm run --silent import:sqlite');
  });
});

describe('an empty channels table', () => {
  it('answers 200 with every count 0 and a note saying the table holds no rows', async () => {
    const database = await db.createDatabase(
      undefined,
      `CREATE TABLE channels (id bigint PRIMARY KEY, type bigint, \`key\` longtext NOT NULL, status bigint,
         name varchar(191), base_url varchar(191) DEFAULT '', models longtext);`,
    );
    await channels.clear();

    const report = expectReport(await callImport(server, { json: { dsn: db.dsn(database), dryRun: true } }));

    expect(report.source.rows).toBe(0);
    expect(report.notes).toEqual([
      `The channels table of the database ${JSON.stringify(database)} holds no rows: nothing to import. Check that the DSN names the database the gateway uses (its SQL_DSN).`,
    ]);
  });
});
