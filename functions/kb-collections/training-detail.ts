import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import type { TrainingType } from '#shared/kb/contract';
import { type TrainingCounts, trainingStagesOf, zeroCounts } from '#shared/kb/training-stages';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import type { CollectionIdInput } from '#shared/schemas/kb-content';

/*
 * GET /api/core/dataset/collection/trainingDetail?collectionId= (docs/knowledge-base-api.md, "Training detail"):
 * FastGPT's counts of one collection's training by stage, which its web client's training dialog draws (parsing, Q&A,
 * vectorizing, ready). FastGPT counts the items of its training queue; this product trains a collection as a whole,
 * so the counts come from the collection's own state.
 */

export interface TrainingDetail {
  trainingType: TrainingType;
  /** FastGPT's enhanced training options; this product has none of them. */
  advancedTraining: { customPdfParse: boolean; imageIndex: boolean; autoIndexes: boolean };
  /** In FastGPT, other collections' items ahead of this one in the shared queue: here always 0 (SQS has no order to count). */
  queuedCounts: TrainingCounts;
  trainingCounts: TrainingCounts;
  errorCounts: TrainingCounts;
  /** Chunks stored (FastGPT counts its data items). */
  trainedCount: number;
}

/** A collection's training in FastGPT's stages (shared/kb/training-stages.ts): no other collection's items ahead. */
export function trainingDetailOf(c: StoredCollection): TrainingDetail {
  const { active, errors } = trainingStagesOf(c);
  return {
    trainingType: c.settings?.trainingType ?? 'chunk',
    advancedTraining: { customPdfParse: false, imageIndex: false, autoIndexes: false },
    queuedCounts: zeroCounts(),
    trainingCounts: active,
    errorCounts: errors,
    trainedCount: Math.max(0, c.dataAmount ?? 0),
  };
}

/** The training detail of one of the caller's collections (404/501003 for another team's or an unknown one). */
export async function collectionTrainingDetail(
  input: { query: CollectionIdInput; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection'> },
): Promise<TrainingDetail> {
  return trainingDetailOf(await requireCollection(deps.content, input.caller.teamId, input.query.collectionId));
}
