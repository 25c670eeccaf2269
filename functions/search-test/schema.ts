import { idField, missingFieldMessage, modelNameField, optionalTextField } from '#shared/schemas/dataset-fields';
import { wellFormed, withinChars } from '#shared/text';
import * as z from '#shared/zod';

/** FastGPT's searchTest defaults and bounds (projects/app/src/pages/api/core/dataset/searchTest.ts, v4.11–v4.16). */
export const SEARCH_TEST_LIMITS = {
  /** Token budget when none is given. */
  defaultLimit: 5_000,
  /** The largest budget: a larger one is cut to it, as FastGPT does. */
  maxLimit: 20_000,
  /** Longest question (characters): it is embedded and segmented, so it is bounded (docs/knowledge-base-search.md). */
  maxText: 10_000,
  /** Longest background of the query extension. */
  maxExtensionBg: 4_000,
} as const;

export const SEARCH_MODES = ['embedding', 'fullTextRecall', 'mixedRecall'] as const;

const weight = (field: string, fallback: number) =>
  z.pipe(
    z.nullish(
      z
        .number({ error: `${field} must be a number` })
        .check(z.gte(0, `${field} must be between 0 and 1`), z.lte(1, `${field} must be between 0 and 1`)),
    ),
    z.transform((v) => v ?? fallback),
  );

const flag = (field: string) =>
  z.pipe(
    z.nullish(z.boolean({ error: `${field} must be a boolean` })),
    z.transform((v) => v ?? false),
  );

const TEXT_MISSING = missingFieldMessage('text');

/**
 * The body of POST /api/core/dataset/searchTest. Unknown fields are dropped; an unknown `searchMode` is `embedding`,
 * as FastGPT reads it (DatasetSearchModeMap).
 */
export const searchTestBodySchema = /* @__PURE__ */ z.moduleSchema(() =>
  z.object(
    {
      datasetId: idField('datasetId'),
      text: z.string({ error: (issue) => (issue.input == null ? TEXT_MISSING : 'text must be a string') }).check(
        z.refine((s) => s.trim().length > 0, TEXT_MISSING),
        z.refine(
          withinChars(SEARCH_TEST_LIMITS.maxText),
          `text must be at most ${SEARCH_TEST_LIMITS.maxText} characters`,
        ),
        z.refine(wellFormed, 'text must be valid Unicode text'),
      ),
      limit: z.pipe(
        z.nullish(z.number({ error: 'limit must be a number' }).check(z.gte(0, 'limit must not be negative'))),
        z.transform((v) => Math.min(v ?? SEARCH_TEST_LIMITS.defaultLimit, SEARCH_TEST_LIMITS.maxLimit)),
      ),
      similarity: z.pipe(
        z.nullish(
          z
            .number({ error: 'similarity must be a number' })
            .check(z.gte(-1, 'similarity must be between -1 and 1'), z.lte(1, 'similarity must be between -1 and 1')),
        ),
        z.transform((v) => v ?? 0),
      ),
      searchMode: z.pipe(
        z.nullish(z.string({ error: 'searchMode must be a string' })),
        z.transform((v) => SEARCH_MODES.find((m) => m === v) ?? 'embedding'),
      ),
      embeddingWeight: weight('embeddingWeight', 0.5),
      usingReRank: flag('usingReRank'),
      rerankModel: modelNameField('rerankModel'),
      rerankWeight: weight('rerankWeight', 0.5),
      datasetSearchUsingExtensionQuery: flag('datasetSearchUsingExtensionQuery'),
      datasetSearchExtensionModel: modelNameField('datasetSearchExtensionModel'),
      datasetSearchExtensionBg: z.pipe(
        optionalTextField('datasetSearchExtensionBg', SEARCH_TEST_LIMITS.maxExtensionBg),
        z.transform((v) => v ?? ''),
      ),
    },
    { error: 'The body must be a JSON object' },
  ),
);
export type SearchTestBody = z.output<typeof searchTestBodySchema>;
