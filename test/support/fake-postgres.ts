import { type AddressInfo, createServer, type Socket } from 'node:net';

/** What a hostile fake PostgreSQL server saw a client do. */
export interface FakePostgres {
  readonly port: number;
  /** Every byte the clients sent, to look for a password. */
  clientData(): Buffer;
  /** Bytes of the huge row written so far (the server stops when the client goes away). */
  readonly hugeBytesWritten: () => number;
  close(): Promise<void>;
}

export type FakePostgresBehaviour =
  /** Accepts connections and never speaks. */
  | { kind: 'silent' }
  /** Asks for the password in clear text (AuthenticationCleartextPassword) right after the start-up message. */
  | { kind: 'cleartext-password' }
  /**
   * Lets the client in, answers the import's metadata queries for a `channels` table of `columns`, and answers
   * the cursor's first fetch with one DataRow that says it is `bytes` long, then streams that many bytes.
   */
  | { kind: 'huge-row'; bytes: number; columns: readonly string[] }
  /** Lets the client in and answers the column query (information_schema) with `rows` rows, as fast as read. */
  | { kind: 'metadata-flood'; rows: number; rowBytes: number };

/**
 * A fake PostgreSQL server on a random loopback port. It declines TLS ('N') and speaks just enough of the
 * protocol (start-up, simple queries, the extended protocol's Parse/Bind/Describe/Execute) for its behaviour.
 */
export async function startFakePostgres(behaviour: FakePostgresBehaviour): Promise<FakePostgres> {
  const sockets = new Set<Socket>();
  const received: Buffer[] = [];
  let hugeWritten = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (behaviour.kind === 'silent') return;
    let started = false;
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received.push(Buffer.from(chunk));
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!started) {
          if (buffered.length < 8) return;
          const length = buffered.readUInt32BE(0);
          if (buffered.length < length) return;
          const code = buffered.readUInt32BE(4);
          buffered = buffered.subarray(length);
          if (code === 80877103) {
            socket.write('N');
            continue;
          }
          started = true;
          if (behaviour.kind === 'cleartext-password') socket.write(message('R', int32(3)));
          else socket.write(Buffer.concat([message('R', int32(0)), message('Z', Buffer.from('I'))]));
          continue;
        }
        if (buffered.length < 5) return;
        const type = String.fromCharCode(buffered[0] ?? 0);
        const length = buffered.readUInt32BE(1);
        if (buffered.length < length + 1) return;
        const body = buffered.subarray(5, length + 1);
        buffered = buffered.subarray(length + 1);
        if (behaviour.kind === 'metadata-flood' && type === 'Q') {
          const sql = body.toString('utf8');
          if (sql.startsWith('BEGIN')) {
            socket.write(
              Buffer.concat([complete('BEGIN'), complete('SET'), complete('SET'), message('Z', Buffer.from('T'))]),
            );
          } else if (sql.includes('information_schema')) {
            socket.write(rowDescription(['schema', 'name']));
            floodRows(socket, behaviour.rows, dataRow(['public', 'c'.repeat(behaviour.rowBytes)]), (n) => {
              hugeWritten += n;
            });
            return;
          }
        }
        if (behaviour.kind === 'huge-row') {
          const done = answer(socket, type, body, behaviour, (n) => {
            hugeWritten += n;
          });
          if (done) return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    clientData: () => Buffer.concat(received),
    hugeBytesWritten: () => hugeWritten,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers one client message; true once the huge row is on its way (nothing more is read). */
function answer(
  socket: Socket,
  type: string,
  body: Buffer,
  behaviour: { bytes: number; columns: readonly string[] },
  wrote: (bytes: number) => void,
): boolean {
  if (type === 'Q') {
    const sql = body.toString('utf8');
    if (sql.startsWith('BEGIN')) {
      socket.write(
        Buffer.concat([complete('BEGIN'), complete('SET'), complete('SET'), message('Z', Buffer.from('T'))]),
      );
    } else if (sql.includes('information_schema')) {
      const rows = behaviour.columns.map((c) => dataRow(['public', c]));
      socket.write(
        Buffer.concat([
          rowDescription(['schema', 'name']),
          ...rows,
          complete(`SELECT ${rows.length}`),
          message('Z', Buffer.from('T')),
        ]),
      );
    } else {
      socket.write(
        Buffer.concat([rowDescription(['n']), dataRow(['1']), complete('SELECT 1'), message('Z', Buffer.from('T'))]),
      );
    }
  } else if (type === 'P') {
    socket.write(message('1', Buffer.alloc(0)));
  } else if (type === 'B') {
    socket.write(message('2', Buffer.alloc(0)));
  } else if (type === 'D') {
    socket.write(rowDescription(behaviour.columns));
  } else if (type === 'E') {
    // One column whose value claims `bytes`; the rest follows in chunks, as fast as the client takes them.
    const header = Buffer.concat([
      Buffer.from('D'),
      int32(4 + 2 + 4 + behaviour.bytes),
      int16(1),
      int32(behaviour.bytes),
    ]);
    socket.write(header);
    streamJunk(socket, behaviour.bytes, wrote);
    return true;
  }
  return false;
}

function streamJunk(socket: Socket, total: number, wrote: (bytes: number) => void): void {
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  let left = total;
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      wrote(piece.length);
      if (!socket.write(piece)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

/** `rows` copies of `row`, written as fast as the client reads them, until the client goes away. */
function floodRows(socket: Socket, rows: number, row: Buffer, wrote: (bytes: number) => void): void {
  const batch = Buffer.concat(Array.from({ length: 64 }, () => row));
  let left = rows;
  const pump = () => {
    while (left > 0 && !socket.destroyed) {
      left -= 64;
      wrote(batch.length);
      if (!socket.write(batch)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

function message(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
}

function complete(tag: string): Buffer {
  return message('C', Buffer.from(`${tag}\0`));
}

function rowDescription(names: readonly string[]): Buffer {
  const fields = names.map((name) =>
    // name, table oid, column number, type oid (25 = text), type size, type modifier, format (text)
    Buffer.concat([Buffer.from(`${name}\0`), int32(0), int16(0), int32(25), int16(-1), int32(-1), int16(0)]),
  );
  return message('T', Buffer.concat([int16(names.length), ...fields]));
}

function dataRow(values: readonly string[]): Buffer {
  const cells = values.map((v) => Buffer.concat([int32(Buffer.byteLength(v)), Buffer.from(v)]));
  return message('D', Buffer.concat([int16(values.length), ...cells]));
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}
