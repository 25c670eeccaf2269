import { createHash } from 'node:crypto';
import type { CallerContext } from '#shared/http';
import { newObjectId } from '#shared/ids';
import { type CollectionDeps, requireDataset, storeCollection, storeText } from '#shared/kb/collections';
import type { SourceFileStore } from '#shared/kb/contract';
import type { CreateTextCollectionBody } from '#shared/schemas/kb-content';
import { collectionOfCall } from './create-collection.ts';

export interface CreateTextCollectionDeps extends CollectionDeps {
  readonly files: Pick<SourceFileStore, 'put'>;
}

/** The chunk length when a call names none (docs/knowledge-base-api.md, "Chunking"). */
export const DEFAULT_CHUNK_SIZE = 1000;

/**
 * A collection from a text: the text is kept as a file of the source store, the collection is stored `queued` and its
 * training queued. Answers at once with `insertLen: 0`, as FastGPT does since its training became asynchronous.
 */
export async function createTextCollection(
  input: { body: CreateTextCollectionBody; caller: CallerContext },
  deps: CreateTextCollectionDeps,
): Promise<{ collectionId: string; results: { insertLen: number } }> {
  const { body, caller } = input;
  const fileId = newObjectId(deps.now());
  // Checked before the text is stored, so a refused call leaves no file behind.
  await requireDataset(deps.datasets, caller.teamId, body.datasetId);
  await storeText(deps.files, caller.teamId, body.name, body.text, fileId);
  const record = await storeCollection(
    {
      ...collectionOfCall(caller, body),
      type: 'virtual',
      settings: {
        trainingType: body.trainingType,
        chunkSize: body.chunkSize ?? DEFAULT_CHUNK_SIZE,
        ...(body.chunkSplitter ? { chunkSplitter: body.chunkSplitter } : {}),
        ...(body.indexSize ? { indexSize: body.indexSize } : {}),
        ...(body.qaPrompt ? { qaPrompt: body.qaPrompt } : {}),
      },
      fileId,
      rawTextLength: body.text.length,
      hashRawText: createHash('sha256').update(body.text, 'utf8').digest('hex'),
      train: true,
    },
    deps,
  );
  return { collectionId: record.id, results: { insertLen: 0 } };
}
