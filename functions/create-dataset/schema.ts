import * as z from 'zod';
import { type DatasetApiError, datasetErrors } from '#shared/errors';
import { CONTROL_CHARACTER, wellFormed, withinChars } from '#shared/text';

export const DATASET_TYPES = ['dataset', 'folder'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** Avatar stored when the body gives none (SPEC 2.1). */
export const DEFAULT_AVATARS: Readonly<Record<DatasetType, string>> = {
  dataset: '/icon/logo.svg',
  folder: '/imgs/files/folder.svg',
};

const MISSING_NAME = 'name is required';

// Every message names its field and never repeats the value: the body may hold anything.
const name = z
  .string({ error: (issue) => (issue.input == null ? MISSING_NAME : 'name must be a string') })
  .trim()
  .min(1, MISSING_NAME)
  .refine(withinChars(100), 'name must be at most 100 characters')
  .refine((s) => !CONTROL_CHARACTER.test(s), 'name must not contain control characters')
  .refine(wellFormed, 'name must be valid Unicode text');

const type = z
  .enum(DATASET_TYPES, { error: 'type must be "dataset" or "folder"' })
  .nullish()
  .transform((v) => v ?? 'dataset');

// Ids are stored in lowercase; an uppercase spelling of the same ObjectId finds the same folder.
const parentId = z
  .string({ error: 'parentId must be a string or null' })
  .regex(/^([0-9a-fA-F]{24})?$/, 'parentId must be a 24-character hex id')
  .nullish()
  .transform((v) => (v ? v.toLowerCase() : null));

// null is accepted as "not given" for the optional strings: JSON clients often send it for absent values.
const optionalText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .refine(withinChars(max), `${field} must be at most ${max} characters`)
    .refine(wellFormed, `${field} must be valid Unicode text`)
    .nullish();

const modelName = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .refine(wellFormed, `${field} must be valid Unicode text`)
    .nullish()
    .transform((v) => v?.trim() || undefined);

/** The request body of POST /api/core/dataset/create (SPEC 2.1); unknown fields are dropped. */
export const createDatasetBodySchema = z.object(
  {
    name,
    type,
    parentId,
    intro: optionalText('intro', 2000).transform((v) => v ?? ''),
    // Blank means "not given" too, so the per-type default applies (it depends on `type`).
    avatar: optionalText('avatar', 1024).transform((v) => v || undefined),
    vectorModel: modelName('vectorModel'),
    agentModel: modelName('agentModel'),
    vlmModel: modelName('vlmModel'),
  },
  { error: 'The body must be a JSON object' },
);

export type CreateDatasetBody = z.infer<typeof createDatasetBodySchema>;

/** Maps a failed parse of the body to the API error of SPEC 2.2 (missing name first, then the first problem). */
export function bodyError(error: z.ZodError): DatasetApiError {
  const missingName = error.issues.find((i) => i.path[0] === 'name' && i.message === MISSING_NAME);
  if (missingName) return datasetErrors.missingParams(MISSING_NAME);
  return datasetErrors.invalidParams(error.issues[0]?.message ?? 'The body is invalid');
}
