/*
 * The knowledge base's content (docs/knowledge-base-api.md, "Collections, data, training and search"): what the
 * collection and data calls, the training core and the search share, so each part is built and tested on its own and
 * they agree on one shape. Pure types and key rules; no SDK client, no environment.
 *
 * Storage (DynamoDB):
 * - table `kbContent` (partition `pk`, sort `sk`): one partition per knowledge base, `pk = datasetKey(teamId, id)`.
 *   - a collection: `sk = c#<collectionId>` (CollectionRecord);
 *   - a chunk ("data" in FastGPT's words): `sk = d#<collectionId>#<chunkIndex, 8 digits>#<dataId>` (ChunkRecord), so a
 *     collection's data reads in chunk order with one Query;
 *   - index `byId` (partition `id`): finds a collection or a chunk from the id alone (FastGPT's detail, update and
 *     delete calls send only the id); the caller's team is checked on the item found (`teamId`), never trusted from
 *     the request.
 * - the vectors and the full-text postings live in tables of their own (`kbVectors`, `kbTerms`), written through
 *   ChunkIndexWriter and read by the search; a vector or a posting never makes a chunk readable on its own
 *   (ChunkReader decides).
 */

/** The partition of one knowledge base's content: the team first, so a key never crosses teams. */
export function datasetKey(teamId: string, datasetId: string): string {
  return `${teamId}#${datasetId}`;
}

export const COLLECTION_SK_PREFIX = 'c#';
export const CHUNK_SK_PREFIX = 'd#';

export function collectionSortKey(collectionId: string): string {
  return `${COLLECTION_SK_PREFIX}${collectionId}`;
}

/** The sort-key prefix of one collection's chunks. */
export function chunkSortKeyPrefix(collectionId: string): string {
  return `${CHUNK_SK_PREFIX}${collectionId}#`;
}

export function chunkSortKey(collectionId: string, chunkIndex: number, dataId: string): string {
  return `${chunkSortKeyPrefix(collectionId)}${String(chunkIndex).padStart(8, '0')}#${dataId}`;
}

/** FastGPT's collection types (packages/global/core/dataset/constants.ts, DatasetCollectionTypeEnum). */
export type CollectionType = 'folder' | 'virtual' | 'file' | 'link' | 'externalFile' | 'apiFile' | 'images';

/**
 * FastGPT's training modes (DatasetCollectionDataProcessModeEnum): `chunk` embeds chunks, `qa` writes Q&A first,
 * `backup` and `template` embed a CSV's rows as they are (collection/create/backup and …/create/template).
 */
export type TrainingType = 'chunk' | 'qa' | 'backup' | 'template';

/** The training modes whose source is a CSV of rows, each one chunk as it is (shared/kb/sources/backup.ts). */
export function trainsRows(trainingType: TrainingType | undefined): trainingType is 'backup' | 'template' {
  return trainingType === 'backup' || trainingType === 'template';
}

/** Where a collection is in its training (shown on the collection and counted by the training-queue call). */
export type TrainingStatus = 'ready' | 'queued' | 'training' | 'error';

/** The chunk settings FastGPT's create calls share (ApiCreateDatasetCollectionParams), as stored. */
export interface ChunkSettings {
  readonly trainingType: TrainingType;
  /** Target chunk length in tokens-as-characters, FastGPT's `chunkSize` (default 1,000 here; docs). */
  readonly chunkSize: number;
  /** A custom splitter that cuts before anything else (FastGPT's `chunkSplitter`). */
  readonly chunkSplitter?: string;
  /** Length of an index text (FastGPT's `indexSize`); defaults to the vector model's default. */
  readonly indexSize?: number;
  /** Prompt for `qa` (FastGPT's `qaPrompt`). */
  readonly qaPrompt?: string;
}

/** A collection as stored (`sk = c#<id>`). */
export interface CollectionRecord {
  readonly pk: string;
  readonly sk: string;
  readonly id: string;
  readonly teamId: string;
  readonly tmbId: string;
  readonly datasetId: string;
  readonly parentId: string | null;
  readonly type: CollectionType;
  readonly name: string;
  readonly tags?: readonly string[];
  readonly forbid?: boolean;
  readonly settings?: ChunkSettings;
  /** The source: a stored file (`fileId`, in the source bucket), a link (`rawLink`), or text kept as a file. */
  readonly fileId?: string;
  readonly rawLink?: string;
  readonly rawTextLength?: number;
  readonly hashRawText?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly status: TrainingStatus;
  /** Why training stopped, in words an operator can act on ("no channel serves text-embedding-3-small for group default"). */
  readonly error?: string;
  /** Chunks whose vector could not be made: searchable by full text only. */
  readonly failedChunks?: number;
  /**
   * The generation a reader shows: re-training writes the next generation's chunks unreadable, then moves this
   * number in one write, then deletes the old chunks, so a reader sees the old set or the new one, never a mix.
   */
  readonly generation: number;
  readonly createTime: string;
  readonly updateTime: string;
  /**
   * When a delete asked for it (ISO 8601): the collection is being deleted in the background (shared/kb/content-delete.ts)
   * and no reader shows it or its chunks any more.
   */
  readonly deleting?: string;
}

/** One index text of a chunk (FastGPT's DatasetDataIndexItemType): `default` indexes are made from q and a. */
export interface ChunkIndex {
  readonly type: 'default' | 'custom' | 'summary' | 'question' | 'image';
  readonly dataId: string;
  readonly text: string;
}

/** The text of a chunk's `default` index as FastGPT makes it: the question, or question and answer on two lines. */
export function defaultIndexText(q: string, a: string): string {
  return q && a ? `${q}\n${a}` : q || a;
}

/** FastGPT's default indexes: one of the question, or of question and answer when there is an answer. */
export function defaultIndexes(dataId: string, item: { q: string; a: string }): ChunkIndex[] {
  return [{ type: 'default', dataId, text: defaultIndexText(item.q, item.a) }];
}

/** A chunk as stored (`sk = d#...`). Its text is a customer's content: never logged. */
export interface ChunkRecord {
  readonly pk: string;
  readonly sk: string;
  readonly id: string;
  readonly teamId: string;
  readonly tmbId: string;
  readonly datasetId: string;
  readonly collectionId: string;
  readonly chunkIndex: number;
  readonly q: string;
  readonly a: string;
  readonly indexes: readonly ChunkIndex[];
  readonly generation: number;
  /**
   * Readable once its generation is its collection's. A pushed chunk gets it once its postings (and vectors, when the
   * embedding succeeded) are stored; a collection's training stores its chunks with it at once, in a generation that
   * becomes current only after their postings and vectors are stored.
   */
  readonly ready: boolean;
  /** True when the embedding failed for good: found by full text only. */
  readonly vectorMissing?: boolean;
  /**
   * Written by pushData or insertData, not by a training: readable whatever the collection's generation once ready,
   * and never removed by a training's flip (data pushed while a collection's first training runs stays, as in FastGPT).
   */
  readonly pushed?: boolean;
  readonly updateTime: string;
}

/** A chunk as the search shows it: readable (ready, current generation) and joined with its collection. */
export interface SearchableChunk {
  readonly id: string;
  readonly datasetId: string;
  readonly collectionId: string;
  readonly chunkIndex: number;
  readonly q: string;
  readonly a: string;
  readonly updateTime: string;
  /** The collection's name and source id (FastGPT's `sourceName`, `sourceId`: its fileId or rawLink). */
  readonly sourceName: string;
  readonly sourceId?: string;
}

/** Reads chunks for the search; leaves out what is not readable (not ready, old generation, deleted, forbidden). */
export interface ChunkReader {
  readSearchable(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<SearchableChunk[]>;
}

/** What the full-text index needs of one chunk. */
export interface FullTextDoc {
  readonly dataId: string;
  readonly collectionId: string;
  /** Every text the chunk is found by: q, a and its index texts. */
  readonly texts: readonly string[];
  /** The chunk's index in its collection: lets the search read it by key instead of by the `byId` index. */
  readonly chunkIndex?: number;
}

/** One vector of a chunk (one per index text). */
export interface ChunkVector {
  readonly dataId: string;
  readonly collectionId: string;
  /** Position of the index text among the chunk's indexes. */
  readonly indexNo: number;
  readonly vector: readonly number[];
  /** The chunk's index in its collection: lets the search read it by key instead of by the `byId` index. */
  readonly chunkIndex?: number;
}

/** How a batch of chunks joins the full-text index. */
export interface AddFullTextOptions {
  /** The chunks were never indexed (new ids), so nothing of theirs is looked for to remove first. */
  readonly fresh?: boolean;
  /**
   * Nothing is written until this settles, and nothing at all when it rejects: the chunks' own write, so their postings
   * are computed while it is in flight yet never stored before them (a retry finds what to remove by the chunks).
   */
  readonly after?: Promise<unknown>;
}

/** Writes the search's indexes; the training core calls it before a chunk can be read. */
export interface ChunkIndexWriter {
  addFullText(
    teamId: string,
    datasetId: string,
    docs: readonly FullTextDoc[],
    options?: AddFullTextOptions,
  ): Promise<void>;
  putVectors(teamId: string, datasetId: string, vectors: readonly ChunkVector[]): Promise<void>;
  /** Removes chunks' vectors and postings (postings may go lazily: a reader never shows a missing chunk). */
  removeChunks(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<void>;
  /** Removes everything of a knowledge base (its delete). */
  removeDataset(teamId: string, datasetId: string): Promise<void>;
}

/** Embeds texts with a model through the relay's routing core (KB_RELAY_GROUP); one vector per text, in order. */
export interface Embedder {
  embed(model: string, texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** An embedding that cannot be made: no channel, or every channel failed (message says which, without a key). */
export class EmbeddingUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmbeddingUnavailableError';
  }
}

/**
 * A collection with a source to read (a link or an uploaded file), created by the link and file calls and trained
 * like a text collection. The file's bytes are already stored under `fileId` in the source bucket.
 */
export interface NewSourceCollection {
  readonly teamId: string;
  readonly tmbId: string;
  readonly datasetId: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly type: 'link' | 'file';
  readonly rawLink?: string;
  readonly fileId?: string;
  readonly settings: ChunkSettings;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly tags?: readonly string[];
}

/** Reads a source to plain text (the training core calls it for link and file collections). */
export interface SourceReader {
  /** The text of a link or a stored file; throws SourceError with a message FastGPT's user can act on. */
  read(source: {
    readonly rawLink?: string;
    readonly fileId?: string;
    readonly name: string;
    /** The team whose files the reader may read (the training core always gives it). */
    readonly teamId?: string;
    /** FastGPT's `metadata.webPageSelector`: read only a page's matching elements. */
    readonly webPageSelector?: string;
  }): Promise<{ text: string }>;
}

export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Splits text into chunks as FastGPT does by default (shared/kb/chunking.ts). */
export type SplitText = (
  text: string,
  options: {
    readonly chunkSize: number;
    readonly chunkSplitter?: string;
    readonly overlapRatio?: number;
    /** Longest a piece that cannot be cut at a boundary may stay (FastGPT's `maxSize`, default 8,000). */
    readonly maxSize?: number;
  },
) => string[];

/** The source bucket (deployed: S3; local: a directory under the data dir): uploaded files and text kept as files. */
export interface SourceFileStore {
  put(file: {
    readonly teamId: string;
    readonly fileId: string;
    readonly name: string;
    readonly contentType: string;
    readonly bytes: Uint8Array;
  }): Promise<void>;
  /** The stored bytes, or undefined when there is none (also when it belongs to another team). */
  get(teamId: string, fileId: string): Promise<{ bytes: Uint8Array; name: string; contentType: string } | undefined>;
  delete(teamId: string, fileIds: readonly string[]): Promise<void>;
}
