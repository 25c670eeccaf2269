import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/** Capability flags of the fake server's greeting; it advertises LOCAL INFILE like any real server. */
const SERVER_CAPABILITIES = 0x1 | 0x2 | 0x4 | 0x8 | 0x80 | 0x200 | 0x2000 | 0x8000 | 0x10000 | 0x20000 | 0x80000;
/** CLIENT_LOCAL_FILES: a client sets it to say it may send local files. */
export const CLIENT_LOCAL_FILES = 0x80;

/** What a hostile fake server saw a client do. */
export interface FakeMySql {
  readonly port: number;
  /** Capability flags each client sent in its handshake response. */
  readonly clientFlags: number[];
  /** Payloads the client sent after the server asked it for a local file. */
  readonly afterFileRequest: Buffer[];
  /** Every payload the client sent (handshake response included), to look for a password. */
  readonly clientPayloads: Buffer[];
  /** Bytes of the huge row's payload, or of the metadata flood, written so far (it stops when the client goes away). */
  hugeBytesWritten(): number;
  close(): Promise<void>;
}

/**
 * `huge-row` lets the client in, answers the import's metadata queries for a `channels` table of `columns` (one row),
 * and answers the SELECT of the rows with a row whose first value says it is `bytes` long, sent as a chain of
 * 16 MiB packets for as long as the client reads. `rows` answers the metadata the same way and the SELECT with
 * `count` rows that `row` builds from the SELECT's column names (whatever a server chooses to send in them).
 */
export type FakeMySqlBehaviour =
  | { kind: 'silent' }
  | { kind: 'local-infile'; path: string }
  | { kind: 'clear-password' }
  | { kind: 'huge-row'; bytes: number; columns: readonly string[] }
  | {
      kind: 'rows';
      columns: readonly string[];
      count: number;
      row: (names: readonly string[], index: number) => readonly string[];
    }
  /** Answers the column query (information_schema) or the count with `rows` rows of `rowBytes` each, as fast as read. */
  | { kind: 'metadata-flood'; query: 'columns' | 'count'; rows: number; rowBytes: number; columns: readonly string[] }
  /** Answers the column query or the count with an error packet, its text naming the user and address. */
  | { kind: 'metadata-error'; query: 'columns' | 'count'; errno: number; columns: readonly string[] };

/**
 * A fake MySQL server on a random loopback port. `silent` accepts connections and never speaks;
 * `local-infile` completes the handshake, then answers the first query with a LOCAL INFILE request
 * for `path` (the 0xFB packet a malicious server sends to read the client's files); `clear-password`
 * answers the handshake with an authentication switch to mysql_clear_password (the password in clear).
 */
export async function startFakeMySql(behaviour: FakeMySqlBehaviour): Promise<FakeMySql> {
  let hugeWritten = 0;
  const sockets = new Set<Socket>();
  const clientFlags: number[] = [];
  const afterFileRequest: Buffer[] = [];
  const clientPayloads: Buffer[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (behaviour.kind === 'silent') return;

    let stage: 'auth' | 'query' | 'file' | 'done' = 'auth';
    socket.write(packet(0, greeting()));
    readPackets(socket, (seq, payload) => {
      clientPayloads.push(Buffer.from(payload));
      if (stage === 'auth' && behaviour.kind === 'clear-password') {
        clientFlags.push(payload.readUInt32LE(0));
        const authSwitch = [Buffer.from([0xfe]), Buffer.from('mysql_clear_password\0')];
        socket.write(packet(seq + 1, Buffer.concat(authSwitch)));
        stage = 'done';
      } else if (stage === 'auth') {
        clientFlags.push(payload.readUInt32LE(0));
        socket.write(packet(seq + 1, OK));
        stage = 'query';
      } else if (stage === 'query' && (behaviour.kind === 'metadata-flood' || behaviour.kind === 'metadata-error')) {
        if (payload[0] !== COM_QUERY) return;
        const sql = payload.subarray(1).toString('utf8');
        const asked = sql.includes('information_schema') ? 'columns' : /COUNT\(\*\)/i.test(sql) ? 'count' : undefined;
        if (asked === undefined) socket.write(packet(seq + 1, OK));
        else if (asked !== behaviour.query) {
          const rows = asked === 'columns' ? behaviour.columns.map((c) => [c]) : [['1']];
          socket.write(resultSet(seq + 1, [asked === 'columns' ? 'name' : 'n'], rows));
        } else if (behaviour.kind === 'metadata-error') {
          stage = 'done';
          socket.write(packet(seq + 1, errorPacket(behaviour.errno, "SELECT command denied to user 'u'@'10.1.2.3'")));
        } else {
          stage = 'done';
          floodRows(socket, seq + 1, asked === 'columns' ? 'name' : 'n', behaviour.rows, behaviour.rowBytes, (n) => {
            hugeWritten += n;
          });
        }
      } else if (stage === 'query' && (behaviour.kind === 'huge-row' || behaviour.kind === 'rows')) {
        if (payload[0] !== COM_QUERY) return;
        const sql = payload.subarray(1).toString('utf8');
        if (/^\s*(START|SET|ROLLBACK|COMMIT)/i.test(sql)) socket.write(packet(seq + 1, OK));
        else if (sql.includes('information_schema')) {
          socket.write(
            resultSet(
              seq + 1,
              ['name'],
              behaviour.columns.map((c) => [c]),
            ),
          );
        } else if (/COUNT\(\*\)/i.test(sql)) {
          const count = behaviour.kind === 'rows' ? behaviour.count : 1;
          socket.write(resultSet(seq + 1, ['n'], [[String(count)]]));
        } else {
          // The rows' SELECT: its result columns are the names after AS.
          const names = [...sql.matchAll(/ AS `([^`]+)`/g)].map((m) => m[1] as string);
          if (behaviour.kind === 'rows') {
            const rows = Array.from({ length: behaviour.count }, (_, index) => behaviour.row(names, index));
            socket.write(resultSet(seq + 1, names, rows));
            return;
          }
          stage = 'done';
          streamHugeRow(socket, seq + 1, names, behaviour.bytes, (n) => {
            hugeWritten += n;
          });
        }
      } else if (stage === 'query' && behaviour.kind === 'local-infile') {
        socket.write(packet(seq + 1, Buffer.concat([Buffer.from([0xfb]), Buffer.from(behaviour.path)])));
        stage = 'file';
      } else if (stage === 'file') {
        afterFileRequest.push(payload);
        // An empty packet ends the file; the server acknowledges it as a real one would.
        if (payload.length === 0) {
          socket.write(packet(seq + 1, OK));
          stage = 'done';
        }
      }
    });
  });
  const port = await listen(server);
  return {
    port,
    clientFlags,
    afterFileRequest,
    clientPayloads,
    hugeBytesWritten: () => hugeWritten,
    close: () => closeServer(server, sockets),
  };
}

const COM_QUERY = 0x03;
const MAX_PAYLOAD = 0xffffff;

/** A text-protocol result set (column count, definitions, EOF, rows, EOF) of string columns, from sequence `seq`. */
function resultSet(seq: number, names: readonly string[], rows: readonly (readonly string[])[]): Buffer {
  const out: Buffer[] = [];
  let n = seq;
  out.push(packet(n++, Buffer.from([names.length])));
  for (const name of names) out.push(packet(n++, columnDefinition(name)));
  out.push(packet(n++, EOF));
  for (const row of rows) out.push(packet(n++, Buffer.concat(row.map((v) => lengthEncoded(Buffer.from(v))))));
  out.push(packet(n++, EOF));
  return Buffer.concat(out);
}

/**
 * The rows' result set with one row whose first value announces `bytes` bytes: the definitions, then 16 MiB packets
 * of filler written as fast as the client reads them, until `bytes` are out or the client goes away.
 */
function streamHugeRow(
  socket: Socket,
  seq: number,
  names: readonly string[],
  bytes: number,
  wrote: (bytes: number) => void,
): void {
  let n = seq;
  const head: Buffer[] = [packet(n++, Buffer.from([names.length]))];
  for (const name of names) head.push(packet(n++, columnDefinition(name)));
  head.push(packet(n++, EOF));
  socket.write(Buffer.concat(head));
  // The row's payload: a length-encoded value of `bytes` bytes (0xfe + 8-byte length), then the filler.
  const prefix = Buffer.alloc(9);
  prefix[0] = 0xfe;
  prefix.writeBigUInt64LE(BigInt(bytes), 1);
  const filler = Buffer.alloc(64 * 1024, 0x61);
  let left = bytes + prefix.length;
  let inPacket = 0;
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      if (inPacket === 0) {
        const size = Math.min(MAX_PAYLOAD, left);
        const header = Buffer.alloc(4);
        header.writeUIntLE(size, 0, 3);
        header[3] = n++ & 0xff;
        socket.write(header);
        inPacket = size;
        if (left === bytes + prefix.length) {
          socket.write(prefix);
          left -= prefix.length;
          inPacket -= prefix.length;
          continue;
        }
      }
      const chunk = filler.subarray(0, Math.min(filler.length, inPacket));
      left -= chunk.length;
      inPacket -= chunk.length;
      wrote(chunk.length);
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

/** A result set of one column with `rows` rows of `rowBytes` bytes each, written as fast as the client reads them. */
function floodRows(
  socket: Socket,
  seq: number,
  name: string,
  rows: number,
  rowBytes: number,
  wrote: (bytes: number) => void,
): void {
  let n = seq;
  socket.write(Buffer.concat([packet(n++, Buffer.from([1])), packet(n++, columnDefinition(name)), packet(n++, EOF)]));
  const value = lengthEncoded(Buffer.alloc(rowBytes, 0x61));
  let left = rows;
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      // 64 rows a write: fewer calls, the same back-pressure.
      const batch: Buffer[] = [];
      for (let i = 0; i < 64 && left > 0; i++, left--) batch.push(packet(n++ & 0xff, value));
      const chunk = Buffer.concat(batch);
      wrote(chunk.length);
      if (!socket.write(chunk)) {
        socket.once('drain', pump);
        return;
      }
    }
    if (left === 0 && !socket.destroyed) socket.write(packet(n++ & 0xff, EOF));
  };
  pump();
}

/** An ERR packet: errno, SQL state 42000 and a message. */
function errorPacket(errno: number, message: string): Buffer {
  const head = Buffer.alloc(3);
  head[0] = 0xff;
  head.writeUInt16LE(errno, 1);
  return Buffer.concat([head, Buffer.from('#42000'), Buffer.from(message)]);
}

function columnDefinition(name: string): Buffer {
  const text = (v: string) => lengthEncoded(Buffer.from(v));
  const fixed = Buffer.alloc(13);
  fixed[0] = 0x0c;
  fixed.writeUInt16LE(45, 1); // utf8mb4_general_ci
  fixed.writeUInt32LE(1024 * 1024 * 1024, 3);
  fixed[7] = 0xfc; // MYSQL_TYPE_BLOB: LONGTEXT
  return Buffer.concat([
    text('def'),
    text('legacy'),
    text('channels'),
    text('channels'),
    text(name),
    text(name),
    fixed,
  ]);
}

function lengthEncoded(value: Buffer): Buffer {
  if (value.length < 251) return Buffer.concat([Buffer.from([value.length]), value]);
  const length = Buffer.alloc(9);
  length[0] = 0xfe;
  length.writeBigUInt64LE(BigInt(value.length), 1);
  return Buffer.concat([length, value]);
}

/** An EOF packet (the server advertises no CLIENT_DEPRECATE_EOF). */
const EOF = Buffer.from([0xfe, 0x00, 0x00, 0x02, 0x00]);

/** A TCP proxy in front of a real server that can stop passing the server's bytes mid-stream. */
export interface StallingProxy {
  readonly port: number;
  /** Bytes the server sent through the proxy, per connection, in connection order. */
  readonly serverBytes: number[];
  /** Everything the server sent through the proxy (all connections), to look for plaintext. */
  serverData(): Buffer;
  /** From now on, each new connection passes at most `bytes` server bytes, then holds the rest forever. */
  stallAfter(bytes: number | undefined): void;
  /** Client and upstream sockets still open. */
  openSockets(): number;
  close(): Promise<void>;
}

export async function startStallingProxy(targetPort: number): Promise<StallingProxy> {
  const sockets = new Set<Socket>();
  const serverBytes: number[] = [];
  const serverChunks: Buffer[] = [];
  let stallAt: number | undefined;
  const server = createServer((client) => {
    const limit = stallAt;
    const index = serverBytes.push(0) - 1;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => {
      const sent = serverBytes[index] ?? 0;
      const room = limit === undefined ? chunk.length : Math.max(0, limit - sent);
      if (room > 0) {
        client.write(chunk.subarray(0, room));
        serverChunks.push(Buffer.from(chunk.subarray(0, room)));
      }
      serverBytes[index] = sent + Math.min(room, chunk.length);
      // Past the limit the server's bytes are swallowed: to the client the server went silent mid-result.
    });
  });
  const port = await listen(server);
  return {
    port,
    serverBytes,
    serverData: () => Buffer.concat(serverChunks),
    stallAfter(bytes) {
      stallAt = bytes;
    },
    openSockets: () => sockets.size,
    close: () => closeServer(server, sockets),
  };
}

const OK = Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);

function greeting(): Buffer {
  const u16 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const scramble = randomBytes(20).map((b) => (b % 94) + 33);
  return Buffer.concat([
    Buffer.from([0x0a]),
    Buffer.from('8.0.99-fake\0'),
    u32(1),
    scramble.subarray(0, 8),
    Buffer.from([0]),
    u16(SERVER_CAPABILITIES & 0xffff),
    Buffer.from([45]),
    u16(0x0002),
    u16(SERVER_CAPABILITIES >>> 16),
    Buffer.from([21]),
    Buffer.alloc(10),
    scramble.subarray(8, 20),
    Buffer.from([0]),
    Buffer.from('mysql_native_password\0'),
  ]);
}

function packet(seq: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = seq & 0xff;
  return Buffer.concat([header, payload]);
}

function readPackets(socket: Socket, onPacket: (seq: number, payload: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const length = buffered.readUIntLE(0, 3);
      if (buffered.length < 4 + length) break;
      const seq = buffered[3] ?? 0;
      const payload = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      onPacket(seq, payload);
    }
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
