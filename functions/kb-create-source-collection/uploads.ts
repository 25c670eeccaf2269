import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireDataset } from '#shared/kb/collections';
import { checkedUploadOf, requestFileKind } from '#shared/kb/sources/checked-upload';
import { MAX_UPLOAD_BYTES, STORED_CONTENT_TYPE } from '#shared/kb/sources/files';
import type { createFileIdBodySchema, presignUploadBodySchema } from '#shared/kb/sources/settings';
import { chunkSettingsOf } from '#shared/kb/sources/settings';
import { type UploadStore, uploadKey } from '#shared/kb/sources/upload-stores';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type * as z from '#shared/zod';
import { type CreateFileDeps, storeAndCreate } from './create-file.ts';

/*
 * FastGPT's web client's file import (v4.14 and later; docs/knowledge-base-sources.md, "Uploads before a collection"):
 * presignDatasetFilePostUrl answers where to PUT the file, the client PUTs it there itself (S3 deployed, the local
 * server under `npm start`), then collection/create/fileId makes the collection from it. The upload is checked at the
 * create exactly as a localFile upload is (at most 10 MB, a supported type, content that matches it): an address cannot
 * limit what is sent to it.
 */

/** FastGPT's answer (CreatePostPresignedUrlResult): the address, the key to name the file by, the headers to send. */
export interface PresignedUploadAnswer {
  readonly url: string;
  readonly key: string;
  readonly headers: Record<string, string>;
  readonly maxSize: number;
}

export interface UploadDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly uploads: UploadStore;
  readonly newId: () => string;
  readonly now: () => Date;
}

/**
 * POST /api/core/dataset/presignDatasetFilePostUrl and …/file/presignDatasetFilePostUrl: for the caller's knowledge
 * base and a file name of a supported type, an address valid for 10 minutes.
 */
export async function presignUpload(
  input: { body: z.output<typeof presignUploadBodySchema>; caller: CallerContext; baseUrl: string },
  deps: UploadDeps,
): Promise<PresignedUploadAnswer> {
  const { body, caller } = input;
  const name = baseName(body.filename);
  const kind = requestFileKind(name);
  await requireDataset(deps.datasets, caller.teamId, body.datasetId);
  const uploadId = deps.newId();
  const { url, headers } = await deps.uploads.presignUpload(
    { teamId: caller.teamId, uploadId, datasetId: body.datasetId, name, contentType: STORED_CONTENT_TYPE[kind] },
    { baseUrl: input.baseUrl, now: deps.now() },
  );
  return { url, key: uploadKey(body.datasetId, uploadId), headers, maxSize: MAX_UPLOAD_BYTES };
}

/** The file's own name: what follows the last path separator, at most 200 characters. */
function baseName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').trim().slice(0, 200);
  if (!base) throw datasetErrors.invalidParams('filename must name a file');
  return base;
}

/**
 * POST /api/core/dataset/collection/create/fileId: a file collection from the caller's upload, named after the file,
 * its reading queued; the upload is then removed (its bytes live on as the collection's file). Answers as
 * create/localFile does.
 */
export async function createFromUpload(
  input: { body: z.output<typeof createFileIdBodySchema>; caller: CallerContext },
  deps: CreateFileDeps & Pick<UploadDeps, 'uploads'>,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { body, caller } = input;
  const upload = await checkedUploadOf(body.fileId, body.datasetId, caller.teamId, deps.uploads);
  const collectionId = await storeAndCreate(
    upload,
    caller,
    body,
    { settings: chunkSettingsOf(body), metadata: { ...(body.metadata ?? {}) } },
    deps,
  );
  await deps.uploads.deleteUpload(caller.teamId, upload.uploadId).catch(() => undefined);
  return { collectionId, results: { insertLen: 0 } };
}
