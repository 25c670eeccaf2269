import * as z from 'zod';
import { optionalTextField, optionalTypeField, parentIdField } from '#shared/schemas/dataset-fields';

/** The body of POST /api/core/dataset/list; unknown fields are dropped. */
export const listDatasetsBodySchema = z.object(
  {
    parentId: parentIdField,
    type: optionalTypeField,
    searchKey: optionalTextField('searchKey', 100).transform((v) => v?.trim() || undefined),
  },
  { error: 'The body must be a JSON object' },
);
export type ListDatasetsBody = z.output<typeof listDatasetsBodySchema>;
