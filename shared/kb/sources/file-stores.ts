import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SourceFileStore } from '../contract.ts';
import { presignS3 } from './s3-presign.ts';

/*
 * The source bucket (docs/knowledge-base-sources.md, "Storage"): uploaded files and text kept as files, one object per
 * file under `<teamId>/<fileId>`, so a key never crosses teams and a team's files are one prefix. The file's name
 * travels URI-encoded in the object's metadata (S3 metadata is ASCII). Deployed: S3 (infra/kb-sources.ts: encrypted,
 * TLS only, no public access). `npm start`: a directory under the local data dir, same layout.
 */

/** Ids the stores accept as path segments: no separator, no dot segment, so a key never leaves its team's prefix. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

function objectKey(teamId: string, fileId: string): string | undefined {
  return SAFE_ID.test(teamId) && SAFE_ID.test(fileId) ? `${teamId}/${fileId}` : undefined;
}

/** A store that can hand out a short-lived direct download link (S3): the read route redirects there. */
export interface PresigningStore {
  presignGet(
    teamId: string,
    fileId: string,
    file: { name: string; contentType?: string },
    expiresInSeconds: number,
  ): Promise<string>;
}

/** RFC 6266 `attachment`/`inline` header value with the UTF-8 file name. */
export function contentDisposition(name: string, inline: boolean): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export class S3SourceFileStore implements SourceFileStore, PresigningStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async put(file: Parameters<SourceFileStore['put']>[0]): Promise<void> {
    const key = objectKey(file.teamId, file.fileId);
    if (!key) throw new Error('invalid team or file id');
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: file.bytes,
        ContentType: file.contentType,
        Metadata: { name: encodeURIComponent(file.name) },
      }),
    );
  }

  async get(teamId: string, fileId: string): ReturnType<SourceFileStore['get']> {
    const key = objectKey(teamId, fileId);
    if (!key) return undefined;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const bytes = await object.Body?.transformToByteArray();
      if (!bytes) return undefined;
      return {
        bytes,
        name: decodeURIComponent(object.Metadata?.name ?? fileId),
        contentType: object.ContentType ?? 'application/octet-stream',
      };
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  async delete(teamId: string, fileIds: readonly string[]): Promise<void> {
    const keys = fileIds.map((fileId) => objectKey(teamId, fileId)).filter((key): key is string => key !== undefined);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
    }
  }

  async presignGet(
    teamId: string,
    fileId: string,
    file: { name: string; contentType?: string },
    expiresInSeconds: number,
  ): Promise<string> {
    const key = objectKey(teamId, fileId);
    if (!key) throw new Error('invalid team or file id');
    // The response headers are set by the signed query, so the browser shows the file under its name; without a content
    // type given, S3 answers the one stored with the object.
    return presignS3(this.client, {
      method: 'GET',
      bucket: this.bucket,
      key,
      query: {
        'response-content-disposition': contentDisposition(file.name, true),
        ...(file.contentType ? { 'response-content-type': file.contentType } : {}),
      },
      expiresInSeconds,
    });
  }
}

/** `npm start`'s source bucket: `<dir>/<teamId>/<fileId>` and its `.json` description, owner-only. */
export class LocalSourceFileStore implements SourceFileStore {
  constructor(private readonly dir: string) {}

  async put(file: Parameters<SourceFileStore['put']>[0]): Promise<void> {
    const key = objectKey(file.teamId, file.fileId);
    if (!key) throw new Error('invalid team or file id');
    await mkdir(join(this.dir, file.teamId), { recursive: true, mode: 0o700 });
    await writeFile(join(this.dir, key), file.bytes, { mode: 0o600 });
    await writeFile(`${join(this.dir, key)}.json`, JSON.stringify({ name: file.name, contentType: file.contentType }), {
      mode: 0o600,
    });
  }

  async get(teamId: string, fileId: string): ReturnType<SourceFileStore['get']> {
    const key = objectKey(teamId, fileId);
    if (!key) return undefined;
    try {
      const meta = JSON.parse(await readFile(`${join(this.dir, key)}.json`, 'utf8')) as {
        name: string;
        contentType: string;
      };
      const bytes = new Uint8Array(await readFile(join(this.dir, key)));
      return { bytes, name: meta.name, contentType: meta.contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(teamId: string, fileIds: readonly string[]): Promise<void> {
    for (const fileId of fileIds) {
      const key = objectKey(teamId, fileId);
      if (!key) continue;
      await rm(join(this.dir, key), { force: true });
      await rm(`${join(this.dir, key)}.json`, { force: true });
    }
  }
}
