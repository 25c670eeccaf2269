import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * The door of the embedded DynamoDB engine (dynalite checks no credential and answers any origin
 * with `Access-Control-Allow-Origin: *`). In front of dynalite's own request listener, in its
 * process, it refuses:
 * - every request that carries an `Origin` header, and every `OPTIONS` (no CORS preflight is ever
 *   answered): a web page, or an HTML file opened in a browser, can neither read nor write the engine;
 * - every request not signed (AWS Signature Version 4) with the engine's credential, made for this
 *   run of the engine: the request is signed again here with the same date, region and headers, and
 *   the signatures must be equal, so the secret key never crosses the wire and a changed body or
 *   header fails. As in DynamoDB, a signature older or newer than 15 minutes is refused.
 * Answers are DynamoDB's own error shapes, so SDKs and the AWS CLI show their messages.
 */

/** The engine's credential for one run: any AWS SDK or CLI signs with it. */
export interface EngineCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

// dynalite's own request size limit, kept so an oversized request gets the same 413.
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
// DynamoDB's allowed clock skew between the signature's date and the server.
const MAX_SKEW_MS = 15 * 60 * 1000;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 +Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, *SignedHeaders=([a-z0-9;-]+), *Signature=([0-9a-f]{64})$/;
// What every request's signature must cover, whatever the client chose to sign (SigV4 requires host).
const REQUIRED_SIGNED_HEADERS = ['host', 'x-amz-date', 'x-amz-target'] as const;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Why a request is refused, as DynamoDB names it. */
type Refusal = { status: number; type: string; message: string };

const refusal = (status: number, type: string, message: string): Refusal => ({ status, type, message });

const BROWSER_REFUSED = refusal(
  403,
  'AccessDeniedException',
  'This local DynamoDB engine refuses requests from web pages (an Origin header or a CORS preflight)',
);
const NOT_SIGNED = refusal(
  400,
  'MissingAuthenticationTokenException',
  'Request is missing Authentication Token: sign it with the credential in DATA_DIR/dynamodb-credentials.json',
);
const UNKNOWN_KEY = refusal(
  400,
  'UnrecognizedClientException',
  'The security token included in the request is invalid: use the credential in DATA_DIR/dynamodb-credentials.json (it changes at every start)',
);
const BAD_SIGNATURE = refusal(
  400,
  'InvalidSignatureException',
  'The request signature we calculated does not match the signature you provided',
);
const EXPIRED = refusal(
  400,
  'InvalidSignatureException',
  'Signature expired: the request date is more than 15 minutes from now',
);

function send(res: ServerResponse, { status, type, message }: Refusal): void {
  const body = JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message });
  // No Access-Control-* header ever: a browser cannot read even the refusal.
  res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Checks the request's SigV4 signature against `credentials`; undefined when it holds. */
export async function checkSignature(
  request: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer },
  credentials: EngineCredentials,
  now: number,
): Promise<Refusal | undefined> {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return NOT_SIGNED;
  const parts = AUTHORIZATION.exec(header.trim());
  if (!parts) return NOT_SIGNED;
  const [, accessKeyId = '', scopeDate, region = '', service = '', signedHeaderList = '', signature = ''] = parts;
  if (!sameText(accessKeyId, credentials.accessKeyId)) return UNKNOWN_KEY;

  const amzDate = request.headers['x-amz-date'];
  const date = typeof amzDate === 'string' ? AMZ_DATE.exec(amzDate) : null;
  if (!date || amzDate?.slice(0, 8) !== scopeDate) return BAD_SIGNATURE;
  const [, y, mo, d, h, mi, s] = date.map(Number);
  const signingDate = new Date(Date.UTC(y as number, (mo as number) - 1, d, h, mi, s));
  if (Math.abs(now - signingDate.getTime()) > MAX_SKEW_MS) return EXPIRED;

  const signedHeaders = signedHeaderList.split(';');
  // X-Amz-Target names the operation: a signature that leaves it out would let whoever sees one signed request
  // (a proxy's log, a shared terminal) replay its body as any other operation, DeleteTable included.
  if (!REQUIRED_SIGNED_HEADERS.every((name) => signedHeaders.includes(name))) return BAD_SIGNATURE;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return BAD_SIGNATURE;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // A body hash the client signed must be the body's: the signature would not cover a swapped body.
  const contentHash = headers['x-amz-content-sha256'];
  if (contentHash !== undefined && contentHash !== createHash('sha256').update(request.body).digest('hex')) {
    return BAD_SIGNATURE;
  }
  // Prefixed, not resolved against a base: `//x` stays a path.
  const url = new URL(`http://engine${request.url}`);
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const seen = query[k];
    query[k] = seen === undefined ? v : [...(Array.isArray(seen) ? seen : [seen]), v];
  }
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256, uriEscapePath: true });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query,
      headers,
      body: request.body,
    },
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization))?.[1] ?? '';
  return sameText(expected, signature) ? undefined : BAD_SIGNATURE;
}

/** `inner` (dynalite's listener) behind the checks above; the body it reads is the one that was checked. */
export function guardEngine(
  inner: RequestListener,
  credentials: EngineCredentials,
  now: () => number = Date.now,
): RequestListener {
  return (req, res) => {
    if (req.headers.origin !== undefined || req.method === 'OPTIONS') {
      req.resume();
      send(res, BROWSER_REFUSED);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData).off('end', onEnd);
      req.resume();
      res.writeHead(413);
      res.end();
    };
    const onEnd = () => {
      const body = Buffer.concat(chunks);
      const checked = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      checkSignature(checked, credentials, now()).then(
        (refused) => {
          if (refused) return send(res, refused);
          // dynalite reads the body from the request stream: hand it a stream of the checked bytes.
          const replay = Object.assign(Readable.from(body.length > 0 ? [body] : []), {
            method: req.method,
            url: req.url,
            headers: req.headers,
          });
          inner(replay as unknown as IncomingMessage, res);
        },
        () => send(res, BAD_SIGNATURE),
      );
    };
    req
      .on('data', onData)
      .on('end', onEnd)
      .on('error', () => res.destroy());
  };
}
