import { datasetErrors } from '#shared/errors';
import type { CallerContext } from '#shared/http';
import { requireCollection, requireDataset } from '#shared/kb/collections';
import {
  type ChunkSettings,
  type SourceFileStore,
  type SourceReader,
  type SplitText,
  trainsRows,
} from '#shared/kb/contract';
import { hasSource, retrainedSettings } from '#shared/kb/retraining';
import { backupItems } from '#shared/kb/sources/backup';
import { checkedUploadOf } from '#shared/kb/sources/checked-upload';
import { asRequestError } from '#shared/kb/sources/errors';
import { chunkSettingsOf, DEFAULT_PREVIEW_CHUNKS, type PreviewChunksBody } from '#shared/kb/sources/settings';
import { parseUploadKey, type UploadStore } from '#shared/kb/sources/upload-stores';
import { sourceTextOf, trainingPieces } from '#shared/kb/training-items';
import type { DatasetRepository } from '#shared/repositories/datasets';
import type { KbContentRepository } from '#shared/repositories/kb-content';

/*
 * FastGPT's file/getPreviewChunks (docs/knowledge-base-sources.md, "Previewing chunks"): its web client shows, on the
 * import page's preview step, the chunks a source will be cut into before the collection is made. The source is read
 * as the training will read it (the same reader, the same limits) and cut with the same split and settings, so the
 * preview shows what the training will store; nothing is written.
 */

/** Characters one answer holds at most (a chunk may be long: the answer stays far below Lambda's 6 MB). */
export const MAX_PREVIEW_CHARS = 1_000_000;

export interface PreviewChunksDeps {
  readonly datasets: Pick<DatasetRepository, 'get'>;
  readonly content: Pick<KbContentRepository, 'findCollection'>;
  /** Uploads before a collection (`fileLocal`'s keys). */
  readonly uploads: Pick<UploadStore, 'getUpload'>;
  /** The team's stored files: a collection's text or backup read again (`reTraining`). */
  readonly files: Pick<SourceFileStore, 'get'>;
  /** The training's reader: links under the link rules, stored files through the parsers. */
  readonly sources: SourceReader;
  /** An uploaded file's text, through the same parsers and limits as a stored file's. */
  readonly fileText: (file: { name: string; bytes: Uint8Array; contentType: string }) => Promise<string>;
  readonly split: SplitText;
}

/** FastGPT's answer (GetPreviewChunksResponse, v4.9 and later): the first chunks and how many there are. */
export interface PreviewChunksAnswer {
  readonly chunks: { q: string; a: string }[];
  readonly total: number;
}

/**
 * POST /api/core/dataset/file/getPreviewChunks: the chunks of an upload (`fileLocal`), a page (`link`) or one of the
 * caller's collections read again (`reTraining`), for a knowledge base of the caller's team.
 */
export async function previewChunks(
  input: { body: PreviewChunksBody; caller: CallerContext },
  deps: PreviewChunksDeps,
): Promise<PreviewChunksAnswer> {
  const { body, caller } = input;
  if (body.type === 'externalFile' || body.type === 'apiFile') {
    throw datasetErrors.invalidParams(
      `type ${body.type} is not served: this product has no external-file or API knowledge bases`,
    );
  }
  await requireDataset(deps.datasets, caller.teamId, body.datasetId);
  const { items, total } = await sourceItems(body, caller.teamId, deps).catch((error: unknown) => {
    throw asRequestError(error);
  });
  return { chunks: firstChunks(items, body.previewLimit ?? DEFAULT_PREVIEW_CHUNKS), total };
}

/** The settings a create body gives (its training type defaulted as a create defaults it). */
function createSettings(body: PreviewChunksBody): ChunkSettings {
  return chunkSettingsOf({ ...body, trainingType: body.trainingType === 'qa' ? 'qa' : 'chunk' });
}

async function sourceItems(
  body: PreviewChunksBody,
  teamId: string,
  deps: PreviewChunksDeps,
): Promise<{ items: { q: string; a: string }[]; total: number }> {
  const pieces = (text: string, settings: ChunkSettings) => {
    const items = trainingPieces(text, settings, deps.split).map((q) => ({ q, a: '' }));
    return { items, total: items.length };
  };
  if (body.type === 'fileLocal') {
    // FastGPT's re-training page previews a file collection by its file's id: a stored file of the caller's team.
    if (parseUploadKey(body.sourceId) === undefined) {
      const stored = await deps.files.get(teamId, body.sourceId);
      if (stored === undefined) throw datasetErrors.fileNotFound('The file does not exist');
      return pieces(await deps.fileText(stored), createSettings(body));
    }
    const upload = await checkedUploadOf(body.sourceId, body.datasetId, teamId, deps.uploads);
    return pieces(await deps.fileText(upload), createSettings(body));
  }
  if (body.type === 'link') {
    const { text } = await deps.sources.read({
      rawLink: body.sourceId,
      name: body.sourceId,
      ...(body.selector ? { webPageSelector: body.selector } : {}),
    });
    return pieces(text, createSettings(body));
  }
  const collection = await requireCollection(deps.content, teamId, body.sourceId);
  if (collection.datasetId !== body.datasetId) {
    throw datasetErrors.unExistCollection('The collection does not exist in this knowledge base');
  }
  if (!hasSource(collection)) {
    throw datasetErrors.invalidParams('The collection has no source to read again (a folder, or data entered by hand)');
  }
  const settings = retrainedSettings(collection.settings, body);
  const text = await sourceTextOf(collection, deps);
  if (!trainsRows(settings.trainingType)) return pieces(text, settings);
  // A backup's or template's rows are its chunks, as the training takes them.
  const rows = backupItems(text);
  return { items: rows.map(({ q, a }) => ({ q, a })), total: rows.length };
}

/** The first `limit` chunks, as long as the answer stays within MAX_PREVIEW_CHARS (the first one always, cut to it). */
function firstChunks(items: readonly { q: string; a: string }[], limit: number): { q: string; a: string }[] {
  const chunks: { q: string; a: string }[] = [];
  let chars = 0;
  for (const item of items.slice(0, limit)) {
    chars += item.q.length + item.a.length;
    if (chars > MAX_PREVIEW_CHARS) {
      if (chunks.length === 0) chunks.push({ q: item.q.slice(0, MAX_PREVIEW_CHARS), a: '' });
      break;
    }
    chunks.push(item);
  }
  return chunks;
}
