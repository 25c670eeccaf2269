import type { CallerContext } from '#shared/http';
import { collectionDetail, requireCollection } from '#shared/kb/collections';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { IdQuery } from '#shared/schemas/dataset-fields';

/** One of the caller's collections with its training state (FastGPT's DatasetCollectionItemType). */
export async function collectionDetailOf(
  input: { query: IdQuery; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection'> },
): Promise<ReturnType<typeof collectionDetail>> {
  return collectionDetail(await requireCollection(deps.content, input.caller.teamId, input.query.id));
}
