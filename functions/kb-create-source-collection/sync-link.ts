import { createHash } from 'node:crypto';
import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection } from '#shared/kb/collections';
import { beingTrained, queueRetraining, type RetrainingDeps, TRAINING_STATUSES } from '#shared/kb/retraining';
import { asRequestError } from '#shared/kb/sources/errors';
import { DEFAULT_CHUNK_SIZE } from '#shared/kb/sources/settings';
import type { KbContentRepository } from '#shared/repositories/kb-content';
import type { CollectionIdInput } from '#shared/schemas/kb-content';

export interface SyncLinkDeps extends RetrainingDeps {
  readonly content: RetrainingDeps['content'] & Pick<KbContentRepository, 'findCollection'>;
  /** A page's text under the link rules, as the training reads it (shared/kb/sources/link.ts `readLinkSource`). */
  readonly readLink: (rawLink: string, selector?: string) => Promise<{ text: string }>;
}

/**
 * FastGPT's POST /api/core/dataset/collection/sync for a link collection (docs/knowledge-base-sources.md, "Sync"):
 * reads the page again now, under the link rules; the same text as the collection was trained from (its sha256,
 * FastGPT's `hashRawText`) answers `sameRaw` and changes nothing, another text queues the collection's training again
 * with its settings and answers `success`. A page that cannot be read answers 400 with why; nothing changes.
 */
export async function syncLinkCollection(
  input: { body: CollectionIdInput; caller: CallerContext },
  deps: SyncLinkDeps,
): Promise<'success' | 'sameRaw'> {
  const collection = await requireCollection(deps.content, input.caller.teamId, input.body.collectionId);
  if (collection.type !== 'link' || collection.rawLink === undefined) {
    throw datasetErrors.notSupportSync('Only a link collection can be synced: its page is read again');
  }
  // Before the page is fetched: a collection being trained will read it itself.
  if ((TRAINING_STATUSES as readonly string[]).includes(collection.status)) throw beingTrained();
  const selector = collection.metadata?.webPageSelector;
  let text: string;
  try {
    ({ text } = await deps.readLink(
      collection.rawLink,
      typeof selector === 'string' && selector !== '' ? selector : undefined,
    ));
  } catch (error) {
    throw asRequestError(error);
  }
  if (createHash('sha256').update(text, 'utf8').digest('hex') === collection.hashRawText) return 'sameRaw';
  await queueRetraining(
    collection,
    collection.settings ?? { trainingType: 'chunk', chunkSize: DEFAULT_CHUNK_SIZE },
    deps,
  );
  return 'success';
}
