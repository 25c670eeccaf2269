import type { StoredCollection } from '../repositories/kb-content.ts';

/*
 * A collection's training in FastGPT's stages (docs/knowledge-base-api.md, "Training detail", "Training status of a
 * collection"). FastGPT counts the items of its training queue by mode; this product trains a collection as a whole,
 * so the counts come from the collection's own state. trainingDetail answers the counts; listV2 and detail answer the
 * status FastGPT's newer web client draws its badge from (`slowestTrainingStatus`).
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

/** Every mode at 0. */
export const zeroCounts = (): TrainingCounts =>
  Object.fromEntries(TRAINING_MODES.map((mode) => [mode, 0])) as TrainingCounts;

/**
 * Items still being trained and items that failed for good, by mode. `queued` (its source not read yet) is one item
 * being parsed; `training` counts its items in the Q&A stage (`qa` collections) or the embedding one; items pushed and
 * not embedded yet count as embedding; chunks without a vector are embedding errors; a failed training with none is
 * an error of the stage before (reading and splitting, or writing Q&A pairs), one item, as FastGPT's parse item.
 */
export function trainingStagesOf(c: StoredCollection): { active: TrainingCounts; errors: TrainingCounts } {
  const qa = c.settings?.trainingType === 'qa';
  const active = zeroCounts();
  const errors = zeroCounts();
  const pending = Math.max(0, c.trainingAmount ?? 0);
  if (c.status === 'queued') {
    active.parse = 1;
    active.chunk = Math.max(0, pending - 1);
  } else if (c.status === 'training' && qa) {
    active.qa = pending;
  } else {
    active.chunk = pending;
  }
  errors.chunk = Math.max(0, c.failedChunks ?? 0);
  if (c.status === 'error' && errors.chunk === 0) errors[qa ? 'qa' : 'parse'] = 1;
  return { active, errors };
}

/**
 * FastGPT's stage order (`trainingModeRankMap` of packages/service/core/dataset/training/query.ts, labring/FastGPT at
 * the version with `getSlowestTrainingStatus`): the earlier a stage, the slower a collection still in it.
 */
const STAGE_RANK: Partial<Record<TrainingMode, number>> = {
  parse: 0,
  imageParse: 1,
  qa: 2,
  image: 3,
  auto: 4,
  chunk: 5,
};

/**
 * FastGPT's `CollectionTrainingStatusSchema` fields of a list item and a detail: the items still being trained, those
 * failed for good, and the slowest stage with work left (`running` while it has items in training, `error` when it has
 * only failed ones; `ready` and no stage when none is left), as `getSlowestTrainingStatus` reads its counts.
 */
export function trainingStatusOf(c: StoredCollection): {
  activeTrainingAmount: number;
  finalErrorAmount: number;
  slowestTrainingMode?: TrainingMode;
  slowestTrainingStatus: 'running' | 'error' | 'ready';
} {
  const { active, errors } = trainingStagesOf(c);
  const sum = (counts: TrainingCounts) => TRAINING_MODES.reduce((n, mode) => n + counts[mode], 0);
  const amounts = { activeTrainingAmount: sum(active), finalErrorAmount: sum(errors) };
  const slowest = TRAINING_MODES.filter((mode) => active[mode] + errors[mode] > 0).sort(
    (a, b) => (STAGE_RANK[a] ?? Number.MAX_SAFE_INTEGER) - (STAGE_RANK[b] ?? Number.MAX_SAFE_INTEGER),
  )[0];
  if (slowest === undefined) return { ...amounts, slowestTrainingStatus: 'ready' };
  return { ...amounts, slowestTrainingMode: slowest, slowestTrainingStatus: active[slowest] > 0 ? 'running' : 'error' };
}
