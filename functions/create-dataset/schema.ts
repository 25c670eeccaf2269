import {
  modelNameField,
  nameField,
  optionalTextField,
  parentIdField,
  requestError,
  typeField,
} from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

export { DEFAULT_AVATARS } from '#shared/schemas/dataset-fields';

/** The request body of POST /api/core/dataset/create; unknown fields are dropped. */
export const createDatasetBodySchema = z.object(
  {
    name: nameField,
    type: typeField,
    parentId: parentIdField,
    intro: z.pipe(
      optionalTextField('intro', 2000),
      z.transform((v) => v ?? ''),
    ),
    // Blank means "not given" too, so the per-type default applies (it depends on `type`).
    avatar: z.pipe(
      optionalTextField('avatar', 1024),
      z.transform((v) => v || undefined),
    ),
    vectorModel: modelNameField('vectorModel'),
    agentModel: modelNameField('agentModel'),
    vlmModel: modelNameField('vlmModel'),
    // The newest FastGPT sends these names (a model's id there); read as the model's name. The field
    // without `Id` wins when a body holds both.
    vectorModelId: modelNameField('vectorModelId'),
    agentModelId: modelNameField('agentModelId'),
    vlmModelId: modelNameField('vlmModelId'),
  },
  { error: 'The body must be a JSON object' },
);

export type CreateDatasetBody = z.infer<typeof createDatasetBodySchema>;

/** Maps a failed parse of the body to the API error (missing name first, then the first problem). */
export const bodyError = (error: z.core.$ZodError) => requestError(error);
