import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireChunk, storeEditedChunk } from '#shared/kb/data';
import type { TrainingQueue } from '#shared/kb/training-queue';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { UpdateDataBody } from '#shared/schemas/kb-content';

export interface UpdateDataDeps {
  readonly content: Pick<KbContentRepository, 'findChunk' | 'putChunk'>;
  readonly queue: TrainingQueue;
  readonly now: () => Date;
}

/**
 * Changes a chunk's q, a or custom indexes and queues its re-embedding (FastGPT re-embeds an edited chunk); the chunk
 * stays readable with its new text meanwhile.
 */
export async function updateData(
  input: { body: UpdateDataBody; caller: CallerContext },
  deps: UpdateDataDeps,
): Promise<null> {
  const { body, caller } = input;
  const chunk = await requireChunk(deps.content, caller.teamId, body.dataId);
  const q = body.q?.trim() || chunk.q;
  const a = body.a === undefined || body.a === null ? chunk.a : body.a.trim();
  if (q === '') throw datasetErrors.missingParams('q is required');
  const custom =
    body.indexes === undefined || body.indexes === null
      ? chunk.indexes.filter((i) => i.type !== 'default')
      : body.indexes
          .filter((i) => i.text.trim() !== '' && i.type !== 'default')
          .map((i) => ({ type: i.type ?? 'custom', dataId: chunk.id, text: i.text.trim() }));
  await storeEditedChunk(chunk, { q, a, indexes: custom, now: deps.now() }, deps);
  return null;
}
