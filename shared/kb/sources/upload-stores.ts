import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { presignS3 } from './s3-presign.ts';

/*
 * Uploads before a collection (docs/knowledge-base-sources.md, "Uploads before a collection"): FastGPT's web client
 * (v4.14 and later) asks `presignDatasetFilePostUrl` for an address, PUTs the file there itself, then names it by its
 * key in `file/getPreviewChunks` and `collection/create/fileId`. Deployed, the address is a presigned S3 PUT into the
 * source bucket under `uploads/<teamId>/<uploadId>` (the bucket drops an upload a day old, infra/kb-sources.ts);
 * under `npm start` the local server takes the PUT (infra/local/uploads.ts) into `<KB_SOURCE_DIR>/uploads/<teamId>/`.
 * The key the client holds is `dataset/<datasetId>/<uploadId>`, as FastGPT's keys start with their dataset; the team
 * always comes from the caller, so a key never reaches another team's upload.
 */

/** How long an upload address works (FastGPT's presigned PUT lasts 10 minutes). */
export const UPLOAD_TTL_SECONDS = 10 * 60;
/** The local server's path of upload addresses (a stand-in for the bucket; never a route of the deployed APIs). */
export const LOCAL_UPLOAD_PATH = '/_local/kb-uploads';

/** The bucket's (and the local directory's) prefix of direct uploads; its lifecycle rule drops them after a day. */
export const UPLOADS_PREFIX = 'uploads/';

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface UploadTarget {
  readonly teamId: string;
  readonly uploadId: string;
  readonly datasetId: string;
  readonly name: string;
  readonly contentType: string;
}

export interface StoredUpload {
  readonly bytes: Uint8Array;
  readonly name: string;
  readonly datasetId: string;
  readonly contentType: string;
}

export interface UploadStore {
  /** An address the client PUTs the file to, with the headers it must send; `baseUrl` is this API's (local only). */
  presignUpload(
    target: UploadTarget,
    at: { baseUrl: string; now: Date },
  ): Promise<{ url: string; headers: Record<string, string> }>;
  /** The team's upload, 'too-large' when it holds more than `maxBytes` (not read further), undefined when none. */
  getUpload(teamId: string, uploadId: string, maxBytes: number): Promise<StoredUpload | 'too-large' | undefined>;
  deleteUpload(teamId: string, uploadId: string): Promise<void>;
}

/** The key a client holds for an upload. */
export function uploadKey(datasetId: string, uploadId: string): string {
  return `dataset/${datasetId}/${uploadId}`;
}

/** The dataset and upload a client's key names, or undefined for any other string. */
export function parseUploadKey(key: string): { datasetId: string; uploadId: string } | undefined {
  const [prefix, datasetId, uploadId, extra] = key.split('/');
  if (prefix !== 'dataset' || extra !== undefined || !datasetId || !uploadId) return undefined;
  return SAFE_ID.test(datasetId) && SAFE_ID.test(uploadId) ? { datasetId, uploadId } : undefined;
}

function objectKey(teamId: string, uploadId: string): string | undefined {
  return SAFE_ID.test(teamId) && SAFE_ID.test(uploadId) ? `${UPLOADS_PREFIX}${teamId}/${uploadId}` : undefined;
}

// S3 metadata is ASCII: the name travels URI-encoded, as the source store's does.
const META = { name: 'x-amz-meta-name', dataset: 'x-amz-meta-dataset' } as const;

export class S3UploadStore implements UploadStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async presignUpload(
    target: UploadTarget,
    at: { now: Date },
  ): Promise<{ url: string; headers: Record<string, string> }> {
    const key = objectKey(target.teamId, target.uploadId);
    if (!key) throw new Error('invalid team or upload id');
    // The content type and the metadata are signed headers the client must send as given (FastGPT's client sends the
    // answer's `headers`), so the object's name and dataset are the ones this call checked.
    const headers = {
      'content-type': target.contentType,
      [META.name]: encodeURIComponent(target.name),
      [META.dataset]: target.datasetId,
    };
    const url = await presignS3(this.client, {
      method: 'PUT',
      bucket: this.bucket,
      key,
      // As AWS's S3 presigner names the operation.
      query: { 'x-id': 'PutObject' },
      headers,
      expiresInSeconds: UPLOAD_TTL_SECONDS,
      signingDate: at.now,
    });
    return { url, headers };
  }

  async getUpload(teamId: string, uploadId: string, maxBytes: number): ReturnType<UploadStore['getUpload']> {
    const key = objectKey(teamId, uploadId);
    if (!key) return undefined;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if ((object.ContentLength ?? 0) > maxBytes) {
        // Not read: an upload may be as large as S3 takes.
        (object.Body as { destroy?: () => void } | undefined)?.destroy?.();
        return 'too-large';
      }
      const bytes = await object.Body?.transformToByteArray();
      if (!bytes) return undefined;
      if (bytes.byteLength > maxBytes) return 'too-large';
      return {
        bytes,
        name: decodeURIComponent(object.Metadata?.name ?? uploadId),
        datasetId: object.Metadata?.dataset ?? '',
        contentType: object.ContentType ?? 'application/octet-stream',
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  async deleteUpload(teamId: string, uploadId: string): Promise<void> {
    const key = objectKey(teamId, uploadId);
    if (key) await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

/** What a local upload address carries besides its path; `signature` covers the rest and the path. */
const QUERY = ['dataset', 'name', 'type', 'expires'] as const;

/**
 * `npm start`'s stand-in for the bucket's uploads: `<dir>/uploads/<teamId>/<uploadId>` and its `.json` description,
 * owner-only; addresses signed with HMAC-SHA-256 under a key made on first use (`<dir>/uploads/.signing-key`, 0600).
 */
export class LocalUploadStore implements UploadStore {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly dir: string) {}

  private get root(): string {
    return join(this.dir, 'uploads');
  }

  private signingKey(): Promise<Buffer> {
    this.key ??= (async () => {
      const file = join(this.root, '.signing-key');
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      await writeFile(file, randomBytes(32), { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      return readFile(file);
    })();
    return this.key;
  }

  private async mac(path: string, values: Record<(typeof QUERY)[number], string>): Promise<Buffer> {
    const payload = [path, ...QUERY.map((name) => values[name])].join('\n');
    return createHmac('sha256', await this.signingKey())
      .update(payload)
      .digest();
  }

  async presignUpload(target: UploadTarget, at: { baseUrl: string; now: Date }) {
    if (!objectKey(target.teamId, target.uploadId)) throw new Error('invalid team or upload id');
    const path = `${LOCAL_UPLOAD_PATH}/${target.teamId}/${target.uploadId}`;
    const values = {
      dataset: target.datasetId,
      name: target.name,
      type: target.contentType,
      expires: String(Math.floor(at.now.getTime() / 1000) + UPLOAD_TTL_SECONDS),
    };
    const query = new URLSearchParams({ ...values, signature: (await this.mac(path, values)).toString('base64url') });
    return { url: `${at.baseUrl}${path}?${query}`, headers: { 'content-type': target.contentType } };
  }

  /** The upload a local address names, once its signature, expiry and the request's content type hold. */
  async verifyAddress(
    path: string,
    query: URLSearchParams,
    contentType: string,
    now: Date,
  ): Promise<UploadTarget | 'expired' | undefined> {
    const [teamId, uploadId, extra] = path.slice(LOCAL_UPLOAD_PATH.length + 1).split('/');
    if (!path.startsWith(`${LOCAL_UPLOAD_PATH}/`) || extra !== undefined || !teamId || !uploadId) return undefined;
    if (!objectKey(teamId, uploadId)) return undefined;
    const values = Object.fromEntries(QUERY.map((name) => [name, query.get(name) ?? ''])) as Record<
      (typeof QUERY)[number],
      string
    >;
    const given = Buffer.from(query.get('signature') ?? '', 'base64url');
    const expected = await this.mac(path, values);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (Number(values.expires) < now.getTime() / 1000) return 'expired';
    if (contentType !== values.type) return undefined;
    return { teamId, uploadId, datasetId: values.dataset, name: values.name, contentType: values.type };
  }

  /** Where the local server writes an upload's bytes (then `describe`s it). */
  async pathFor(target: Pick<UploadTarget, 'teamId' | 'uploadId'>): Promise<string> {
    const key = objectKey(target.teamId, target.uploadId);
    if (!key) throw new Error('invalid team or upload id');
    await mkdir(join(this.root, target.teamId), { recursive: true, mode: 0o700 });
    return join(this.dir, key);
  }

  async describe(target: UploadTarget): Promise<void> {
    const file = await this.pathFor(target);
    const { name, datasetId, contentType } = target;
    await writeFile(`${file}.json`, JSON.stringify({ name, datasetId, contentType }), { mode: 0o600 });
  }

  async getUpload(teamId: string, uploadId: string, maxBytes: number): ReturnType<UploadStore['getUpload']> {
    const key = objectKey(teamId, uploadId);
    if (!key) return undefined;
    try {
      const meta = JSON.parse(await readFile(`${join(this.dir, key)}.json`, 'utf8')) as Omit<StoredUpload, 'bytes'>;
      if ((await stat(join(this.dir, key))).size > maxBytes) return 'too-large';
      const bytes = new Uint8Array(await readFile(join(this.dir, key)));
      return { bytes, name: meta.name, datasetId: meta.datasetId, contentType: meta.contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async deleteUpload(teamId: string, uploadId: string): Promise<void> {
    const key = objectKey(teamId, uploadId);
    if (!key) return;
    await rm(join(this.dir, key), { force: true });
    await rm(`${join(this.dir, key)}.json`, { force: true });
  }
}
