import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { dataListItem, readable } from '#shared/kb/data';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import { type ListDataBody, pageOf } from '#shared/schemas/kb-content';

/**
 * One page of a collection's readable data in chunk order; `searchText` keeps the chunks whose q or a holds it
 * (case-insensitive).
 */
export async function listData(
  input: { body: ListDataBody; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection' | 'chunksOf'> },
): Promise<{ list: ReturnType<typeof dataListItem>[]; total: number; pageNum: number; pageSize: number }> {
  const { body, caller } = input;
  const collection = await requireCollection(deps.content, caller.teamId, body.collectionId);
  const needle = body.searchText?.toLowerCase();
  const chunks = (await deps.content.chunksOf(collection.teamId, collection.datasetId, collection.id)).filter(
    (c) =>
      readable(c, collection) &&
      (needle === undefined || c.q.toLowerCase().includes(needle) || c.a.toLowerCase().includes(needle)),
  );
  const page = pageOf(body);
  return {
    list: chunks.slice(page.offset, page.offset + page.pageSize).map(dataListItem),
    total: chunks.length,
    pageNum: page.pageNum,
    pageSize: page.pageSize,
  };
}
