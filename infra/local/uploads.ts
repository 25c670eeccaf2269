import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream/promises';
import { MAX_UPLOAD_BYTES } from '#shared/kb/sources/files';
import type { LocalUploadStore } from '#shared/kb/sources/upload-stores';

/*
 * `npm start`'s stand-in for the source bucket's presigned PUT (shared/kb/sources/upload-stores.ts): the address
 * presignDatasetFilePostUrl answers locally. It answers as S3 does for such a PUT: 200 with an ETag, 403 with an XML
 * error for a bad or expired signature, CORS for any origin (the address is the credential, as the bucket's CORS rule
 * allows, infra/kb-sources.ts). Unlike S3 it keeps at most 10 MB (the create refuses more anyway), streamed to disk,
 * so a large PUT never fills memory.
 */

export interface LocalUploadAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'PUT',
  'Access-Control-Allow-Headers': 'content-type',
  'Access-Control-Expose-Headers': 'ETag',
};

function s3Error(statusCode: number, code: string, message: string): LocalUploadAnswer {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return { statusCode, headers: { ...CORS, 'Content-Type': 'application/xml' }, body: Buffer.from(body) };
}

/** Answers a request to an upload address (`LOCAL_UPLOAD_PATH/...`); the body is read only for a valid PUT. */
export async function serveLocalUpload(
  req: IncomingMessage,
  url: URL,
  store: LocalUploadStore,
  now: Date,
): Promise<LocalUploadAnswer> {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'OPTIONS') return { statusCode: 200, headers: CORS, body: Buffer.alloc(0) };
  if (method !== 'PUT') {
    req.resume();
    return s3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  }
  const contentType = req.headers['content-type'] ?? '';
  const target = await store.verifyAddress(url.pathname, url.searchParams, contentType, now);
  if (target === undefined || target === 'expired') {
    req.resume();
    return target === 'expired'
      ? s3Error(403, 'AccessDenied', 'Request has expired')
      : s3Error(403, 'SignatureDoesNotMatch', 'The request signature does not match the address.');
  }
  const file = await store.pathFor(target);
  const part = `${file}.part`;
  const out = createWriteStream(part, { mode: 0o600 });
  let size = 0;
  try {
    // Past the limit the rest is read and dropped, not written: the socket stays open for the answer.
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_UPLOAD_BYTES) continue;
      if (!out.write(chunk)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await finished(out).catch(() => undefined);
  }
  if (size > MAX_UPLOAD_BYTES) {
    await rm(part, { force: true });
    return s3Error(400, 'EntityTooLarge', `Your proposed upload exceeds the local limit of ${MAX_UPLOAD_BYTES} bytes.`);
  }
  await rename(part, file);
  await store.describe(target);
  return { statusCode: 200, headers: { ...CORS, ETag: `"${size.toString(16)}"` }, body: Buffer.alloc(0) };
}
