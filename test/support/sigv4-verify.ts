import { createHash, createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/*
 * SigV4 verification as AWS describes it ("Create a signed AWS API request" and "Elements of an AWS API request
 * signature", AWS IAM User Guide), written with node:crypto only, independent of the SDK's signer, so a test that
 * passes both the relay's requests and the SDK's own through it checks the relay signs as AWS signs. Non-S3 rules:
 * each path segment is URI-encoded once more; no payload-hash header is required.
 */

export interface VerifyCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export type VerifyResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly canonical?: string };

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: unreserved characters kept, everything else %XX upper case. */
export const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function canonicalQuery(query: URLSearchParams): string {
  return [...query]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** Checks an AWS4-HMAC-SHA256 `Authorization` header against the request, for one service and region. */
export function verifySigV4(
  request: { method: string; rawPath: string; headers: IncomingHttpHeaders; body: Buffer },
  expected: { credentials: VerifyCredentials; region: string; service: string; now?: Date },
): VerifyResult {
  const auth = String(request.headers.authorization ?? '');
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!match)
    return { ok: false, code: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, keyId, day, region, service, signedHeaders, signature] = match as unknown as string[];
  if (keyId !== expected.credentials.accessKeyId) {
    return {
      ok: false,
      code: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  }
  if (region !== expected.region || service !== expected.service) {
    return { ok: false, code: 'InvalidSignatureException', message: `Credential should be scoped to a valid region.` };
  }
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!signedAt || !amzDate.startsWith(day as string)) {
    return { ok: false, code: 'IncompleteSignatureException', message: 'Date must be in ISO-8601 basic format.' };
  }
  const [, y, mo, d, h, mi, s] = signedAt.map(Number) as number[];
  const skew = Math.abs(Date.UTC(y!, mo! - 1, d, h, mi, s) - (expected.now ?? new Date()).getTime());
  if (skew > 15 * 60_000) return { ok: false, code: 'InvalidSignatureException', message: 'Signature expired' };
  const names = (signedHeaders as string).split(';');
  if (!names.includes('host')) return { ok: false, code: 'InvalidSignatureException', message: 'host not signed' };
  if (expected.credentials.sessionToken !== undefined) {
    if (
      request.headers['x-amz-security-token'] !== expected.credentials.sessionToken ||
      !names.includes('x-amz-security-token')
    ) {
      return {
        ok: false,
        code: 'UnrecognizedClientException',
        message: 'The security token included in the request is invalid.',
      };
    }
  }
  const [path = '/', query = ''] = request.rawPath.split('?', 2);
  const canonicalUri = path
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
  const headerLines = names.map((name) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : String(value ?? '');
    return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
  });
  const canonical = [
    request.method,
    canonicalUri,
    canonicalQuery(new URLSearchParams(query)),
    headerLines.join(''),
    signedHeaders,
    sha256(request.body),
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${expected.credentials.secretAccessKey}`, day as string), region as string), service as string),
    'aws4_request',
  );
  const wanted = createHmac('sha256', key).update(stringToSign).digest('hex');
  if (wanted !== signature) {
    return {
      ok: false,
      code: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      canonical: `${canonical}\n\nThe String-to-Sign should have been\n'${stringToSign}'`,
    };
  }
  return { ok: true };
}
