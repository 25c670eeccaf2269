import { DATASET_TYPES, optionalTextField, optionalTypeField, parentIdField } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

const TYPE_MESSAGE = 'type must be "dataset" or "folder"';

/**
 * `type`: one type, or several (FastGPT's web client up to 4.14 sends an array); omitted, null or ""
 * = every type. An array keeps the records of the types it names, so `[]` keeps none, as in FastGPT.
 */
const typeFilterField = /* @__PURE__ */ z.moduleSchema(() =>
  z.union(
    [
      optionalTypeField,
      z.pipe(
        z
          .array(z.enum(DATASET_TYPES, { error: TYPE_MESSAGE }), { error: TYPE_MESSAGE })
          .check(z.maxLength(DATASET_TYPES.length * 4, 'type must name at most 8 types')),
        z.transform((types) => [...new Set(types)]),
      ),
    ],
    { error: TYPE_MESSAGE },
  ),
);

/**
 * The body of POST /api/core/dataset/list (and the query of GET): `parentId` omitted = every record of
 * the team, flat; null or "" = the root; an id = that folder. Unknown fields are dropped.
 */
export const listDatasetsBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object(
    {
      // Absent stays undefined (the whole team); the field maps null and "" to the root (null).
      parentId: z.optional(parentIdField),
      type: typeFilterField,
      searchKey: z.pipe(
        optionalTextField('searchKey', 100),
        z.transform((v) => v?.trim() || undefined),
      ),
    },
    { error: 'The body must be a JSON object' },
  ),
);
export type ListDatasetsBody = z.output<typeof listDatasetsBodySchema>;

/** The query of GET /api/core/dataset/list: the same fields, each given once as text. */
export const listDatasetsQuerySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object({
    parentId: z.optional(parentIdField),
    type: optionalTypeField,
    searchKey: z.pipe(
      optionalTextField('searchKey', 100),
      z.transform((v) => v?.trim() || undefined),
    ),
  }),
);
