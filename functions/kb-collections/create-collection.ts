import type { CallerContext } from '#shared/http';
import { type CollectionDeps, storeCollection } from '#shared/kb/collections';
import type { CreateCollectionBody } from '#shared/schemas/kb-content';

/** An empty collection (`virtual`) or a collection folder; answers its id, as FastGPT does. */
export async function createCollection(
  input: { body: CreateCollectionBody; caller: CallerContext },
  deps: CollectionDeps,
): Promise<string> {
  const { body, caller } = input;
  const record = await storeCollection(
    {
      teamId: caller.teamId,
      tmbId: caller.tmbId,
      datasetId: body.datasetId,
      parentId: body.parentId,
      name: body.name,
      type: body.type,
      ...(body.metadata ? { metadata: body.metadata } : {}),
      ...(body.tags ? { tags: body.tags } : {}),
      train: false,
    },
    deps,
  );
  return record.id;
}
