import { idField } from '#shared/schemas/dataset-fields';
import * as z from '#shared/zod';

/** The query of GET /api/core/dataset/paths: no (or an empty) sourceId answers `[]`. */
export const pathsQuerySchema = z.object({
  sourceId: z.optional(z.union([z.literal(''), idField('sourceId')])),
  type: z.pipe(
    z.optional(z.enum(['current', 'parent'], { error: 'type must be "current" or "parent"' })),
    z.transform((v) => v ?? 'parent'),
  ),
});
export type PathsQuery = z.output<typeof pathsQuerySchema>;
