import type { CallerContext } from '#shared/http';
import { collectionSource, requireDataset } from '#shared/kb/collections';
import { mayHaveErrors } from '#shared/kb/failed-chunks';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { KbContentRepository, StoredCollection } from '#shared/repositories/kb-content';
import { pageOf } from '#shared/schemas/kb-content';
import type { DatasetTrainingErrorBody } from '#shared/schemas/kb-training';
import { type ErrorItemView, errorItemsOf, errorItemView } from './training-errors.ts';

/*
 * POST /api/core/dataset/training/getDatasetTrainingError (docs/knowledge-base-api.md, "Training errors"): FastGPT's
 * knowledge-base-wide error list (handler `projects/app/src/pages/api/core/dataset/training/getDatasetTrainingError.ts`
 * and its body in `packages/global/openapi/core/dataset/training/api.ts`, labring/FastGPT at 2e66ef49): the
 * collections that have error items, a page of them in id order, each with its first items; with `collectionId`, that
 * collection's items from `itemOffset`. The items are getTrainingError's (training-errors.ts).
 */

export interface DatasetTrainingErrorDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly content: Pick<KbContentRepository, 'allCollections' | 'findCollection' | 'chunksOf'>;
}

/** FastGPT's `TrainingErrorGroupType`: a collection, a page of its error items and how many it has. */
export interface TrainingErrorGroup {
  collection: { _id: string; collectionId: string; name: string; type: string; sourceName: string; sourceId?: string };
  items: ErrorItemView[];
  errorCount: number;
  hasMoreItems: boolean;
}

/** FastGPT's default items a collection shows (`DatasetTrainingErrorPaginationLimits.defaultItemPageSize`). */
const DEFAULT_ITEMS = 5;

/** A collection's error items (its failed chunks in chunk order, or its parse), from `skip`, at most `limit`. */
async function groupOf(
  content: DatasetTrainingErrorDeps['content'],
  collection: StoredCollection,
  skip: number,
  limit: number,
): Promise<TrainingErrorGroup | undefined> {
  const all = await errorItemsOf(content, collection);
  if (all.length === 0) return undefined;
  const items = all.slice(skip, skip + limit).map(errorItemView);
  return {
    collection: {
      _id: collection.id,
      collectionId: collection.id,
      name: collection.name,
      type: collection.type,
      ...collectionSource(collection),
    },
    items,
    errorCount: all.length,
    hasMoreItems: skip + items.length < all.length,
  };
}

/** `{list, total}`: `total` counts the collections with errors (1 or 0 with `collectionId`). */
export async function datasetTrainingErrors(
  input: { body: DatasetTrainingErrorBody; caller: CallerContext },
  deps: DatasetTrainingErrorDeps,
): Promise<{ list: TrainingErrorGroup[]; total: number }> {
  const { body, caller } = input;
  await requireDataset(deps.datasets, caller.teamId, body.datasetId);
  const limit = body.itemPageSize ?? DEFAULT_ITEMS;
  if (body.collectionId !== undefined) {
    // As FastGPT: a collection not in this knowledge base (another team's, a folder, an unknown id) has no errors here.
    const collection = await deps.content.findCollection(caller.teamId, body.collectionId);
    const group =
      collection?.datasetId === body.datasetId && collection.type !== 'folder'
        ? await groupOf(deps.content, collection, body.itemOffset ?? 0, limit)
        : undefined;
    return group === undefined ? { list: [], total: 0 } : { list: [group], total: 1 };
  }
  const collections = await deps.content.allCollections(caller.teamId, body.datasetId);
  const inError = collections
    .filter((c) => c.type !== 'folder' && mayHaveErrors(c))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const page = pageOf(body);
  const list: TrainingErrorGroup[] = [];
  // One collection's chunks read at a time: memory stays at one collection whatever the page.
  for (const collection of inError.slice(page.offset, page.offset + page.pageSize)) {
    const group = await groupOf(deps.content, collection, 0, limit);
    if (group !== undefined) list.push(group);
  }
  return { list, total: inError.length };
}
