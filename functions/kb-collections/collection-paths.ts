import { climb } from '#shared/dataset-tree';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { PathEntry } from '#shared/schemas/datasets';
import type { CollectionPathsQuery } from '#shared/schemas/kb-content';

/**
 * The collection folders from the knowledge base's root down to a collection, that collection included (FastGPT's
 * `getDatasetCollectionPaths`: its web client's breadcrumb). One read per level; on damaged data (a parent gone, a
 * loop, the 100th level) the path starts where the tree is whole, as the knowledge bases' own paths do.
 */
export async function collectionPaths(
  input: { query: CollectionPathsQuery; caller: CallerContext },
  deps: { readonly content: Pick<KbContentRepository, 'findCollection' | 'getCollection'> },
): Promise<PathEntry[]> {
  const id = input.query.sourceId || input.query.parentId;
  if (!id) return [];
  const collection = await requireCollection(deps.content, input.caller.teamId, id);
  const parents = {
    get: (teamId: string, parentId: string) => deps.content.getCollection(teamId, collection.datasetId, parentId),
  };
  const { chain } = await climb(parents, collection);
  return chain.reverse().map((c) => ({ parentId: c.id, parentName: c.name }));
}
