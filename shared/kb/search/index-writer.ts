import type { AddFullTextOptions, ChunkIndexWriter, ChunkVector, FullTextDoc } from '../contract.ts';
import type { DynamoFullTextIndex } from './full-text-index.ts';
import type { DynamoVectorStore } from './vector-store.ts';

/**
 * The search's indexes as the training core writes them (shared/kb/contract.ts, ChunkIndexWriter): vectors into
 * `kbVectors`, postings into `kbTerms`. Removal cuts a chunk's postings out of their blocks and corrects the counters.
 */
export class DynamoChunkIndexWriter implements ChunkIndexWriter {
  constructor(
    private readonly vectors: DynamoVectorStore,
    private readonly fullText: DynamoFullTextIndex,
  ) {}

  addFullText(
    teamId: string,
    datasetId: string,
    docs: readonly FullTextDoc[],
    options?: AddFullTextOptions,
  ): Promise<void> {
    return this.fullText.add(teamId, datasetId, docs, options);
  }

  putVectors(teamId: string, datasetId: string, vectors: readonly ChunkVector[]): Promise<void> {
    return this.vectors.put(teamId, datasetId, vectors);
  }

  async removeChunks(teamId: string, datasetId: string, dataIds: readonly string[]): Promise<void> {
    await Promise.all([
      this.vectors.remove(teamId, datasetId, dataIds),
      this.fullText.remove(teamId, datasetId, dataIds),
    ]);
  }

  async removeDataset(teamId: string, datasetId: string): Promise<void> {
    await Promise.all([this.vectors.removeDataset(teamId, datasetId), this.fullText.removeDataset(teamId, datasetId)]);
  }
}
