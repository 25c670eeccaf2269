import { DATASET_REQUEST_ERRORS } from '#shared/envelopes/dataset';
import { datasetErrors } from '#shared/errors';
import { type CallerContext, validRequest } from '#shared/http';
import type { NewSourceCollection, SourceFileStore } from '#shared/kb/contract';
import type { SourceCollections } from '#shared/kb/sources/collections-port';
import { asRequestError, sourceErrors } from '#shared/kb/sources/errors';
import { checkContent, type FileKind, fileKind, MAX_UPLOAD_BYTES, STORED_CONTENT_TYPE } from '#shared/kb/sources/files';
import type { MultipartUpload } from '#shared/kb/sources/multipart';
import { chunkSettingsOf, createFileDataSchema } from '#shared/kb/sources/settings';
import type * as z from '#shared/zod';

export interface CreateFileDeps {
  readonly collections: Pick<SourceCollections, 'createSourceCollection'>;
  readonly store: Pick<SourceFileStore, 'put' | 'delete'>;
  readonly newId: () => string;
}

/** The file's own name: what follows the last path separator a client may have sent, at most 200 characters. */
function baseName(name: string): string {
  return (name.split(/[\\/]/).pop() ?? '').trim().slice(0, 200);
}

/** An upload's `data` (JSON, checked against `schema`) and its file, checked: ≤ 10 MB, a supported type, matching content. */
export function checkedUpload<S extends z.ZodMiniType>(
  upload: MultipartUpload,
  schema: S,
): { data: z.output<S>; name: string; kind: FileKind; bytes: Uint8Array } {
  if (upload.fileTooLarge)
    throw sourceErrors.fileTooLarge(`The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
  if (upload.data === undefined) throw datasetErrors.missingParams('data is required');
  let json: unknown;
  try {
    json = JSON.parse(upload.data);
  } catch {
    throw datasetErrors.invalidParams('data must be JSON');
  }
  const data = validRequest(json, schema, DATASET_REQUEST_ERRORS);
  if (!upload.file) throw datasetErrors.missingParams('file is required');
  const name = baseName(upload.file.name);
  if (!name) throw datasetErrors.missingParams('the file has no name');
  let kind: FileKind;
  try {
    kind = fileKind(name);
    checkContent(kind, upload.file.bytes, upload.file.contentType);
  } catch (error) {
    throw asRequestError(error);
  }
  if (upload.file.bytes.byteLength === 0) throw datasetErrors.invalidParams('the file is empty');
  return { data, name, kind, bytes: upload.file.bytes };
}

/**
 * Stores an upload, then creates the caller's file collection named after it where `data` says, with `own` settings;
 * a create that fails removes the stored file again.
 */
export async function storeAndCreate(
  file: { name: string; kind: FileKind; bytes: Uint8Array },
  caller: CallerContext,
  data: { datasetId: string; parentId: string | null; tags?: string[] | null | undefined },
  own: Pick<NewSourceCollection, 'settings' | 'metadata'>,
  deps: CreateFileDeps,
): Promise<string> {
  const fileId = deps.newId();
  const { teamId } = caller;
  const collection = {
    teamId,
    tmbId: caller.tmbId,
    datasetId: data.datasetId,
    parentId: data.parentId,
    ...own,
    ...(data.tags ? { tags: data.tags } : {}),
  };
  await deps.store.put({
    teamId,
    fileId,
    name: file.name,
    contentType: STORED_CONTENT_TYPE[file.kind],
    bytes: file.bytes,
  });
  try {
    const { collectionId } = await deps.collections.createSourceCollection({
      ...collection,
      name: file.name,
      type: 'file',
      fileId,
    });
    return collectionId;
  } catch (error) {
    await deps.store.delete(teamId, [fileId]).catch(() => undefined);
    throw error;
  }
}

/**
 * FastGPT's POST /api/core/dataset/collection/create/localFile (docs/knowledge-base-sources.md, "Files"): checks the
 * upload (≤ 10 MB, a supported type, content that matches it), stores it in the source bucket, and creates a file
 * collection named after the file whose reading is queued; answers at once with `insertLen: 0`. A create that fails
 * after the upload was stored removes it again.
 */
export async function createFileCollection(
  input: { upload: MultipartUpload; caller: CallerContext },
  deps: CreateFileDeps,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { data, ...file } = checkedUpload(input.upload, createFileDataSchema);
  const collectionId = await storeAndCreate(
    file,
    input.caller,
    data,
    {
      settings: chunkSettingsOf(data),
      metadata: { ...(data.metadata ?? {}), ...(data.collectionMetadata ?? {}) },
    },
    deps,
  );
  return { collectionId, results: { insertLen: 0 } };
}
