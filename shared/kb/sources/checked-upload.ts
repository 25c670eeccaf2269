import { datasetErrors } from '../../errors.ts';
import { asRequestError, sourceErrors } from './errors.ts';
import { checkContent, type FileKind, fileKind, MAX_UPLOAD_BYTES } from './files.ts';
import { parseUploadKey, type StoredUpload, type UploadStore } from './upload-stores.ts';

/*
 * An upload before a collection (FastGPT's web client's file import, shared/kb/sources/upload-stores.ts), read back by
 * the key the client holds and checked exactly as a localFile upload is: at most 10 MB, a supported type, content that
 * matches it. `collection/create/fileId` makes a collection of it; `file/getPreviewChunks` shows its chunks first.
 */

/** The kind a file name says, as the API's 400 when it is not one the product reads. */
export function requestFileKind(name: string): FileKind {
  try {
    return fileKind(name);
  } catch (error) {
    throw asRequestError(error);
  }
}

/**
 * The caller's upload a key names, checked as an upload is: 404 fileNotFound when the key is not an upload of this
 * knowledge base in the caller's team (never said which), 413 over 10 MB, 400 when its content does not match its name.
 */
export async function checkedUploadOf(
  key: string,
  datasetId: string,
  teamId: string,
  uploads: Pick<UploadStore, 'getUpload'>,
): Promise<StoredUpload & { kind: FileKind; uploadId: string }> {
  const named = parseUploadKey(key);
  const notFound = datasetErrors.fileNotFound('The file does not exist');
  if (!named || named.datasetId !== datasetId) throw notFound;
  const upload = await uploads.getUpload(teamId, named.uploadId, MAX_UPLOAD_BYTES);
  if (upload === undefined) throw notFound;
  if (upload === 'too-large') {
    throw sourceErrors.fileTooLarge(`The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
  }
  if (upload.datasetId !== datasetId) throw notFound;
  const kind = requestFileKind(upload.name);
  try {
    checkContent(kind, upload.bytes, upload.contentType);
  } catch (error) {
    throw asRequestError(error);
  }
  if (upload.bytes.byteLength === 0) throw datasetErrors.invalidParams('the file is empty');
  return { ...upload, kind, uploadId: named.uploadId };
}
