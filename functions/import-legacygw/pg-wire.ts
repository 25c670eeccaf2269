import { type Socket, connect as tcpConnect } from 'node:net';
import { Duplex } from 'node:stream';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import type { PostgresDsn } from './dsn.ts';
import type { ResolvedTarget } from './target.ts';

/*
 * The socket node-postgres talks through (docs/channel-import.md, "PostgreSQL"). It connects to the checked
 * address, negotiates TLS itself (so the trust rules are ours, not the driver's), and reads every message
 * header the server sends before the driver sees it: node-postgres buffers a whole message, however large the
 * server says it is, so a hostile server's 300 MB row would otherwise land in the function's memory.
 */

/** What the server may send before the client speaks again. */
export interface WireLimits {
  /** Largest single protocol message (a row is one message). */
  readonly maxMessageBytes: number;
  /** Most bytes in answer to one request (the client's last write). */
  readonly maxResponseBytes: number;
}

/** Limits for the start-up and the metadata queries: their messages are small. */
export const SMALL_WIRE_LIMITS: WireLimits = { maxMessageBytes: 1024 * 1024, maxResponseBytes: 8 * 1024 * 1024 };

/** Why the wire refused the server; rewritten into the import's own 502 message. */
export class PgWireError extends Error {
  constructor(
    readonly problem: 'no-tls' | 'cleartext-password' | 'oversize' | 'tls-injection' | 'bad-ssl-answer',
    message: string,
  ) {
    super(message);
    this.name = 'PgWireError';
  }
}

/** How to speak TLS, from the DSN's sslmode; `ca` is used by the verifying modes. */
export interface WireTls {
  readonly mode: PostgresDsn['sslmode'];
  readonly ca: readonly string[];
  /** The DSN's host: the name a verify-full certificate must carry (and the SNI when it is a name). */
  readonly host: string;
}

// SSLRequest: length 8, code 80877103.
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const AUTHENTICATION = 0x52; // 'R'
const AUTH_CLEARTEXT_PASSWORD = 3;
const HEADER_BYTES = 5;

/**
 * A Duplex with the parts of net.Socket node-postgres uses (`connect`, `setNoDelay`, `setKeepAlive`, `ref`,
 * `unref`). Its `connect` ignores the driver's host and port: it opens `target` and, for every sslmode but
 * `disable`, negotiates TLS before it reports 'connect'.
 */
export class PgWire extends Duplex {
  /** The limits in force; the source widens them for the row stream. */
  limits: WireLimits = SMALL_WIRE_LIMITS;
  /** Whether the connection ended up encrypted, and whether the server's certificate was verified. */
  encrypted = false;
  verified = false;
  private socket: Socket | undefined;
  private inner: Socket | TLSSocket | undefined;
  private header = Buffer.alloc(0);
  /** Body bytes of the current message still to come. */
  private remaining = 0;
  private sinceWrite = 0;

  constructor(
    private readonly target: ResolvedTarget,
    private readonly port: number,
    private readonly tls: WireTls,
  ) {
    super();
  }

  connect(): this {
    const socket = tcpConnect({ host: this.target.address, port: this.port, family: this.target.family });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('error', (e) => this.destroy(e));
    socket.once('connect', () => {
      if (this.tls.mode === 'disable') this.attach(socket);
      else this.negotiateTls(socket);
    });
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    this.socket?.ref();
    return this;
  }

  unref(): this {
    this.socket?.unref();
    return this;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // Whatever the server sends next answers this request.
    this.sinceWrite = 0;
    if (!this.inner) {
      callback(new Error('PostgreSQL connection is not open'));
      return;
    }
    this.inner.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.inner) this.inner.end(callback);
    else callback();
  }

  override _read(): void {
    // The driver reads in flowing mode and never pauses; the limits bound what it can be handed.
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner?.destroy();
    this.socket?.destroy();
    callback(error);
  }

  private negotiateTls(socket: Socket): void {
    socket.write(SSL_REQUEST);
    socket.once('data', (answer: Buffer) => {
      const code = answer[0];
      if (code === 0x53 /* S */) {
        // Bytes after the 'S' were sent before TLS started: a man in the middle injecting them (CVE-2021-23222).
        if (answer.length > 1) {
          this.destroy(new PgWireError('tls-injection', 'unencrypted data after the TLS answer'));
          return;
        }
        this.startTls(socket);
      } else if (code === 0x4e /* N */ && answer.length === 1) {
        if (this.tls.mode === 'prefer') this.attach(socket);
        else this.destroy(new PgWireError('no-tls', 'the server offers no TLS'));
      } else {
        this.destroy(new PgWireError('bad-ssl-answer', 'the server did not answer the TLS request'));
      }
    });
  }

  private startTls(socket: Socket): void {
    const verify = this.tls.mode === 'verify-ca' || this.tls.mode === 'verify-full';
    const tls = tlsConnect({
      socket,
      minVersion: 'TLSv1.2',
      rejectUnauthorized: verify,
      ...(verify ? { ca: [...this.tls.ca] } : {}),
      // verify-ca trusts any name on a certificate from a trusted CA, as libpq does.
      ...(this.tls.mode === 'verify-full' ? { host: this.tls.host } : { checkServerIdentity: () => undefined }),
      // SNI carries names only (RFC 6066).
      ...(/^[\d.]+$|:/.test(this.tls.host) ? {} : { servername: this.tls.host }),
    });
    tls.on('error', (e) => this.destroy(e));
    tls.once('secureConnect', () => {
      this.encrypted = true;
      this.verified = verify;
      this.attach(tls);
    });
  }

  private attach(inner: Socket | TLSSocket): void {
    this.inner = inner;
    inner.on('data', (chunk: Buffer) => {
      const refusal = this.inspect(chunk);
      if (refusal) this.destroy(refusal);
      else this.push(chunk);
    });
    inner.once('end', () => this.push(null));
    inner.once('close', () => this.destroy());
    this.emit('connect');
  }

  /** Walks the message headers in `chunk`; returns why the server is refused, if it is. */
  private inspect(chunk: Buffer): PgWireError | undefined {
    this.sinceWrite += chunk.length;
    if (this.sinceWrite > this.limits.maxResponseBytes) {
      return new PgWireError('oversize', `the server sent more than ${this.limits.maxResponseBytes} bytes at once`);
    }
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - offset);
        this.remaining -= take;
        offset += take;
        continue;
      }
      // A header (and, for an authentication request, its 4-byte code) may straddle chunks.
      const want = this.header[0] === AUTHENTICATION ? HEADER_BYTES + 4 : HEADER_BYTES;
      const take = Math.min(want - this.header.length, chunk.length - offset);
      this.header = Buffer.concat([this.header, chunk.subarray(offset, offset + take)]);
      offset += take;
      if (this.header.length < HEADER_BYTES) continue;
      const length = this.header.readUInt32BE(1);
      if (length < 4 || length - 4 > this.limits.maxMessageBytes) {
        return new PgWireError('oversize', `the server sent a message of ${length} bytes`);
      }
      if (this.header[0] === AUTHENTICATION && length >= 8) {
        if (this.header.length < HEADER_BYTES + 4) continue;
        // Sending the password in clear is acceptable only to a server whose certificate was verified.
        if (this.header.readUInt32BE(HEADER_BYTES) === AUTH_CLEARTEXT_PASSWORD && !this.verified) {
          return new PgWireError('cleartext-password', 'the server asked for the password in clear text');
        }
        this.remaining = length - 8;
      } else {
        this.remaining = length - 4 - (this.header.length - HEADER_BYTES);
      }
      this.header = Buffer.alloc(0);
    }
    return undefined;
  }
}
