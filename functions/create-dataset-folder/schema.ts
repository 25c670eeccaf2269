import { nameField, optionalTextField, parentIdField } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/**
 * The body of POST /api/core/dataset/folder/create, FastGPT's web client's folder call: `name`,
 * `parentId` and `intro` follow create's rules. Everything else (an `avatar` too, as in FastGPT) is dropped.
 */
export const createDatasetFolderBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object(
    {
      name: nameField,
      parentId: parentIdField,
      intro: z.pipe(
        optionalTextField('intro', 2000),
        z.transform((v) => v ?? ''),
      ),
    },
    { error: 'The body must be a JSON object' },
  ),
);
export type CreateDatasetFolderBody = z.output<typeof createDatasetFolderBodySchema>;
