import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import type { TrainingType } from '#shared/kb/contract';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import type { CollectionIdInput } from '#shared/schemas/kb-content';

/*
 * GET /api/core/dataset/collection/trainingDetail?collectionId= (docs/knowledge-base-api.md, "Training detail"):
 * FastGPT's counts of one collection's training by stage, which its web client's training dialog draws (parsing, Q&A,
 * vectorizing, ready). FastGPT counts the items of its training queue; this product trains a collection as a whole,
 * so the counts come from the collection's own state.
 */

/**
 * FastGPT's TrainingModeEnum as its trainingDetail handler answers it (labring/FastGPT
 * projects/app/src/pages/api/core/dataset/collection/trainingDetail.ts at 054c3f18, v4.14+): every count carries each
 * mode, as FastGPT's do (an older client reads the ones it knows).
 */
export const TRAINING_MODES = [
  'parse',
  'qa',
  'chunk',
  'image',
  'auto',
  'imageParse',
  'databaseSchema',
  'hype',
  'small2Big',
  'synonymStandardize',
  'synonymRestore',
  'synthesis',
] as const;
export type TrainingMode = (typeof TRAINING_MODES)[number];
export type TrainingCounts = Record<TrainingMode, number>;

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

const zeros = (): TrainingCounts => Object.fromEntries(TRAINING_MODES.map((mode) => [mode, 0])) as TrainingCounts;

/**
 * A collection's state in FastGPT's stages: `queued` (its source not read yet) is one item being parsed; `training`
 * counts its items in the Q&A stage (`qa` collections) or the embedding one; items pushed and not embedded yet count
 * as embedding; chunks without a vector are embedding errors; a failed training with none is an error of the stage
 * before (reading and splitting, or writing Q&A pairs), one item, as FastGPT's parse item.
 */
export function trainingDetailOf(c: StoredCollection): TrainingDetail {
  const qa = c.settings?.trainingType === 'qa';
  const trainingCounts = zeros();
  const errorCounts = zeros();
  const pending = Math.max(0, c.trainingAmount ?? 0);
  if (c.status === 'queued') {
    trainingCounts.parse = 1;
    trainingCounts.chunk = Math.max(0, pending - 1);
  } else if (c.status === 'training' && qa) {
    trainingCounts.qa = pending;
  } else {
    trainingCounts.chunk = pending;
  }
  errorCounts.chunk = Math.max(0, c.failedChunks ?? 0);
  if (c.status === 'error' && errorCounts.chunk === 0) errorCounts[qa ? 'qa' : 'parse'] = 1;
  return {
    trainingType: c.settings?.trainingType ?? 'chunk',
    advancedTraining: { customPdfParse: false, imageIndex: false, autoIndexes: false },
    queuedCounts: zeros(),
    trainingCounts,
    errorCounts,
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
