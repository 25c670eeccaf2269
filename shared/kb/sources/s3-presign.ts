import type { S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';

/*
 * S3's query-string authentication (SigV4 presigning) with the client's own region and credentials (a function's role
 * deployed), as AWS's S3 presigner makes it: virtual-hosted address, unsigned payload. Used for the read link of a
 * stored file (file-stores.ts) and a direct upload's address (upload-stores.ts); test/unit/kb/upload-stores.test.ts
 * holds the result to the signature of AWS's own `@aws-sdk/s3-request-presigner`.
 */

export interface PresignRequest {
  readonly method: 'GET' | 'PUT';
  readonly bucket: string;
  /** The object key; each segment is URI-encoded into the path. */
  readonly key: string;
  readonly query?: Record<string, string>;
  /** Headers signed with the request (the client must send them as given). */
  readonly headers?: Record<string, string>;
  readonly expiresInSeconds: number;
  readonly signingDate?: Date;
}

/** The presigned https URL of the request. */
export async function presignS3(client: S3Client, request: PresignRequest): Promise<string> {
  const region = await client.config.region();
  const hostname = `${request.bucket}.s3.${region}.amazonaws.com`;
  const signer = new SignatureV4({
    service: 's3',
    region,
    credentials: client.config.credentials,
    sha256: client.config.sha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const path = `/${request.key.split('/').map(encodeURIComponent).join('/')}`;
  const headers = request.headers ?? {};
  const signed = await signer.presign(
    {
      method: request.method,
      protocol: 'https:',
      hostname,
      path,
      query: request.query ?? {},
      // The payload is unsigned (the signer hoists this header into the query, as AWS's presigner does).
      headers: { host: hostname, ...headers, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
    },
    {
      expiresIn: request.expiresInSeconds,
      ...(request.signingDate ? { signingDate: request.signingDate } : {}),
      // Headers of the caller's stay headers (signed), never moved into the query.
      unhoistableHeaders: new Set(Object.keys(headers).map((h) => h.toLowerCase())),
    },
  );
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(signed.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== null) search.append(name, v);
  }
  return `https://${hostname}${path}?${search.toString().replace(/\+/g, '%20')}`;
}
