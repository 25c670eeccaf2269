import { describe, expect, it } from 'vitest';
import { trainingDetailOf } from '#functions/kb-collections/training-detail';
import { TRAINING_MODES, trainingStatusOf } from '#shared/kb/training-stages';
import type { StoredCollection } from '#shared/repositories/kb-content';

// FastGPT's training dialog (projects/app/src/pageComponents/dataset/detail/CollectionCard/TrainingStates.tsx) shows
// "parsing" running while `trainingCounts.parse > 0`, a stage as failed while its `errorCounts` is above 0, and
// "ready" when every count is 0.

const base: StoredCollection = {
  pk: 'p',
  sk: 's',
  id: 'a'.repeat(24),
  teamId: 't',
  tmbId: 'm',
  datasetId: 'b'.repeat(24),
  parentId: null,
  parentKey: 'k',
  type: 'virtual',
  name: 'c',
  status: 'ready',
  generation: 1,
  createTime: '2026-11-28T00:00:00.000Z',
  updateTime: '2026-11-28T00:00:00.000Z',
  dataAmount: 0,
  trainingAmount: 0,
};
const detail = (changes: Partial<StoredCollection>) => trainingDetailOf({ ...base, ...changes });
/** The counts that are not 0, by mode. */
const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

describe('trainingDetailOf: a collection in FastGPT’s training stages', () => {
  it('answers every mode in every count, all 0 for a trained collection, its chunks as trainedCount', () => {
    const ready = detail({ dataAmount: 7 });

    for (const counts of [ready.queuedCounts, ready.trainingCounts, ready.errorCounts]) {
      expect(Object.keys(counts)).toEqual([...TRAINING_MODES]);
      expect(nonZero(counts)).toEqual({});
    }
    expect(ready).toMatchObject({ trainingType: 'chunk', trainedCount: 7 });
  });

  it('shows a queued collection as one item being parsed, and items pushed meanwhile as waiting to be embedded', () => {
    expect(nonZero(detail({ status: 'queued', generation: 0, trainingAmount: 1 }).trainingCounts)).toEqual({
      parse: 1,
    });
    expect(nonZero(detail({ status: 'queued', generation: 0, trainingAmount: 4 }).trainingCounts)).toEqual({
      parse: 1,
      chunk: 3,
    });
  });

  it('counts a training collection’s items in the Q&A stage for qa training, else in the embedding stage', () => {
    const settings = { trainingType: 'qa', chunkSize: 1000 } as const;
    expect(nonZero(detail({ status: 'training', trainingAmount: 12 }).trainingCounts)).toEqual({ chunk: 12 });
    const qa = detail({ status: 'training', trainingAmount: 5, settings });
    expect(nonZero(qa.trainingCounts)).toEqual({ qa: 5 });
    expect(qa.trainingType).toBe('qa');
  });

  it('counts chunks without a vector as embedding errors, and a failure before any chunk as one error of its stage', () => {
    expect(nonZero(detail({ status: 'error', failedChunks: 3, dataAmount: 3 }).errorCounts)).toEqual({ chunk: 3 });
    expect(nonZero(detail({ status: 'error', dataAmount: 0 }).errorCounts)).toEqual({ parse: 1 });
    const settings = { trainingType: 'qa', chunkSize: 1000 } as const;
    expect(nonZero(detail({ status: 'error', settings }).errorCounts)).toEqual({ qa: 1 });
  });

  it('counts pushed items still waiting on a trained collection as embedding, beside its earlier errors', () => {
    const pending = detail({ status: 'error', failedChunks: 1, dataAmount: 2, trainingAmount: 2 });

    expect(nonZero(pending.trainingCounts)).toEqual({ chunk: 2 });
    expect(nonZero(pending.errorCounts)).toEqual({ chunk: 1 });
    expect(pending.trainedCount).toBe(2);
  });
});

// FastGPT's newer web client draws a collection's badge from `slowestTrainingStatus` and `slowestTrainingMode` of
// listV2 and detail (projects/app/src/web/core/dataset/trainingStatus.ts: `error` red, `running` by stage, else
// "ready"), and opens the training dialog only while it is `running` or `error`.
describe('trainingStatusOf: the status FastGPT’s list and detail answer', () => {
  const status = (changes: Partial<StoredCollection>) => trainingStatusOf({ ...base, ...changes });
  const qa = { trainingType: 'qa', chunkSize: 1000 } as const;

  it('is ready, with no stage, for a collection with nothing left', () => {
    expect(status({ dataAmount: 7 })).toEqual({
      activeTrainingAmount: 0,
      finalErrorAmount: 0,
      slowestTrainingStatus: 'ready',
    });
  });

  it('runs in the earliest stage with items left: parsing while queued, then Q&A or embedding', () => {
    expect(status({ status: 'queued', generation: 0, trainingAmount: 4 })).toEqual({
      activeTrainingAmount: 4,
      finalErrorAmount: 0,
      slowestTrainingMode: 'parse',
      slowestTrainingStatus: 'running',
    });
    expect(status({ status: 'training', trainingAmount: 5, settings: qa })).toMatchObject({
      slowestTrainingMode: 'qa',
      slowestTrainingStatus: 'running',
    });
    expect(status({ status: 'training', trainingAmount: 12 })).toMatchObject({
      activeTrainingAmount: 12,
      slowestTrainingMode: 'chunk',
      slowestTrainingStatus: 'running',
    });
  });

  it('is an error of the stage that failed, and running again while the same stage still has items in training', () => {
    expect(status({ status: 'error', dataAmount: 0 })).toEqual({
      activeTrainingAmount: 0,
      finalErrorAmount: 1,
      slowestTrainingMode: 'parse',
      slowestTrainingStatus: 'error',
    });
    expect(status({ status: 'error', settings: qa })).toMatchObject({ slowestTrainingMode: 'qa' });
    expect(status({ status: 'error', failedChunks: 3 })).toMatchObject({
      finalErrorAmount: 3,
      slowestTrainingMode: 'chunk',
      slowestTrainingStatus: 'error',
    });
    // FastGPT: the slowest stage shows `error` only when it has nothing left in training.
    expect(status({ status: 'error', failedChunks: 1, trainingAmount: 2 })).toEqual({
      activeTrainingAmount: 2,
      finalErrorAmount: 1,
      slowestTrainingMode: 'chunk',
      slowestTrainingStatus: 'running',
    });
  });

  it('ranks a parse error before chunks still waiting (the earlier stage is the slower)', () => {
    expect(status({ status: 'error', trainingAmount: 2 })).toMatchObject({
      slowestTrainingMode: 'parse',
      slowestTrainingStatus: 'error',
    });
  });
});
