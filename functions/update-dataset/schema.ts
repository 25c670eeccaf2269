import {
  idField,
  modelNameField,
  nameField,
  optionalTextField,
  optionalTypeField,
  parentIdField,
} from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/**
 * The body of PUT /api/core/dataset/update. A field that is absent (or null, for the optional texts
 * and models) stays as it is; `parentId` null or "" moves to the root. Unknown fields are dropped.
 */
export const updateDatasetBodySchema = z.object(
  {
    id: idField('id'),
    name: z.optional(nameField),
    intro: z.pipe(
      optionalTextField('intro', 2000),
      z.transform((v) => v ?? undefined),
    ),
    avatar: z.pipe(
      optionalTextField('avatar', 1024),
      z.transform((v) => v ?? undefined),
    ),
    // Absent: stays. The create rules map null and "" to the root.
    parentId: z.optional(parentIdField),
    agentModel: modelNameField('agentModel'),
    vlmModel: modelNameField('vlmModel'),
    // Never change; naming them with the value they have is accepted.
    vectorModel: modelNameField('vectorModel'),
    type: optionalTypeField,
  },
  { error: 'The body must be a JSON object' },
);
export type UpdateDatasetBody = z.output<typeof updateDatasetBodySchema>;
