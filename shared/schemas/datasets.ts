import * as z from 'zod';
import { DATASET_TYPES } from './dataset-fields.ts';

/** A knowledge base's or folder's id as the API returns it: 24 lowercase hex characters (MongoDB ObjectId-shaped). */
export const datasetIdSchema = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .meta({ description: '24 lowercase hex characters', examples: ['6740a1f2c3d4e5f6a7b8c9d0'] });

/** FastGPT's model object reduced to its name; null where no model is stored (a folder). */
export const modelViewSchema = z
  .strictObject({ model: z.string(), name: z.string() })
  .nullable()
  .meta({ description: 'The model, or null for a folder' });

/** One entry of a list's `data`. */
export const listItemSchema = z.strictObject({
  _id: datasetIdSchema,
  parentId: datasetIdSchema.nullable().meta({ description: 'The folder it is in; null at the root' }),
  type: z.enum(DATASET_TYPES),
  name: z.string(),
  intro: z.string(),
  avatar: z.string(),
  vectorModel: modelViewSchema,
  tmbId: z.string(),
  inheritPermission: z.literal(true),
  updateTime: z.iso.datetime(),
});
export type ListItem = z.infer<typeof listItemSchema>;

/** A detail's `data`: the stored record. */
export const detailSchema = listItemSchema.extend({
  teamId: z.string(),
  agentModel: modelViewSchema,
  vlmModel: modelViewSchema,
  createTime: z.iso.datetime(),
});
export type DatasetDetail = z.infer<typeof detailSchema>;

/** One folder of a paths answer, root first. */
export const pathEntrySchema = z.strictObject({ parentId: datasetIdSchema, parentName: z.string() });
export type PathEntry = z.infer<typeof pathEntrySchema>;
