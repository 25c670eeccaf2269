import type { CallerContext } from '#shared/http';
import { collectionListItem, requireDataset } from '#shared/kb/collections';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import { type ListCollectionsBody, MAX_COLLECTION_PAGE_SIZE, pageOf } from '#shared/schemas/kb-content';

export interface ListCollectionsDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly content: Pick<KbContentRepository, 'collectionsIn' | 'allCollections' | 'getCollection'>;
}

export type CollectionListItem = ReturnType<typeof collectionListItem>;

/**
 * One page of a knowledge base's collections, newest `updateTime` first: a folder's (the root when `parentId` is
 * null), or, with `searchText`, every collection whose name holds it (case-insensitive), whatever its folder.
 */
export async function listCollections(
  input: { body: ListCollectionsBody; caller: CallerContext },
  deps: ListCollectionsDeps,
): Promise<{ list: CollectionListItem[]; total: number; pageNum: number; pageSize: number }> {
  const { body, caller } = input;
  await requireDataset(deps.datasets, caller.teamId, body.datasetId);
  let found: StoredCollection[];
  if (body.searchText !== undefined) {
    const needle = body.searchText.toLowerCase();
    found = (await deps.content.allCollections(caller.teamId, body.datasetId))
      .filter((c) => c.name.toLowerCase().includes(needle))
      .sort((a, b) => b.updateTime.localeCompare(a.updateTime));
  } else {
    if (body.parentId !== null) {
      const parent = await deps.content.getCollection(caller.teamId, body.datasetId, body.parentId);
      if (parent === undefined) return { list: [], total: 0, ...pageOf(body, MAX_COLLECTION_PAGE_SIZE) };
    }
    found = await deps.content.collectionsIn(caller.teamId, body.datasetId, body.parentId);
  }
  if (body.selectFolder) found = found.filter((c) => c.type === 'folder');
  const page = pageOf(body, MAX_COLLECTION_PAGE_SIZE);
  const list = found.slice(page.offset, page.offset + page.pageSize).map((c) => {
    const item = collectionListItem(c);
    // `simple` skips the counts in FastGPT.
    return body.simple ? { ...item, dataAmount: 0, trainingAmount: 0 } : item;
  });
  return { list, total: found.length, pageNum: page.pageNum, pageSize: page.pageSize };
}
