import type { SearchableChunk } from '../contract.ts';

/** Where a chunk is: enough to read it with one GetItem when the chunk index is known (shared/kb/chunk-reader.ts). */
export interface ChunkRef {
  readonly dataId: string;
  readonly collectionId: string;
  /** Known when the writer was given it (FullTextDoc / ChunkVector `chunkIndex`); else the reader looks the id up. */
  readonly chunkIndex?: number;
}

/** A chunk a recall found, with its score in that recall (higher is nearer). */
export interface ScoredRef extends ChunkRef {
  readonly score: number;
}

/** Reads chunks for the search from where the indexes point, leaving out what is not readable. */
export interface ChunkRefReader {
  readRefs(teamId: string, datasetId: string, refs: readonly ChunkRef[]): Promise<SearchableChunk[]>;
}

/** The nearest vectors of a knowledge base (deployed: SearchVectors; locally: an exact search). */
export interface VectorSearch {
  /** Up to `topK` vectors by cosine similarity, nearest first; one entry per chunk (its best index text). */
  nearest(teamId: string, datasetId: string, vector: readonly number[], topK: number): Promise<ScoredRef[]>;
}

/** The full-text side of the search: BM25 over the knowledge base's terms. */
export interface FullTextSearch {
  /** Up to `limit` chunks by BM25 score, best first. */
  search(teamId: string, datasetId: string, query: string, limit: number): Promise<ScoredRef[]>;
}

/** FastGPT's score kinds (packages/global/core/dataset/constants.ts, SearchScoreTypeEnum). */
export type ScoreType = 'embedding' | 'fullText' | 'reRank' | 'rrf';

export interface SearchScore {
  type: ScoreType;
  value: number;
  index: number;
}

/** One item of searchTest's `list`, as FastGPT answers it (SearchDataResponseItemType). */
export interface SearchResultItem extends SearchableChunk {
  score: SearchScore[];
}

/** A rerank model (FastGPT's reRankRecall), reached through the relay's routing core (shared/kb/relay-models.ts). */
export interface Reranker {
  /** Relevance of each document to the query, as `{id, score}` best first; may leave documents out. */
  rerank(
    model: string,
    query: string,
    documents: readonly { id: string; text: string }[],
    signal?: AbortSignal,
  ): Promise<{ id: string; score: number }[]>;
}

/** Writes more queries from one (FastGPT's query extension), through a chat model. */
export interface QueryExtender {
  extend(model: string, query: string, background: string): Promise<string[]>;
}
