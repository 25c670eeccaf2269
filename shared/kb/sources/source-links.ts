import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * The read call's time-limited links (docs/knowledge-base-sources.md, "Reading a source"): FastGPT's collection/read
 * answers a URL the browser opens without the caller's token, so the URL carries its own proof: the team, the
 * collection and an expiry, with an HMAC-SHA-256 over them. The key is derived from the deployment's channel-id key
 * (shared/channel-id-key.ts) under a label of its own, so no new secret is needed and no other use of that key can make
 * or check a link. The served route checks the signature in constant time, then the expiry, then reads the collection.
 */

export const SOURCE_PATH = '/api/core/dataset/collection/source';
/** How long a link works (FastGPT's file tokens last 30 minutes too). */
export const SOURCE_LINK_TTL_SECONDS = 30 * 60;

const LABEL = 'kb-source-link-v1';

/** The signing key of source links, derived from the deployment key. */
export function sourceLinkKey(deploymentKey: Buffer): Buffer {
  return createHmac('sha256', deploymentKey).update(LABEL).digest();
}

export interface SourceClaim {
  readonly teamId: string;
  readonly collectionId: string;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

/** A token for the claim, valid until `now + ttl`. */
export function signSourceToken(
  key: Buffer,
  claim: SourceClaim,
  now: Date,
  ttlSeconds = SOURCE_LINK_TTL_SECONDS,
): string {
  const expires = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const payload = Buffer.from(JSON.stringify({ t: claim.teamId, c: claim.collectionId, e: expires })).toString(
    'base64url',
  );
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The claim of a valid token, or why it is not one. */
export function verifySourceToken(
  key: Buffer,
  token: string,
  now: Date,
): { ok: true; claim: SourceClaim } | { ok: false; reason: 'invalid' | 'expired' } {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || token.length > 1024) return { ok: false, reason: 'invalid' };
  const expected = mac(key, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let body: { t?: unknown; c?: unknown; e?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof body;
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof body.t !== 'string' || typeof body.c !== 'string' || typeof body.e !== 'number') {
    return { ok: false, reason: 'invalid' };
  }
  if (body.e < now.getTime() / 1000) return { ok: false, reason: 'expired' };
  return { ok: true, claim: { teamId: body.t, collectionId: body.c } };
}

/**
 * The public base URL the caller reached this API by (scheme, host and the stage prefix when the execute-api host is
 * used), from the event as API Gateway and the local server shape it.
 */
export function publicBaseUrl(event: {
  readonly headers: Readonly<Record<string, string | undefined>> | null;
  readonly resource: string;
  readonly requestContext: { readonly path?: string; readonly domainName?: string };
}): string {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  const host = header('host') ?? event.requestContext.domainName ?? 'localhost';
  const scheme = (header('x-forwarded-proto') ?? 'https').split(',')[0]?.trim() || 'https';
  const fullPath = event.requestContext.path ?? event.resource;
  const prefix = fullPath.endsWith(event.resource) ? fullPath.slice(0, fullPath.length - event.resource.length) : '';
  return `${scheme}://${host}${prefix}`;
}
