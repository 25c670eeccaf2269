import { Slots } from '../repositories/batch.ts';
import type { KbContentRepository, StoredCollection } from '../repositories/kb-content.ts';
import type { ChunkIndexWriter, SourceFileStore } from './contract.ts';
import type { TrainingMessage } from './training-queue.ts';

/*
 * Deleting content in the background (docs/knowledge-base-api.md, "Deleting"). A collection delete marks the
 * collections and everything below them `deleting` (`markForDelete`: every reader stops showing them at once) and
 * queues one `delete` message; a knowledge base's delete removes its records and queues one for its content. The
 * training function then removes chunks with their vectors and postings, then the source files, then the collections,
 * deepest folder level first (`runDelete`), a slice at a time, and sends the message again before its time runs out.
 * Whatever a run leaves is still reachable from what is left, so the next run, or a retry after a crash, goes on
 * from there instead of starting over.
 */

/** Chunks removed together: their vectors and postings, then their items. */
export const DELETE_SLICE = 1_000;

/** Marks written at once: a folder of a thousand collections is marked in a few round trips of time. */
const MARK_CONCURRENCY = 16;

/** A queued delete. */
export type DeleteMessage = Extract<TrainingMessage, { kind: 'delete' }>;

/** True once the run should start no more work (its invocation's time nearly over); asked between slices. */
export type OutOfTime = () => boolean;

export interface ContentDeleteDeps {
  readonly content: Pick<
    KbContentRepository,
    'getCollection' | 'collectionsIn' | 'chunkKeysOf' | 'deleteKeys' | 'allKeys'
  >;
  readonly index: Pick<ChunkIndexWriter, 'removeChunks' | 'removeDataset'>;
  readonly files: Pick<SourceFileStore, 'delete'>;
}

/**
 * Marks collections and everything below them `deleting`, a level at a time, one small write each (the first mark's
 * time stays). No reader shows a marked collection or its chunks (shared/repositories/kb-content.ts).
 */
export async function markForDelete(
  collections: readonly StoredCollection[],
  deps: { readonly content: Pick<KbContentRepository, 'collectionsIn' | 'markDeleting'>; readonly now: () => Date },
): Promise<void> {
  const time = deps.now().toISOString();
  const slots = new Slots(MARK_CONCURRENCY);
  const seen = new Set<string>();
  for (let level = [...collections]; level.length > 0; ) {
    const fresh = level.filter((c) => !seen.has(c.id));
    for (const c of fresh) seen.add(c.id);
    await Promise.all(fresh.map((c) => slots.run(() => deps.content.markDeleting(c, time), undefined)));
    const next: StoredCollection[] = [];
    const folders = fresh.filter((c) => c.type === 'folder');
    await Promise.all(
      folders.map((f) =>
        slots.run(async () => {
          next.push(...(await deps.content.collectionsIn(f.teamId, f.datasetId, f.id)));
        }, undefined),
      ),
    );
    level = next;
  }
}

/** Runs a queued delete; false when `outOfTime` stopped it before its end (the message is to be sent again). */
export async function runDelete(
  message: DeleteMessage,
  deps: ContentDeleteDeps,
  outOfTime: OutOfTime,
): Promise<boolean> {
  const { teamId, datasetId, collectionIds } = message;
  if (collectionIds === undefined) return deleteDatasetContent(teamId, datasetId, deps, outOfTime);
  const found = await Promise.all(
    collectionIds.map((id) => deps.content.getCollection(teamId, datasetId, id, { deleting: true })),
  );
  // Only what a delete marked: a message never removes a collection its caller still sees.
  const marked = found.filter((c): c is StoredCollection => c?.deleting !== undefined);
  return deleteCollections(marked, deps, outOfTime);
}

/**
 * Deletes collections with everything below them; false when `outOfTime` stopped it first. Each run removes at least
 * one slice, so a run with no time left still moves on.
 */
export async function deleteCollections(
  collections: readonly StoredCollection[],
  deps: ContentDeleteDeps,
  outOfTime: OutOfTime = () => false,
): Promise<boolean> {
  const levels: StoredCollection[][] = [[...collections]];
  const seen = new Set(collections.map((c) => c.id));
  for (let frontier = levels[0] as StoredCollection[]; frontier.length > 0; ) {
    const next: StoredCollection[] = [];
    for (const folder of frontier.filter((c) => c.type === 'folder')) {
      const children = await deps.content.collectionsIn(folder.teamId, folder.datasetId, folder.id, { deleting: true });
      for (const child of children) {
        if (seen.has(child.id)) continue;
        seen.add(child.id);
        next.push(child);
      }
    }
    if (next.length > 0) levels.push(next);
    frontier = next;
  }
  let worked = false;
  const stop = () => worked && outOfTime();
  for (const level of levels.reverse()) {
    for (const collection of level) {
      const { teamId, datasetId, id } = collection;
      for (;;) {
        if (stop()) return false;
        // Read again each time: the slices before are gone, whichever run removed them.
        const slice = await deps.content.chunkKeysOf(teamId, datasetId, id, DELETE_SLICE);
        if (slice.length === 0) break;
        await deps.index.removeChunks(
          teamId,
          datasetId,
          slice.map((c) => c.id),
        );
        await deps.content.deleteKeys(slice);
        worked = true;
      }
      if (collection.fileId) await deps.files.delete(teamId, [collection.fileId]);
      await deps.content.deleteKeys([collection]);
      worked = true;
    }
  }
  return true;
}

/**
 * Deletes everything a deleted knowledge base held: vectors and postings, files, then chunks and collections a slice
 * at a time; false when `outOfTime` stopped it first.
 */
export async function deleteDatasetContent(
  teamId: string,
  datasetId: string,
  deps: ContentDeleteDeps,
  outOfTime: OutOfTime = () => false,
): Promise<boolean> {
  const items = await deps.content.allKeys(teamId, datasetId);
  // Nothing stored: nothing indexed either (a chunk is stored before its vectors and postings, and its index goes before
  // it), so an empty knowledge base costs one Query.
  if (items.length === 0) return true;
  await deps.index.removeDataset(teamId, datasetId);
  const fileIds = items.flatMap((i) => (i.fileId ? [i.fileId] : []));
  if (fileIds.length > 0) await deps.files.delete(teamId, fileIds);
  for (let start = 0; start < items.length; start += DELETE_SLICE) {
    if (start > 0 && outOfTime()) return false;
    await deps.content.deleteKeys(items.slice(start, start + DELETE_SLICE).map(({ pk, sk }) => ({ pk, sk })));
  }
  return true;
}
