import * as z from 'zod';
import { idField } from '#shared/schemas/dataset-fields';

/** The query of GET /api/core/dataset/paths: no (or an empty) sourceId answers `[]`. */
export const pathsQuerySchema = z.object({
  sourceId: z.union([z.literal(''), idField('sourceId')]).optional(),
  type: z
    .enum(['current', 'parent'], { error: 'type must be "current" or "parent"' })
    .optional()
    .transform((v) => v ?? 'parent'),
});
export type PathsQuery = z.output<typeof pathsQuerySchema>;
