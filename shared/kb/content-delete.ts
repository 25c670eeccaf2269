import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import type { ChunkIndexWriter, SourceFileStore } from './contract.ts';

/*
 * Deleting content (docs/knowledge-base-api.md, "Collections"): chunks with their vectors and postings first, then the
 * source files, then the collection itself, deepest folder level first. Whatever a failure leaves is still reachable
 * from what is left, so repeating the call finishes it. A collection's chunks go a slice at a time (their index
 * entries, then the chunks), so a call cut short by its timeout has removed whole slices and the next one goes on from
 * there instead of starting over.
 */

/** Chunks removed together: their vectors and postings, then their items. */
export const DELETE_SLICE = 1_000;

export interface ContentDeleteDeps {
  readonly content: Pick<
    KbContentRepository,
    'collectionsIn' | 'chunkKeysOf' | 'deleteKeys' | 'allKeys' | 'allCollections'
  >;
  readonly index: Pick<ChunkIndexWriter, 'removeChunks' | 'removeDataset'>;
  readonly files: Pick<SourceFileStore, 'delete'>;
}

/** Deletes collections with everything below them; answers how many collections went. */
export async function deleteCollections(
  collections: readonly StoredCollection[],
  deps: ContentDeleteDeps,
): Promise<number> {
  const levels: StoredCollection[][] = [[...collections]];
  const seen = new Set(collections.map((c) => c.id));
  for (let frontier = levels[0] as StoredCollection[]; frontier.length > 0; ) {
    const next: StoredCollection[] = [];
    for (const folder of frontier.filter((c) => c.type === 'folder')) {
      for (const child of await deps.content.collectionsIn(folder.teamId, folder.datasetId, folder.id)) {
        if (seen.has(child.id)) continue;
        seen.add(child.id);
        next.push(child);
      }
    }
    if (next.length > 0) levels.push(next);
    frontier = next;
  }
  let deleted = 0;
  for (const level of levels.reverse()) {
    for (const collection of level) {
      const { teamId, datasetId, id } = collection;
      const chunks = await deps.content.chunkKeysOf(teamId, datasetId, id);
      for (let start = 0; start < chunks.length; start += DELETE_SLICE) {
        const slice = chunks.slice(start, start + DELETE_SLICE);
        await deps.index.removeChunks(
          teamId,
          datasetId,
          slice.map((c) => c.id),
        );
        await deps.content.deleteKeys(slice);
      }
      if (collection.fileId) await deps.files.delete(teamId, [collection.fileId]);
      await deps.content.deleteKeys([collection]);
      deleted++;
    }
  }
  return deleted;
}

/** Deletes everything a knowledge base holds: vectors and postings, files, chunks and collections. */
export async function deleteDatasetContent(teamId: string, datasetId: string, deps: ContentDeleteDeps): Promise<void> {
  const items = await deps.content.allKeys(teamId, datasetId);
  // Nothing stored: nothing indexed either (a chunk is stored before its vectors and postings, and its index goes before
  // it), so an empty knowledge base, the common case of a folder's delete, costs one Query.
  if (items.length === 0) return;
  await deps.index.removeDataset(teamId, datasetId);
  const fileIds = items.flatMap((i) => (i.fileId ? [i.fileId] : []));
  if (fileIds.length > 0) await deps.files.delete(teamId, fileIds);
  await deps.content.deleteKeys(items.map(({ pk, sk }) => ({ pk, sk })));
}
