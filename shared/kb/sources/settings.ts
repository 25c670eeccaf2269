import { idField, missing, optionalTextField, parentIdField } from '../../schemas/dataset-fields.ts';
import { chunkSettingFields, intField as wholeNumber } from '../../schemas/kb-content.ts';
import * as z from '../../zod.ts';
import type { ChunkSettings } from '../contract.ts';

/*
 * The bodies of FastGPT's link and localFile calls (ApiCreateDatasetCollectionParams, read at v4.11–v4.16): the
 * knowledge base, the folder, and the chunk settings every create shares. Fields FastGPT has that the product does
 * not use (chunkSettingMode, chunkSplitMode, paragraphChunk*, customPdfParse, imageIndex, autoIndexes, ...) are
 * ignored, as any unknown field. Messages name the field, never the value.
 */

/** FastGPT's chunk size when the client sends none (docs/knowledge-base-chunking.md). */
export const DEFAULT_CHUNK_SIZE = 1000;

const intField = (field: string, min: number, max: number) => z.nullish(wholeNumber(field, min, max));

const tagsField = z.nullish(
  z
    .array(
      z.string({ error: 'tags must be strings' }).check(z.maxLength(100, 'a tag must be at most 100 characters')),
      { error: 'tags must be an array of strings' },
    )
    .check(z.maxLength(50, 'tags must name at most 50 tags')),
);
const metadataField = z.nullish(z.record(z.string(), z.unknown(), { error: 'metadata must be an object' }));

const sharedFields = {
  datasetId: idField('datasetId'),
  parentId: parentIdField,
  trainingType: z.pipe(
    z.nullish(z.enum(['chunk', 'qa', 'auto'], { error: 'trainingType must be "chunk" or "qa"' })),
    // FastGPT's older `auto` mode trains as chunks here.
    z.transform((v) => (v === 'qa' ? 'qa' : 'chunk') as 'chunk' | 'qa'),
  ),
  chunkSize: intField('chunkSize', 64, 20_000),
  chunkSplitter: optionalTextField('chunkSplitter', 100),
  indexSize: intField('indexSize', 64, 20_000),
  qaPrompt: optionalTextField('qaPrompt', 10_000),
  tags: tagsField,
};

/** POST /api/core/dataset/collection/create/link. */
export const createLinkBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    ...sharedFields,
    // Missing or blank is 507004, answered by the call (createLinkCollection).
    link: z.nullish(
      z
        .string({ error: 'link must be a string' })
        .check(z.trim(), z.maxLength(2048, 'link must be at most 2048 characters')),
    ),
    /** Not FastGPT's: a name for the collection (FastGPT names a link collection after its link). */
    name: optionalTextField('name', 100),
    metadata: metadataField,
  }),
);
export type CreateLinkBody = z.output<typeof createLinkBodySchema>;

/** The `data` field of POST /api/core/dataset/collection/create/localFile (JSON). */
export const createFileDataSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    ...sharedFields,
    /** FastGPT's: kept on the collection's metadata. */
    collectionMetadata: metadataField,
    metadata: metadataField,
  }),
);
export type CreateFileData = z.output<typeof createFileDataSchema>;

/**
 * POST /api/core/dataset/collection/create/fileId (FastGPT's FileIdCreateDatasetCollectionParams): the file named by
 * the key `presignDatasetFilePostUrl` answered, and the settings of every create.
 */
export const createFileIdBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    ...sharedFields,
    fileId: z
      .string({ error: 'fileId must be a string' })
      .check(z.trim(), z.minLength(1, 'fileId is required'), z.maxLength(300, 'fileId must be at most 300 characters')),
    metadata: metadataField,
  }),
);

/** POST /api/core/dataset/presignDatasetFilePostUrl and …/file/presignDatasetFilePostUrl (FastGPT's PresignDatasetFilePostUrlParams). */
export const presignUploadBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: idField('datasetId'),
    filename: z
      .string({ error: 'filename must be a string' })
      .check(
        z.trim(),
        z.minLength(1, 'filename is required'),
        z.maxLength(255, 'filename must be at most 255 characters'),
      ),
  }),
);

/** FastGPT's DatasetSourceReadTypeEnum: what `sourceId` names in file/getPreviewChunks. */
export const PREVIEW_SOURCE_TYPES = ['fileLocal', 'link', 'reTraining', 'externalFile', 'apiFile'] as const;
/** Chunks the preview answers when the body asks for no number (FastGPT's first 10). */
export const DEFAULT_PREVIEW_CHUNKS = 10;
/** The most chunks one preview answers (`previewLimit`, sent by FastGPT's newest web client to show more). */
export const MAX_PREVIEW_CHUNKS = 50;

/**
 * POST /api/core/dataset/file/getPreviewChunks (FastGPT's GetPreviewChunksBodySchema): the source (`type`, `sourceId`,
 * a link's `selector`) and the chunk settings of a create. `trainingType` stays as sent (not defaulted): for
 * `reTraining` a setting not sent keeps the collection's, as a training again does. FastGPT's `overlapRatio` and its
 * other chunk fields are ignored: the preview cuts as the training will (shared/kb/training-items.ts).
 */
export const previewChunksBodySchema = /* @__PURE__ */ z.moduleSchema(() => {
  const typeMissing = missing('type');
  const sourceMissing = missing('sourceId');
  return z.object({
    datasetId: idField('datasetId'),
    type: z.enum(PREVIEW_SOURCE_TYPES, {
      error: (issue) => (issue.input == null ? typeMissing : `type must be one of ${PREVIEW_SOURCE_TYPES.join(', ')}`),
    }),
    sourceId: z
      .string({ error: (issue) => (issue.input == null ? sourceMissing : 'sourceId must be a string') })
      .check(z.trim(), z.minLength(1, sourceMissing), z.maxLength(2048, 'sourceId must be at most 2048 characters')),
    selector: optionalTextField('selector', 1000),
    trainingType: z.nullish(z.enum(['chunk', 'qa', 'auto'], { error: 'trainingType must be "chunk" or "qa"' })),
    chunkSize: chunkSettingFields.chunkSize,
    chunkSplitter: chunkSettingFields.chunkSplitter,
    previewLimit: intField('previewLimit', 1, MAX_PREVIEW_CHUNKS),
  });
});
export type PreviewChunksBody = z.output<typeof previewChunksBodySchema>;

/** The `data` field of POST /api/core/dataset/collection/create/backup (JSON; FastGPT's CreateBackupCollectionFormSchema). */
export const createBackupDataSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({ datasetId: sharedFields.datasetId, parentId: sharedFields.parentId, tags: tagsField }),
);

/**
 * The `data` field of POST /api/core/dataset/collection/create/template (JSON; FastGPT's
 * CreateTemplateCollectionFormSchema): the backup's fields and the collection's metadata. FastGPT's schema also takes
 * the chunk settings of every create, which its template mode deletes (collection/controller.ts): ignored here too.
 */
export const createTemplateDataSchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    datasetId: sharedFields.datasetId,
    parentId: sharedFields.parentId,
    tags: tagsField,
    metadata: metadataField,
  }),
);

/** The stored settings of a create body. */
export function chunkSettingsOf(body: {
  trainingType: 'chunk' | 'qa';
  chunkSize?: number | null | undefined;
  chunkSplitter?: string | null | undefined;
  indexSize?: number | null | undefined;
  qaPrompt?: string | null | undefined;
}): ChunkSettings {
  return {
    trainingType: body.trainingType,
    chunkSize: body.chunkSize ?? DEFAULT_CHUNK_SIZE,
    ...(body.chunkSplitter ? { chunkSplitter: body.chunkSplitter } : {}),
    ...(body.indexSize ? { indexSize: body.indexSize } : {}),
    ...(body.qaPrompt ? { qaPrompt: body.qaPrompt } : {}),
  };
}
