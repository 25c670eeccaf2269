import { type DatasetApiError, datasetErrors } from '#shared/errors';
import { MAX_MODEL_NAME } from '#shared/model-catalog';
import { CONTROL_CHARACTER, wellFormed, withinChars } from '#shared/text';
import * as z from '#shared/zod';

/**
 * Field rules of the knowledge-base API, shared by every call (docs/knowledge-base-api.md). Every
 * message names its field and never repeats the value: a request may hold anything.
 */
export const DATASET_TYPES = ['dataset', 'folder'] as const;

/** The owner's permission value in both of FastGPT's spellings: `~0 >>> 0` (shared/dataset-views.ts shows it). */
export const OWNER_PERMISSION = 4294967295;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** Avatar stored when a request gives none, or a blank one. */
export const DEFAULT_AVATARS: Readonly<Record<DatasetType, string>> = {
  dataset: '/icon/logo.svg',
  folder: '/imgs/files/folder.svg',
};

// Messages that mean "a required field is absent" (400/507004 instead of 400/507000).
const MISSING_MESSAGES = new Set<string>();
/** The message of an absent required field (400/507004), registered so requestError knows it. */
export const missing = (field: string) => {
  const message = `${field} is required`;
  MISSING_MESSAGES.add(message);
  return message;
};

/** The message of a required field that is absent, answered as 400/507004 by requestError. */
export const missingFieldMessage = (field: string) => missing(field);

const MISSING_NAME = missing('name');

/** `name`: trimmed, 1..100 characters, no control characters; missing, null or blank is 507004. */
export const nameField = /* @__PURE__ */ z.moduleSchema(() =>
  z.string({ error: (issue) => (issue.input == null ? MISSING_NAME : 'name must be a string') }).check(
    z.trim(),
    z.minLength(1, MISSING_NAME),
    z.refine(withinChars(100), 'name must be at most 100 characters'),
    z.refine((s) => !CONTROL_CHARACTER.test(s), 'name must not contain control characters'),
    z.refine(wellFormed, 'name must be valid Unicode text'),
  ),
);

/** `type` of a new record: `dataset` when omitted or null. */
export const typeField = /* @__PURE__ */ z.moduleSchema(() =>
  z.pipe(
    z.nullish(z.enum(DATASET_TYPES, { error: 'type must be "dataset" or "folder"' })),
    z.transform((v) => v ?? 'dataset'),
  ),
);

/** A `type` filter or check: omitted, null or "" = none. */
export const optionalTypeField = /* @__PURE__ */ z.moduleSchema(() =>
  z.pipe(
    z.nullish(z.union([z.literal(''), z.enum(DATASET_TYPES)], { error: 'type must be "dataset" or "folder"' })),
    z.transform((v) => v || undefined),
  ),
);

const HEX_ID = /^[0-9a-fA-F]{24}$/;

// Ids are stored in lowercase; an uppercase spelling of the same ObjectId finds the same record.
/** `parentId`: omitted, null or "" = the root (null); otherwise a 24-character hex id, in lowercase. */
export const parentIdField = /* @__PURE__ */ z.moduleSchema(() =>
  z.pipe(
    z.nullish(
      z
        .string({ error: 'parentId must be a string or null' })
        .check(z.regex(/^([0-9a-fA-F]{24})?$/, 'parentId must be a 24-character hex id')),
    ),
    z.transform((v) => (v ? v.toLowerCase() : null)),
  ),
);

/** A required record id (`id`, `sourceId`): missing or empty is 507004, not 24 hex characters 507000. */
export const idField = (field: string) => {
  const absent = missing(field);
  return z.pipe(
    z
      .string({ error: (issue) => (issue.input == null ? absent : `${field} must be a string`) })
      .check(z.minLength(1, absent), z.regex(HEX_ID, `${field} must be a 24-character hex id`)),
    z.transform((v) => v.toLowerCase()),
  );
};

/** The query of the calls that name one record (detail, delete): `?id=<id>`. */
export const idQuerySchema = /* @__PURE__ */ z.moduleSchema(() => z.object({ id: idField('id') }));
export type IdQuery = z.output<typeof idQuerySchema>;

// null is accepted as "not given" for the optional strings: JSON clients often send it for absent values.
/** An optional free text of at most `max` characters. */
export const optionalTextField = (field: string, max: number) =>
  z.nullish(
    z
      .string({ error: `${field} must be a string` })
      .check(
        z.refine(withinChars(max), `${field} must be at most ${max} characters`),
        z.refine(wellFormed, `${field} must be valid Unicode text`),
      ),
  );

/**
 * An optional model name: omitted, null or blank = not given (undefined). A name may be one the catalogue
 * does not know (it is stored as sent), so it is bounded like any stored text.
 */
export const modelNameField = (field: string) =>
  z.pipe(
    z.nullish(
      z.string({ error: `${field} must be a string` }).check(
        z.refine(wellFormed, `${field} must be valid Unicode text`),
        z.refine((s) => withinChars(MAX_MODEL_NAME)(s.trim()), `${field} must be at most ${MAX_MODEL_NAME} characters`),
        z.refine((s) => !CONTROL_CHARACTER.test(s), `${field} must not contain control characters`),
      ),
    ),
    z.transform((v) => v?.trim() || undefined),
  );

/** Maps a failed parse to the API error: a missing required field first, then the first problem. */
export function requestError(error: z.core.$ZodError, what = 'The body is invalid'): DatasetApiError {
  const absent = error.issues.find((i) => MISSING_MESSAGES.has(i.message));
  if (absent) return datasetErrors.missingParams(absent.message);
  return datasetErrors.invalidParams(error.issues[0]?.message ?? what);
}
