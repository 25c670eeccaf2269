import type { CallerContext } from '#shared/http';
import { dataDetail, requireChunk } from '#shared/kb/data';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { IdQuery } from '#shared/schemas/dataset-fields';

/** One of the caller's chunks with its indexes and its collection's name (FastGPT's DatasetDataItemType). */
export async function dataDetailOf(
  input: { query: IdQuery; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findChunk' | 'getCollection'> },
): Promise<ReturnType<typeof dataDetail>> {
  const chunk = await requireChunk(deps.content, input.caller.teamId, input.query.id);
  const collection = await deps.content.getCollection(chunk.teamId, chunk.datasetId, chunk.collectionId);
  return dataDetail(chunk, collection);
}
