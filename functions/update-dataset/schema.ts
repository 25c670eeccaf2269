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
 * The body of PUT /api/core/dataset/update. A field that is absent (or null, for the optional texts,
 * the models and the name) stays as it is; `parentId` null or "" moves to the root. Unknown fields are dropped.
 */
export const updateDatasetBodySchema = z.object(
  {
    id: idField('id'),
    // null, "" or blank leaves the name as it is, as in FastGPT (which only sets a name that is given).
    name: z.pipe(
      z.pipe(
        z.nullish(z.string({ error: 'name must be a string' })),
        z.transform((v) => (v?.trim() ? v : undefined)),
      ),
      z.optional(nameField),
    ),
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
    // The newest FastGPT's spellings, read as the model's name; the field without `Id` wins.
    agentModelId: modelNameField('agentModelId'),
    vlmModelId: modelNameField('vlmModelId'),
    // Never changes; naming it with the value it has is accepted. (`vectorModel` is ignored, as in FastGPT.)
    type: optionalTypeField,
  },
  { error: 'The body must be a JSON object' },
);
export type UpdateDatasetBody = z.output<typeof updateDatasetBodySchema>;
