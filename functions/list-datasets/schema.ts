import { optionalTextField, optionalTypeField, parentIdField } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/** The body of POST /api/core/dataset/list; unknown fields are dropped. */
export const listDatasetsBodySchema = z.object(
  {
    parentId: parentIdField,
    type: optionalTypeField,
    searchKey: z.pipe(
      optionalTextField('searchKey', 100),
      z.transform((v) => v?.trim() || undefined),
    ),
  },
  { error: 'The body must be a JSON object' },
);
export type ListDatasetsBody = z.output<typeof listDatasetsBodySchema>;
