import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { queueRetraining, type RetrainingDeps, retrainedSettings } from '#shared/kb/retraining';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { RetrainCollectionBody } from '#shared/schemas/kb-content';

export interface RetrainCollectionDeps extends RetrainingDeps {
  readonly content: RetrainingDeps['content'] & Pick<KbContentRepository, 'findCollection'>;
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
