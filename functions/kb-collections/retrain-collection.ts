import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { type ChunkSettings, trainsRows } from '#shared/kb/contract';
import { queueRetraining, type RetrainingDeps } from '#shared/kb/retraining';
import { DEFAULT_CHUNK_SIZE } from '#shared/kb/sources/settings';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { RetrainCollectionBody } from '#shared/schemas/kb-content';

export interface RetrainCollectionDeps extends RetrainingDeps {
  readonly content: RetrainingDeps['content'] & Pick<KbContentRepository, 'findCollection'>;
}

/** The settings a training again uses: the body's over the collection's (absent = kept, null or empty = cleared). */
export function retrainedSettings(old: ChunkSettings | undefined, body: RetrainCollectionBody): ChunkSettings {
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

/**
 * POST /api/core/dataset/collection/create/reTrainingCollection: trains one of the caller's collections again from its
 * source with new settings (docs/knowledge-base-api.md, "Training again"); answers `{collectionId}`, the same id.
 */
export async function retrainCollection(
  input: { body: RetrainCollectionBody; caller: CallerContext },
  deps: RetrainCollectionDeps,
): Promise<{ collectionId: string }> {
  const { body, caller } = input;
  const collection = await requireCollection(deps.content, caller.teamId, body.collectionId);
  if (body.datasetId != null && body.datasetId !== collection.datasetId) {
    throw datasetErrors.unExistCollection('The collection does not exist in this knowledge base');
  }
  await queueRetraining(collection, retrainedSettings(collection.settings, body), deps);
  return { collectionId: collection.id };
}
