import type { CallerContext } from '#shared/http';
import type { ChunkIndexWriter } from '#shared/kb/contract';
import { ofCurrentSet, readable, requireChunk } from '#shared/kb/data';
import { adjustFailedChunks } from '#shared/kb/failed-chunks';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { IdQuery } from '#shared/schemas/dataset-fields';

export interface DeleteDataDeps {
  readonly content: Pick<
    KbContentRepository,
    'findChunk' | 'getCollection' | 'deleteKeys' | 'addToCounts' | 'updateCollection'
  >;
  readonly index: Pick<ChunkIndexWriter, 'removeChunks'>;
}

/**
 * Deletes one of the caller's chunks with its vectors and postings; answers `"success"`, as FastGPT does. A chunk without
 * its vector leaves the collection's `failedChunks` too (shared/kb/failed-chunks.ts).
 */
export async function deleteData(
  input: { query: IdQuery; caller: CallerContext },
  deps: DeleteDataDeps,
): Promise<string> {
  const chunk = await requireChunk(deps.content, input.caller.teamId, input.query.id);
  const { teamId, datasetId, collectionId } = chunk;
  const collection = await deps.content.getCollection(teamId, datasetId, collectionId);
  await deps.index.removeChunks(teamId, datasetId, [chunk.id]);
  await deps.content.deleteKeys([chunk]);
  if (collection !== undefined && chunk.vectorMissing === true && readable(chunk, collection)) {
    // A chunk without its vector is one of the collection's training errors: the last one takes its error away.
    await adjustFailedChunks(deps.content, chunk, -1, { add: { dataAmount: -1 } });
  } else if (collection !== undefined) {
    await deps.content.addToCounts(
      teamId,
      datasetId,
      collectionId,
      readable(chunk, collection) ? { dataAmount: -1 } : ofCurrentSet(chunk, collection) ? { trainingAmount: -1 } : {},
    );
  }
  return 'success';
}
