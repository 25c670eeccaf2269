import * as z from 'zod';
import { DATASET_TYPES, OWNER_PERMISSION } from './dataset-fields.ts';

/** A knowledge base's or folder's id as the API returns it: 24 lowercase hex characters (MongoDB ObjectId-shaped). */
export const datasetIdSchema = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .meta({ description: '24 lowercase hex characters', examples: ['6740a1f2c3d4e5f6a7b8c9d0'] });

const count = () => z.int().positive();

/** FastGPT's embedding model item: what its dataset pages read of a vector model. */
export const embeddingModelItemSchema = z
  .strictObject({
    provider: z.string().meta({ description: 'FastGPT provider id, e.g. `OpenAI`; `Other` when unknown' }),
    model: z.string(),
    name: z.string(),
    type: z.literal('embedding'),
    charsPointsPrice: z.number().nonnegative(),
    defaultToken: count(),
    maxToken: count(),
    weight: z.number().nonnegative(),
  })
  .meta({ description: "A vector model: the catalogue's item (the default model's when the stored name is unknown)" });

/** FastGPT's language model item (agent and vision models). */
export const llmModelItemSchema = z
  .strictObject({
    provider: z.string(),
    model: z.string(),
    name: z.string(),
    type: z.literal('llm'),
    charsPointsPrice: z.number().nonnegative(),
    maxContext: count(),
    maxResponse: count(),
    quoteMaxToken: count(),
    functionCall: z.boolean(),
    toolChoice: z.boolean(),
    vision: z.boolean(),
  })
  .meta({
    description: "A language model: the catalogue's item (the default model's when the stored name is unknown)",
  });

/**
 * FastGPT's permission object as its pages read it: `value` (FastGPT <= 4.11) and `role` (>= 4.12),
 * the `has*Per` flags and their `has*Role` twins. A token's member owns what its team holds.
 */
export const permissionSchema = z
  .strictObject({
    value: z.literal(OWNER_PERMISSION),
    role: z.literal(OWNER_PERMISSION),
    isOwner: z.literal(true),
    hasManagePer: z.literal(true),
    hasWritePer: z.literal(true),
    hasReadPer: z.literal(true),
    hasManageRole: z.literal(true),
    hasWriteRole: z.literal(true),
    hasReadRole: z.literal(true),
  })
  .meta({ description: "The caller's permission: a token's member owns every record of its team" });
export type PermissionView = z.infer<typeof permissionSchema>;

/** FastGPT's `sourceMember`: who created the record. */
export const sourceMemberSchema = z
  .strictObject({
    name: z.string().meta({ description: '`member-<tmbId>`: the API knows no member names' }),
    avatar: z.string(),
    status: z.literal('active'),
  })
  .meta({ description: "The record's creator (its `tmbId`)" });

/** One entry of a list's `data`. */
export const listItemSchema = z.strictObject({
  _id: datasetIdSchema,
  parentId: datasetIdSchema.nullable().meta({ description: 'The folder it is in; null at the root' }),
  type: z.enum(DATASET_TYPES),
  name: z.string(),
  intro: z.string(),
  avatar: z.string(),
  vectorModel: embeddingModelItemSchema,
  tmbId: z.string(),
  inheritPermission: z.literal(true),
  updateTime: z.iso.datetime(),
  permission: permissionSchema,
  private: z.literal(false).meta({ description: 'Always false: every token of the team sees the record' }),
  sourceMember: sourceMemberSchema,
});
export type ListItem = z.infer<typeof listItemSchema>;

/** A detail's `data`: the stored record. */
export const detailSchema = listItemSchema.omit({ private: true, sourceMember: true }).extend({
  teamId: z.string(),
  status: z.literal('active'),
  agentModel: llmModelItemSchema,
  vlmModel: llmModelItemSchema,
  createTime: z.iso.datetime(),
});
export type DatasetDetail = z.infer<typeof detailSchema>;

/** One folder of a paths answer, root first. */
export const pathEntrySchema = z.strictObject({ parentId: datasetIdSchema, parentName: z.string() });
export type PathEntry = z.infer<typeof pathEntrySchema>;
