import { type DynamoDBClient, SearchVectorsCommand } from '@aws-sdk/client-dynamodb';
import { datasetKey } from '../contract.ts';
import type { ScoredRef, VectorSearch } from './types.ts';
import { MAX_SEARCH_TOP_K, VECTOR_REF_ATTRIBUTES, vectorIndexName } from './vector-layout.ts';

/**
 * Embedding recall on DynamoDB's vector index (deployed): one SearchVectors on the index of the query's dimension, its
 * HASH the knowledge base's partition, so a search never crosses knowledge bases or teams. The index's COSINE score is
 * a distance (0 identical, 2 opposite): the similarity FastGPT shows is 1 - distance.
 */
export class IndexVectorSearch implements VectorSearch {
  constructor(
    private readonly client: Pick<DynamoDBClient, 'send'>,
    private readonly tableName: string,
    /** The dimensions the stack made an index for (infra/kb-search.ts); another one is a clear error. */
    private readonly dimensions: ReadonlySet<number> | undefined = undefined,
  ) {}

  async nearest(teamId: string, datasetId: string, vector: readonly number[], topK: number): Promise<ScoredRef[]> {
    if (topK <= 0) return [];
    if (this.dimensions && !this.dimensions.has(vector.length)) {
      throw new Error(
        `No vector index holds ${vector.length}-dimension vectors; the stack makes one per dimension of the model catalogue`,
      );
    }
    const out = await this.client.send(
      new SearchVectorsCommand({
        TableName: this.tableName,
        IndexName: vectorIndexName(vector.length),
        SearchVector: vector.map((n) => ({ N: String(n) })),
        SearchConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': { S: datasetKey(teamId, datasetId) } },
        ProjectionExpression: VECTOR_REF_ATTRIBUTES.join(', '),
        // Several index texts of one chunk may come back: ask for more, keep each chunk's nearest; SearchVectors takes
        // at most 100, so a recall of 100 chunks gets 100 index texts (fewer chunks when a chunk has several).
        TopK: Math.min(topK * 2, MAX_SEARCH_TOP_K),
      }),
    );
    const best = new Map<string, ScoredRef>();
    for (const result of out.SearchResults ?? []) {
      const item = result.Item ?? {};
      const dataId = item.dataId?.S;
      const collectionId = item.collectionId?.S;
      const chunkIndex = item.chunkIndex?.N === undefined ? undefined : Number(item.chunkIndex.N);
      if (!dataId || !collectionId || best.has(dataId)) continue;
      best.set(dataId, {
        dataId,
        collectionId,
        ...(chunkIndex !== undefined && Number.isInteger(chunkIndex) ? { chunkIndex } : {}),
        score: 1 - (result.Score ?? 2),
      });
    }
    return [...best.values()].sort((a, b) => b.score - a.score).slice(0, topK);
  }
}
