import type { CallerContext } from '#shared/http';
import { type CollectionDeps, type NewCollection, storeCollection } from '#shared/kb/collections';
import type { CreateCollectionBody } from '#shared/schemas/kb-content';

/** An empty collection (`virtual`) or a collection folder; answers its id, as FastGPT does. */
export async function createCollection(
  input: { body: CreateCollectionBody; caller: CallerContext },
  deps: CollectionDeps,
): Promise<string> {
  const { body, caller } = input;
  const record = await storeCollection({ ...collectionOfCall(caller, body), type: body.type, train: false }, deps);
  return record.id;
}

/** What a new collection takes from the call: the caller's team and member, the body's place, name, metadata, tags. */
export function collectionOfCall(
  caller: CallerContext,
  body: Pick<NewCollection, 'datasetId' | 'parentId' | 'name' | 'metadata' | 'tags'>,
): Pick<NewCollection, 'teamId' | 'tmbId' | 'datasetId' | 'parentId' | 'name' | 'metadata' | 'tags'> {
  return {
    teamId: caller.teamId,
    tmbId: caller.tmbId,
    datasetId: body.datasetId,
    parentId: body.parentId,
    name: body.name,
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.tags ? { tags: body.tags } : {}),
  };
}
