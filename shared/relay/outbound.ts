import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLinkLocalAddress, isLoopbackAddress } from '../address-rules.ts';
import type { AllowList } from '../allow-list.ts';

/*
 * The relay's only way out (docs/relay.md, "Outbound"). Every channel base URL is checked at send time: its host is
 * resolved here, link-local and metadata addresses are refused always, loopback unless the operator allow-lists the
 * host or address (RELAY_ALLOWED_HOSTS, e.g. a local Ollama), and the socket connects to the very address that was
 * checked (the `lookup` given to the request returns only it). Keep-alive agents; a timeout before the first byte;
 * the request's signal aborts the upstream request. A request whose reused keep-alive connection the upstream had
 * already closed is sent again on another one (docs/relay.md, "Outbound").
 */

export class RefusedAddressError extends Error {
  readonly code = 'refused-address';
}
export class FirstByteTimeoutError extends Error {
  readonly code = 'timeout';
}

/** A send that met a closed keep-alive connection (`cause`: the socket's error): sent again. */
class StaleConnection extends Error {
  constructor(override readonly cause: unknown) {
    super('the reused connection was closed by the upstream');
  }
}

export interface OutboundRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly signal: AbortSignal;
}

export interface OutboundOptions {
  readonly allowedHosts: AllowList;
  /** Milliseconds until the response head must arrive (default 60 s). */
  readonly firstByteTimeoutMs?: number;
  /** Resolves a host name to its addresses (tests resolve names to chosen addresses); default node:dns lookup. */
  readonly resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /**
   * Milliseconds an idle keep-alive connection is kept (default 30 s); shorter when the upstream's `Keep-Alive:
   * timeout=N` says it closes sooner (Node's agent then drops it a second before the upstream would).
   */
  readonly idleTimeoutMs?: number;
}

/**
 * Sends of one request when each found its reused connection already closed: an upstream closes an idle keep-alive
 * connection whenever it likes, and the request written to it is reset before the upstream reads it.
 */
const STALE_CONNECTION_ATTEMPTS = 3;

/**
 * Whether a request failed because its reused keep-alive connection was closed by the upstream while idle: reset or
 * ended before any answer (Node's `reusedSocket`, whose documentation gives this very case). Go's net/http transport,
 * which One API and New API relay through, sends such a request again too. A new connection that fails is an error.
 */
function staleConnection(req: http.ClientRequest, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

export interface Outbound {
  send(request: OutboundRequest): Promise<IncomingMessage>;
  close(): void;
}

const defaultResolve = (hostname: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/** Whether the relay may connect to `address` reached through `hostname`. */
export function addressAllowed(hostname: string, address: string, allowed: AllowList): boolean {
  if (isLinkLocalAddress(address)) return false;
  if (!isLoopbackAddress(address)) return true;
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  return allowed.hostNames.has(hostname.toLowerCase().replace(/\.$/, '')) || allowed.networks.check(address, family);
}

export function createOutbound(options: OutboundOptions): Outbound {
  const resolve = options.resolve ?? defaultResolve;
  const timeoutMs = options.firstByteTimeoutMs ?? 60_000;
  // The agents' `timeout` is what lets Node honour an upstream's Keep-Alive hint (it only ever shortens it); it expires
  // idle connections only: a request's own wait is the first-byte timeout below and the caller's signal.
  const idle = options.idleTimeoutMs ?? 30_000;
  const agents = {
    http: new http.Agent({ keepAlive: true, timeout: idle }),
    https: new https.Agent({ keepAlive: true, timeout: idle }),
  };

  /** Resolves and checks; the first allowed address, or a RefusedAddressError. */
  async function checkedAddress(hostname: string): Promise<LookupAddress> {
    const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    const addresses = isIP(literal) ? [{ address: literal, family: isIP(literal) }] : await resolve(literal);
    const allowed = addresses.find((a) => addressAllowed(literal, a.address, options.allowedHosts));
    if (!allowed) throw new RefusedAddressError(`the channel's host ${literal} resolves to a refused address`);
    return allowed;
  }

  return {
    async send(request) {
      const url = new URL(request.url);
      const isHttps = url.protocol === 'https:';
      if (!isHttps && url.protocol !== 'http:') throw new RefusedAddressError(`unsupported scheme ${url.protocol}`);
      const target = await checkedAddress(url.hostname);
      // The socket connects to the checked address whatever the agent asks (an IP literal skips lookup entirely).
      const lookup: LookupFunction = (_host, opts, callback) => {
        if (opts.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [target]);
        else callback(null, target.address, target.family);
      };
      const attempt = () =>
        new Promise<IncomingMessage>((resolvePromise, reject) => {
          const headers: Record<string, string> = { ...request.headers };
          headers['content-length'] = String(Buffer.byteLength(request.body));
          const req = (isHttps ? https : http).request(url, {
            method: 'POST',
            headers,
            agent: isHttps ? agents.https : agents.http,
            lookup,
            signal: request.signal,
            ...(isHttps ? { servername: isIP(url.hostname) ? undefined : url.hostname } : {}),
          });
          const timer = setTimeout(() => {
            req.destroy(new FirstByteTimeoutError(`no response within ${timeoutMs} ms`));
          }, timeoutMs);
          req.on('response', (res) => {
            clearTimeout(timer);
            resolvePromise(res);
          });
          req.on('error', (error) => {
            clearTimeout(timer);
            reject(staleConnection(req, error) && !request.signal.aborted ? new StaleConnection(error) : error);
          });
          req.end(request.body);
        });
      for (let sent = 1; ; sent++) {
        try {
          return await attempt();
        } catch (error) {
          if (!(error instanceof StaleConnection)) throw error;
          if (sent >= STALE_CONNECTION_ATTEMPTS) throw error.cause;
        }
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Reads at most `limit` bytes of a body (an upstream's error), then drops the rest. */
export async function readBounded(body: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      chunks.push(buffer.subarray(0, Math.max(0, limit - size)));
      size += buffer.length;
      if (size >= limit) break;
    }
  } catch {
    // A body cut short still says what it said so far.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}
