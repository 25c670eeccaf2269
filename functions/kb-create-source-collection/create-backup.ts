import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { backupItems } from '#shared/kb/sources/backup';
import { asRequestError } from '#shared/kb/sources/errors';
import { decodeText } from '#shared/kb/sources/files';
import type { MultipartUpload } from '#shared/kb/sources/multipart';
import { createBackupDataSchema, createTemplateDataSchema, DEFAULT_CHUNK_SIZE } from '#shared/kb/sources/settings';
import { type CreateFileDeps, checkedUpload, storeAndCreate } from './create-file.ts';

/**
 * A CSV of rows (FastGPT's backup and template imports, docs/knowledge-base-sources.md, "Backup and template import")
 * becomes a file collection whose rows are its chunks, each with its own index texts. The file is checked and read in
 * the call (a file without a chunk is refused, nothing stored); the rows are embedded by the training, as FastGPT's
 * two modes do. Answers the collection and the row count.
 */
async function importRows(
  input: { upload: MultipartUpload; caller: CallerContext },
  schema: typeof createBackupDataSchema | typeof createTemplateDataSchema,
  trainingType: 'backup' | 'template',
  deps: CreateFileDeps,
): Promise<{ collectionId: string; rows: number }> {
  const { data, ...file } = checkedUpload(input.upload, schema);
  if (file.kind !== 'csv') throw datasetErrors.invalidParams(`a ${trainingType} is a .csv file, as FastGPT reads it`);
  let rows: number;
  try {
    rows = backupItems(decodeText(file.bytes) ?? '').length;
  } catch (error) {
    throw asRequestError(error);
  }
  const metadata = 'metadata' in data && data.metadata ? { metadata: data.metadata } : {};
  const own = { settings: { trainingType, chunkSize: DEFAULT_CHUNK_SIZE }, ...metadata };
  return { collectionId: await storeAndCreate(file, input.caller, data, own, deps), rows };
}

/**
 * FastGPT's POST /api/core/dataset/collection/create/backup: a CSV that FastGPT's `collection/export` wrote (or one
 * made like it). Answers the row count as `insertLen`, as FastGPT does.
 */
export async function createBackupCollection(
  input: { upload: MultipartUpload; caller: CallerContext },
  deps: CreateFileDeps,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { collectionId, rows } = await importRows(input, createBackupDataSchema, 'backup', deps);
  return { collectionId, results: { insertLen: rows } };
}

/**
 * FastGPT's POST /api/core/dataset/collection/create/template: a CSV made from FastGPT's import template (q, a and
 * index columns), read as a backup is. Answers `{}`, as FastGPT's handler does (labring/FastGPT
 * projects/app/src/pages/api/core/dataset/collection/create/template.ts at 04b3226b).
 */
export async function createTemplateCollection(
  input: { upload: MultipartUpload; caller: CallerContext },
  deps: CreateFileDeps,
): Promise<Record<string, never>> {
  await importRows(input, createTemplateDataSchema, 'template', deps);
  return {};
}
