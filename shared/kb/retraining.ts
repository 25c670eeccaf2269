import { datasetErrors } from '../errors.ts';
import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import type { RetrainCollectionBody } from '../schemas/kb-content.ts';
import { type ChunkSettings, trainsRows } from './contract.ts';
import { DEFAULT_CHUNK_SIZE } from './sources/settings.ts';
import type { TrainingQueue } from './training-queue.ts';

/*
 * Training a collection again (docs/knowledge-base-api.md, "Training again"): FastGPT's reTrainingCollection. FastGPT
 * deletes the collection and creates a new one with the new settings; here the collection keeps its id and its chunks
 * stay readable until the new ones replace them in one write (the training core's next generation,
 * shared/kb/training.ts), so a search never finds the collection empty meanwhile.
 */

export interface RetrainingDeps {
  readonly content: Pick<KbContentRepository, 'updateCollection'>;
  readonly queue: Pick<TrainingQueue, 'send'>;
  readonly now: () => Date;
}

/** The statuses of a collection being trained: a training again waits for them to end. */
export const TRAINING_STATUSES = ['queued', 'training'] as const;

/** The 429 of a call that would train a collection being trained (send it again when it is done). */
export const beingTrained = () =>
  datasetErrors.tooManyRequests('The collection is being trained; send the call again when it is done');

/** Whether a collection has a source to train from: a link, a file, or a text kept as a file (not manual data). */
export function hasSource(c: Pick<StoredCollection, 'type' | 'fileId' | 'rawLink'>): boolean {
  return c.type !== 'folder' && (c.fileId !== undefined || c.rawLink !== undefined);
}

/**
 * Queues a collection's training again with `settings`. One conditional write marks it `queued` and counts its one
 * queued unit (as a new collection's), only while it is neither queued nor training and still at the generation read;
 * then the message of its next generation goes. A collection being trained answers 429 (send the call again when it
 * is done): two trainings of one collection at once would leave one of them unapplied.
 */
export async function queueRetraining(
  collection: StoredCollection,
  settings: ChunkSettings,
  deps: RetrainingDeps,
): Promise<void> {
  if (!hasSource(collection)) {
    throw datasetErrors.invalidParams(
      'The collection has no source to train again (a folder, or data entered by hand)',
    );
  }
  const { teamId, datasetId, id, generation } = collection;
  const marked = await deps.content.updateCollection(
    teamId,
    datasetId,
    id,
    { settings, status: 'queued', updateTime: deps.now().toISOString() },
    { expectedGeneration: generation, unlessStatus: TRAINING_STATUSES, add: { trainingAmount: 1 } },
  );
  if (!marked) throw beingTrained();
  await deps.queue.send({ kind: 'collection', teamId, datasetId, collectionId: id, generation: generation + 1 });
}

/** What a training again (and the preview of one, file/getPreviewChunks) reads of its body. */
export type RetrainSettingsBody = Pick<
  RetrainCollectionBody,
  'trainingType' | 'chunkSize' | 'chunkSplitter' | 'indexSize' | 'qaPrompt'
>;

/** The settings a training again uses: the body's over the collection's (absent = kept, null or empty = cleared). */
export function retrainedSettings(old: ChunkSettings | undefined, body: RetrainSettingsBody): ChunkSettings {
  const optional = <K extends 'chunkSplitter' | 'indexSize' | 'qaPrompt'>(key: K) => {
    const value = body[key] === undefined ? old?.[key] : body[key];
    return value === null || value === undefined || value === '' ? {} : { [key]: value };
  };
  return {
    // A backup's or template's rows are its chunks whatever the body says (FastGPT's two modes have no chunk settings).
    trainingType:
      old !== undefined && trainsRows(old.trainingType)
        ? old.trainingType
        : body.trainingType == null
          ? (old?.trainingType ?? 'chunk')
          : body.trainingType === 'qa'
            ? 'qa'
            : 'chunk',
    chunkSize: body.chunkSize ?? old?.chunkSize ?? DEFAULT_CHUNK_SIZE,
    ...optional('chunkSplitter'),
    ...optional('indexSize'),
    ...optional('qaPrompt'),
  };
}
