import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { backupItems } from '#shared/kb/sources/backup';
import { asRequestError } from '#shared/kb/sources/errors';
import { decodeText } from '#shared/kb/sources/files';
import type { MultipartUpload } from '#shared/kb/sources/multipart';
import { createBackupDataSchema, DEFAULT_CHUNK_SIZE } from '#shared/kb/sources/settings';
import { type CreateFileDeps, checkedUpload, storeAndCreate } from './create-file.ts';

/**
 * FastGPT's POST /api/core/dataset/collection/create/backup (docs/knowledge-base-sources.md, "Backup import"): a CSV
 * that FastGPT's `collection/export` wrote (or one made like it) becomes a file collection whose rows are its chunks,
 * each with its own index texts. The file is checked and read in the call (a file without a chunk is refused, nothing
 * stored); the rows are embedded by the training, as FastGPT's backup mode does. Answers the row count as `insertLen`.
 */
export async function createBackupCollection(
  input: { upload: MultipartUpload; caller: CallerContext },
  deps: CreateFileDeps,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { data, ...file } = checkedUpload(input.upload, createBackupDataSchema);
  if (file.kind !== 'csv') throw datasetErrors.invalidParams('a backup is a .csv file, as FastGPT exports it');
  let rows: number;
  try {
    rows = backupItems(decodeText(file.bytes) ?? '').length;
  } catch (error) {
    throw asRequestError(error);
  }
  const settings = { trainingType: 'backup', chunkSize: DEFAULT_CHUNK_SIZE } as const;
  const collectionId = await storeAndCreate(file, input.caller, data, { settings }, deps);
  return { collectionId, results: { insertLen: rows } };
}
