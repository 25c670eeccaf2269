import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { AllowList } from '../../allow-list.ts';
import { addressAllowed } from '../../relay/outbound.ts';
import { SourceError } from '../contract.ts';

/*
 * A link collection's page, fetched server-side (docs/knowledge-base-sources.md, "Links"), under the DSN's address
 * rules as the relay applies them (shared/relay/outbound.ts): the host is resolved here, a link-local or metadata
 * address is refused always, a loopback one unless LINK_ALLOWED_HOSTS lists the host or address, and the socket connects
 * to the very address that was checked. `http`/`https` only; at most 5 redirects, each target checked again; the body
 * is cut at a size cap (counted after decompression) and the whole fetch at a deadline.
 */

export const LINK_LIMITS = Object.freeze({
  /** Bytes of a page, after decompression. */
  maxBytes: 5 * 1024 * 1024,
  /** Milliseconds for the whole fetch, redirects included. */
  timeoutMs: 15_000,
  maxRedirects: 5,
});

export interface LinkFetchOptions {
  readonly allowedHosts: AllowList;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
  /** Resolves a host name (tests map names to chosen addresses); default node:dns lookup. */
  readonly resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface FetchedPage {
  /** The address after redirects. */
  readonly url: string;
  /** The media type, lower case, without parameters (`text/html`). */
  readonly mediaType: string;
  readonly charset?: string;
  readonly body: Buffer;
}

const defaultResolve = (hostname: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/** Parses and checks a link as a user typed it: an absolute http(s) URL without credentials. */
export function parseLink(link: string): URL {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    throw new SourceError('the link is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SourceError(`the link's scheme ${url.protocol.replace(/:$/, '')} is not allowed: use http or https`);
  }
  if (url.username || url.password) throw new SourceError('the link may not carry a user name or password');
  return url;
}

async function checkedAddress(hostname: string, options: LinkFetchOptions): Promise<LookupAddress> {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: LookupAddress[];
  if (isIP(literal)) addresses = [{ address: literal, family: isIP(literal) }];
  else {
    try {
      addresses = await (options.resolve ?? defaultResolve)(literal);
    } catch {
      throw new SourceError(`the link's host ${literal} could not be resolved`);
    }
  }
  const allowed = addresses.find((a) => addressAllowed(literal, a.address, options.allowedHosts));
  if (!allowed) {
    throw new SourceError(
      `the link's host ${literal} resolves to a refused address (link-local, metadata or loopback; see LINK_ALLOWED_HOSTS)`,
    );
  }
  return allowed;
}

function request(url: URL, target: LookupAddress, signal: AbortSignal): Promise<IncomingMessage> {
  const isHttps = url.protocol === 'https:';
  // The socket connects to the checked address whatever the agent asks (an IP literal skips lookup entirely).
  const lookup: LookupFunction = (_host, opts, callback) => {
    if (opts.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve, reject) => {
    const req = (isHttps ? https : http).request(url, {
      method: 'GET',
      headers: {
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.1',
        'accept-encoding': 'gzip, deflate, br',
        'user-agent': 'Mozilla/5.0 (compatible; kb-channel-gateway link reader)',
      },
      agent: false,
      lookup,
      signal,
      ...(isHttps ? { servername: isIP(url.hostname) ? undefined : url.hostname } : {}),
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readCapped(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new SourceError(`the page is larger than ${Math.floor(maxBytes / 1024 / 1024)} MB`);
  }
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  const stream = decoder ? response.pipe(decoder) : response;
  if (decoder) response.on('error', (error) => decoder.destroy(error));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      // Counted after decompression, so a small compressed bomb is cut as early as a large plain page.
      if (size > maxBytes) throw new SourceError(`the page is larger than ${Math.floor(maxBytes / 1024 / 1024)} MB`);
      chunks.push(chunk as Buffer);
    }
  } finally {
    response.destroy();
    decoder?.destroy();
  }
  return Buffer.concat(chunks);
}

/** Fetches a page under the link rules; throws SourceError with a message the user can act on. */
export async function fetchLink(link: string, options: LinkFetchOptions): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? LINK_LIMITS.maxBytes;
  const timeoutMs = options.timeoutMs ?? LINK_LIMITS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? LINK_LIMITS.maxRedirects;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let url = parseLink(link);
  try {
    for (let redirects = 0; ; redirects++) {
      const target = await checkedAddress(url.hostname, options);
      const response = await request(url, target, controller.signal);
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) throw new SourceError(`the page answered ${status} without a Location`);
        if (redirects >= maxRedirects) throw new SourceError(`the link redirects more than ${maxRedirects} times`);
        url = parseLink(new URL(location, url).toString());
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new SourceError(`the page answered HTTP ${status}`);
      }
      const [mediaType = '', ...parameters] = String(response.headers['content-type'] ?? '').split(';');
      const charset = parameters
        .map((p) => p.trim().split('='))
        .find(([key]) => key?.toLowerCase() === 'charset')?.[1]
        ?.replace(/"/g, '');
      const body = await readCapped(response, maxBytes);
      return { url: url.toString(), mediaType: mediaType.trim().toLowerCase(), body, ...(charset ? { charset } : {}) };
    }
  } catch (error) {
    if (controller.signal.aborted) throw new SourceError(`the page did not arrive within ${timeoutMs / 1000} s`);
    if (error instanceof SourceError) throw error;
    throw new SourceError(
      `the page could not be fetched (${(error as NodeJS.ErrnoException).code ?? 'network error'})`,
    );
  } finally {
    clearTimeout(timer);
  }
}

const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'text/csv']);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

function decode(body: Buffer, charset: string | undefined): string {
  const declared = charset ?? /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 4096).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** The text of a fetched page and its title (HTML); `selector` keeps only the matching elements (FastGPT's webPageSelector). */
export async function pageText(page: FetchedPage, selector?: string): Promise<{ text: string; title?: string }> {
  const mediaType = page.mediaType || 'text/html';
  if (HTML_TYPES.has(mediaType)) {
    // Loaded on first use: the create call checks a link's form only and never converts a page.
    const { htmlToText } = await import('./html.ts');
    return htmlToText(decode(page.body, page.charset), selector);
  }
  if (TEXT_TYPES.has(mediaType)) return { text: decode(page.body, page.charset) };
  throw new SourceError(`the link serves ${mediaType}, not a web page or text: upload the file instead`);
}

/** Fetches a link and reads it to text. */
export async function readLink(
  link: string,
  options: LinkFetchOptions & { readonly selector?: string },
): Promise<{ text: string; title?: string; url: string }> {
  const page = await fetchLink(link, options);
  return { ...(await pageText(page, options.selector)), url: page.url };
}

/**
 * A link collection's text, as the training reads it (reader.ts) and `collection/sync` compares it with what the
 * collection was trained from: a page without text is refused.
 */
export async function readLinkSource(
  link: string,
  options: LinkFetchOptions & { readonly selector?: string },
): Promise<{ text: string; title?: string }> {
  const page = await readLink(link, options);
  if (page.text.trim() === '') throw new SourceError('the page holds no text');
  return { text: page.text, ...(page.title ? { title: page.title } : {}) };
}
