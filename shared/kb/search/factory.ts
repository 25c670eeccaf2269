import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoFullTextIndex } from './full-text-index.ts';
import { DynamoChunkIndexWriter } from './index-writer.ts';
import type { VectorSearch } from './types.ts';
import { ExactVectorSearch } from './vector-search-exact.ts';
import { IndexVectorSearch } from './vector-search-index.ts';
import { DynamoVectorStore } from './vector-store.ts';

/** `index`: DynamoDB's vector indexes (deployed); `exact`: the exact search over the same items (local engines). */
export type VectorSearchMode = 'index' | 'exact';

export interface SearchTables {
  readonly vectors: string;
  readonly terms: string;
}

/** The ChunkIndexWriter for a mode (the training core's side); vectors are written in the form that mode reads. */
export function createChunkIndexWriter(
  client: DynamoDBDocumentClient,
  tables: SearchTables,
  mode: VectorSearchMode,
): DynamoChunkIndexWriter {
  return new DynamoChunkIndexWriter(
    new DynamoVectorStore(client, tables.vectors, mode),
    new DynamoFullTextIndex(client, tables.terms),
  );
}

/** The vector search for a mode: the product's code path is the same, only this adapter changes. */
export function createVectorSearch(
  clients: { readonly document: DynamoDBDocumentClient; readonly raw: Pick<DynamoDBClient, 'send'> },
  tables: SearchTables,
  mode: VectorSearchMode,
  /** The dimensions that have a vector index (`index` mode); another one is refused with a clear error. */
  dimensions?: ReadonlySet<number>,
): VectorSearch {
  return mode === 'index'
    ? new IndexVectorSearch(clients.raw, tables.vectors, dimensions)
    : new ExactVectorSearch(clients.document, tables.vectors);
}
