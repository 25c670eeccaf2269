import { createHash } from 'node:crypto';
import type { StoredCollection } from '../repositories/kb-content.ts';
import { DEFAULT_OVERLAP_RATIO } from './chunking.ts';
import {
  type ChunkIndex,
  type ChunkSettings,
  defaultIndexText,
  SourceError,
  type SourceFileStore,
  type SourceReader,
  type SplitText,
  trainsRows,
} from './contract.ts';
import { qaPairs } from './qa.ts';
import type { ChatModel } from './relay-models.ts';
import { backupItems } from './sources/backup.ts';
import { decodeText } from './sources/files.ts';
import { DEFAULT_CHUNK_SIZE } from './sources/settings.ts';

/*
 * What a collection's training makes chunks of (shared/kb/training.ts): its source read to text, then split as FastGPT
 * splits (`chunk`), written into Q&A pairs by the agent model (`qa`), or, for a backup file, taken row by row as they
 * are with their own index texts (`backup`, shared/kb/sources/backup.ts).
 */

/** What reading a collection's items needs of the training's dependencies (shared/kb/training.ts, TrainingDeps). */
export interface ItemDeps {
  readonly files: Pick<SourceFileStore, 'get'>;
  readonly sources?: SourceReader;
  readonly split: SplitText;
  readonly chat?: ChatModel;
}

/** What the collection keeps of the text it was trained from: `collection/sync` compares a link's page with it. */
export type SourceText = Pick<StoredCollection, 'hashRawText' | 'rawTextLength'>;

/** One chunk to be: its question and answer, and its indexes when they are not only the default one of q and a. */
export interface TrainingItem {
  readonly q: string;
  readonly a: string;
  readonly indexes?: readonly Omit<ChunkIndex, 'dataId'>[];
}

/**
 * The index size of a backup row, in characters other than white space (as the chunker counts): the default chunk
 * size, which every other training embeds as one input. A longer index text is cut by the chunker into several
 * indexes of its type, as FastGPT cuts a default index by its `indexSize` (a sentence is kept whole, so a piece may run
 * somewhat longer): one over-long row never fails the embeddings call of the rows beside it.
 */
export const MAX_BACKUP_INDEX_CHARS = 1000;

/**
 * The items of a collection's source and the source text's sha256 and length (FastGPT's `hashRawText`,
 * `rawTextLength`).
 */
export async function itemsOf(
  collection: StoredCollection,
  agentModel: string,
  deps: ItemDeps,
): Promise<{ items: TrainingItem[]; source: SourceText }> {
  const settings = collection.settings;
  const text = await sourceTextOf(collection, deps);
  const source = { hashRawText: createHash('sha256').update(text, 'utf8').digest('hex'), rawTextLength: text.length };
  if (trainsRows(settings?.trainingType)) {
    const pieces = (piece: string) =>
      piece.length <= MAX_BACKUP_INDEX_CHARS
        ? [piece]
        : deps
            .split(piece, { chunkSize: MAX_BACKUP_INDEX_CHARS, maxSize: MAX_BACKUP_INDEX_CHARS, overlapRatio: 0 })
            .filter((p) => p.trim() !== '');
    const items = backupItems(text).map(({ q, a, indexes }) => ({
      q,
      a,
      indexes: [
        ...pieces(defaultIndexText(q, a)).map((piece) => ({ type: 'default' as const, text: piece })),
        ...indexes.flatMap((index) => pieces(index).map((piece) => ({ type: 'custom' as const, text: piece }))),
      ],
    }));
    return { items, source };
  }
  const qa = settings?.trainingType === 'qa';
  const pieces = trainingPieces(text, settings, deps.split);
  if (!qa) return { items: pieces.map((q) => ({ q, a: '' })), source };
  if (deps.chat === undefined) throw new SourceError('Q&A training needs a chat model; none is configured');
  const items: TrainingItem[] = [];
  for (const piece of pieces) items.push(...(await qaPairs(deps.chat, agentModel, piece, settings?.qaPrompt)));
  return { items, source };
}

/**
 * The pieces a training cuts a source's text into with these settings: FastGPT's split, 20% overlap for `chunk`
 * training and none for `qa` (whose pieces the agent model then writes Q&A pairs from). `file/getPreviewChunks` shows
 * the same pieces before a collection is made.
 */
export function trainingPieces(
  text: string,
  settings: Pick<ChunkSettings, 'trainingType' | 'chunkSize' | 'chunkSplitter'> | undefined,
  split: SplitText,
): string[] {
  return split(text, {
    chunkSize: settings?.chunkSize ?? DEFAULT_CHUNK_SIZE,
    ...(settings?.chunkSplitter ? { chunkSplitter: settings.chunkSplitter } : {}),
    overlapRatio: settings?.trainingType === 'qa' ? 0 : DEFAULT_OVERLAP_RATIO,
  }).filter((p) => p.trim() !== '');
}

/** The text a collection trains from: a backup's or template's CSV as it is, else its source read to text. */
export function sourceTextOf(collection: StoredCollection, deps: Pick<ItemDeps, 'files' | 'sources'>): Promise<string> {
  return trainsRows(collection.settings?.trainingType) ? backupText(collection, deps) : readSource(collection, deps);
}

/** A backup collection's CSV as it was uploaded (not read as a table of text, as a CSV file collection is). */
async function backupText(collection: StoredCollection, deps: Pick<ItemDeps, 'files'>): Promise<string> {
  const file = collection.fileId === undefined ? undefined : await deps.files.get(collection.teamId, collection.fileId);
  if (file === undefined) throw new SourceError('the backup file is missing from the source store');
  const text = decodeText(file.bytes);
  if (text === undefined) throw new SourceError('the backup file is not text');
  return text;
}

async function readSource(collection: StoredCollection, deps: Pick<ItemDeps, 'files' | 'sources'>): Promise<string> {
  if (collection.type === 'link' || collection.type === 'file') {
    if (deps.sources === undefined) throw new SourceError(`${collection.type} collections cannot be read here`);
    const selector = collection.metadata?.webPageSelector;
    const { text } = await deps.sources.read({
      teamId: collection.teamId,
      ...(collection.rawLink ? { rawLink: collection.rawLink } : {}),
      ...(collection.fileId ? { fileId: collection.fileId } : {}),
      ...(typeof selector === 'string' && selector !== '' ? { webPageSelector: selector } : {}),
      name: collection.name,
    });
    return text;
  }
  if (collection.fileId === undefined) return '';
  const file = await deps.files.get(collection.teamId, collection.fileId);
  if (file === undefined) throw new SourceError('the collection’s text is missing from the source store');
  return new TextDecoder().decode(file.bytes);
}
