import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SourceFileStore } from './contract.ts';

/*
 * The source store as the content calls need it (text kept as a file, files deleted with their collection): S3 deployed,
 * a directory locally. Keys are `<teamId>/<fileId>`, so one team's id never reaches another team's file. The upload and
 * read calls of shared/kb/sources use the same layout.
 */

const SAFE = /^[A-Za-z0-9_-]{1,64}$/;

function keyOf(teamId: string, fileId: string): string {
  if (!SAFE.test(teamId) || !SAFE.test(fileId)) throw new Error('invalid source file key');
  return `${teamId}/${fileId}`;
}

/** The source bucket on S3 (KB_SOURCE_BUCKET). */
export function s3SourceFileStore(client: S3Client, bucket: string): SourceFileStore {
  return {
    async put(file) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(file.teamId, file.fileId),
          Body: file.bytes,
          ContentType: file.contentType,
          Metadata: { name: encodeURIComponent(file.name) },
        }),
      );
    },
    async get(teamId, fileId) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(teamId, fileId) }));
        const bytes = await out.Body?.transformToByteArray();
        if (bytes === undefined) return undefined;
        return {
          bytes,
          name: decodeURIComponent(out.Metadata?.name ?? fileId),
          contentType: out.ContentType ?? 'application/octet-stream',
        };
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    async delete(teamId, fileIds) {
      for (let i = 0; i < fileIds.length; i += 1000) {
        const Objects = fileIds.slice(i, i + 1000).map((id) => ({ Key: keyOf(teamId, id) }));
        await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } }));
      }
    },
  };
}

/** The source store of `npm start`: files under a directory of DATA_DIR (mode 0600). */
export function directorySourceFileStore(dir: string): SourceFileStore {
  return {
    async put(file) {
      const key = keyOf(file.teamId, file.fileId);
      await mkdir(join(dir, file.teamId), { recursive: true, mode: 0o700 });
      await writeFile(join(dir, key), file.bytes, { mode: 0o600 });
      await writeFile(join(dir, `${key}.json`), JSON.stringify({ name: file.name, contentType: file.contentType }), {
        mode: 0o600,
      });
    },
    async get(teamId, fileId) {
      const key = keyOf(teamId, fileId);
      try {
        const [bytes, meta] = await Promise.all([readFile(join(dir, key)), readFile(join(dir, `${key}.json`), 'utf8')]);
        const { name, contentType } = JSON.parse(meta) as { name: string; contentType: string };
        return { bytes: new Uint8Array(bytes), name, contentType };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async delete(teamId, fileIds) {
      for (const id of fileIds) {
        const key = keyOf(teamId, id);
        await rm(join(dir, key), { force: true });
        await rm(join(dir, `${key}.json`), { force: true });
      }
    },
  };
}
