/**
 * FastGPT's own response types of the knowledge-base calls, written down as zod schemas to check our
 * answers with: what FastGPT's clients compile against, not what this API promises (that is the
 * OpenAPI document). Read from labring/FastGPT at three releases, and where they differ, what every
 * release's clients read is required:
 *
 * - v4.11.1 (e25d7ef): packages/global/core/dataset/type.d.ts (`DatasetListItemType`, `DatasetItemType`,
 *   `DatasetSchemaType`), packages/global/core/ai/model.d.ts (`EmbeddingModelItemType`,
 *   `LLMModelItemType`), packages/global/support/permission/controller.ts (`Permission`: `value`,
 *   `isOwner`, `has*Per`), packages/global/support/user/type.d.ts (`SourceMemberType`).
 * - v4.14.5.1 (cdb896e): the permission class renames `value` to `role` and adds `has*Role`.
 * - v4.16.0 (read at b60be54, the release's documentation commit): the same types as zod schemas
 *   (packages/global/core/dataset/type.ts, core/ai/model.schema.ts, support/permission/controller.ts
 *   `PermissionSchema`, support/user/type.ts `SourceMemberSchema`); `teamId`/`tmbId` are ObjectIds.
 *
 * Objects are loose, as FastGPT's are: a field FastGPT does not know is no breach.
 */
import * as z from 'zod';

const objectId = z.string().regex(/^[0-9a-fA-F]{24}$/, 'an ObjectId');
const parentId = z
  .string()
  .regex(/^([0-9a-fA-F]{24})?$/)
  .nullish();
/** FastGPT's dates travel as ISO strings; its schemas coerce them back. */
const date = z.coerce.date();

/** `DatasetTypeEnum` (v4.16 adds `dingtalk`). */
const datasetType = z.enum([
  'folder',
  'dataset',
  'websiteDataset',
  'externalFile',
  'apiDataset',
  'feishu',
  'yuque',
  'dingtalk',
]);

/** The serialized `Permission` class: v4.11's `value` and v4.12+'s `role` with its `has*Role` twins. */
export const fastgptPermission = z.looseObject({
  value: z.number().int(),
  role: z.number().int(),
  isOwner: z.boolean(),
  hasManagePer: z.boolean(),
  hasWritePer: z.boolean(),
  hasReadPer: z.boolean(),
  hasManageRole: z.boolean(),
  hasWriteRole: z.boolean(),
  hasReadRole: z.boolean(),
});

/** `SourceMemberType`: the avatar is a string up to v4.14, nullable since. */
export const fastgptSourceMember = z.looseObject({
  name: z.string(),
  avatar: z.string(),
  status: z.enum(['active', 'leave', 'forbidden']),
});

const priceAndBase = {
  provider: z.string(),
  model: z.string(),
  name: z.string(),
  avatar: z.string().optional(),
  charsPointsPrice: z.number().optional(),
  inputPrice: z.number().optional(),
  outputPrice: z.number().optional(),
  isActive: z.boolean().optional(),
  isCustom: z.boolean().optional(),
  isDefault: z.boolean().optional(),
};

/** `EmbeddingModelItemType`. */
export const fastgptEmbeddingModelItem = z.looseObject({
  ...priceAndBase,
  type: z.literal('embedding'),
  defaultToken: z.number(),
  maxToken: z.number(),
  weight: z.number(),
  hidden: z.boolean().optional(),
  normalization: z.boolean().optional(),
});

/** `LLMModelItemType`. */
export const fastgptLlmModelItem = z.looseObject({
  ...priceAndBase,
  type: z.literal('llm'),
  maxContext: z.number(),
  maxResponse: z.number(),
  quoteMaxToken: z.number(),
  maxTemperature: z.number().nullish(),
  vision: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  functionCall: z.boolean(),
  toolChoice: z.boolean(),
});

/** `DatasetListItemType`. */
export const fastgptDatasetListItem = z.looseObject({
  _id: objectId,
  tmbId: objectId,
  avatar: z.string(),
  updateTime: date,
  name: z.string(),
  intro: z.string(),
  type: datasetType,
  permission: fastgptPermission,
  vectorModel: fastgptEmbeddingModelItem,
  inheritPermission: z.boolean(),
  private: z.boolean().optional(),
  sourceMember: fastgptSourceMember.optional(),
  dataCount: z.number().optional(),
});

/** `DatasetItemType`: `DatasetSchemaType` without its model names, plus status, model items and permission. */
export const fastgptDatasetItem = z.looseObject({
  _id: objectId,
  parentId,
  userId: objectId.optional(),
  teamId: objectId,
  tmbId: objectId,
  updateTime: date,
  avatar: z.string(),
  name: z.string(),
  intro: z.string(),
  type: datasetType,
  inheritPermission: z.boolean(),
  status: z.enum(['active', 'syncing', 'waiting', 'error']),
  errorMsg: z.string().optional(),
  vectorModel: fastgptEmbeddingModelItem,
  agentModel: fastgptLlmModelItem,
  vlmModel: fastgptLlmModelItem.optional(),
  permission: fastgptPermission,
});

/** FastGPT's response envelope (`jsonRes`) around `data`. */
export const fastgptEnvelope = <T extends z.ZodType>(data: T) =>
  z.looseObject({ code: z.literal(200), statusText: z.string(), message: z.string(), data });

/** The answers of the calls the contract suite checks. */
export const FASTGPT_RESPONSES = {
  create: fastgptEnvelope(objectId),
  list: fastgptEnvelope(z.array(fastgptDatasetListItem)),
  detail: fastgptEnvelope(fastgptDatasetItem),
} as const;
