import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { datasetKey } from '../contract.ts';
import { queryAll } from './dynamo-batch.ts';
import type { ChunkRef, ScoredRef, VectorSearch } from './types.ts';
import { VECTOR_BYTES_ATTRIBUTE, VECTOR_SK_PREFIX, VECTOR_VERSION_SK } from './vector-layout.ts';

/*
 * Embedding recall with no vector index (dynalite and DynamoDB Local have no SearchVectors): the same items, the same
 * contract, an exact cosine search. A knowledge base's vectors are loaded once into one float32 matrix per dimension,
 * each row normalised, and kept warm; every search first reads the partition's write counter (`m#version`, one
 * GetItem) and reloads only when it moved. 100,000 vectors of 256 dimensions take about 100 MB and a few tens of
 * milliseconds per search (docs/performance.md).
 */

interface Matrix {
  readonly rows: Float32Array;
  readonly refs: ChunkRef[];
}

interface Loaded {
  readonly version: number;
  readonly byDimension: Map<number, Matrix>;
  readonly values: number;
}

/** Float values the cache holds at most across knowledge bases (default 64 M, 256 MB); the oldest loaded go first. */
export const DEFAULT_CACHE_VALUES = 64 * 1024 * 1024;

function vectorOf(item: Record<string, unknown>): Float32Array | undefined {
  const bytes = item[VECTOR_BYTES_ATTRIBUTE];
  if (bytes instanceof Uint8Array) {
    // Copied out: the SDK's buffer may be a view on a larger one, at an offset float32 reads cannot start at.
    return new Float32Array(bytes.slice().buffer);
  }
  for (const [name, value] of Object.entries(item)) {
    if (/^v\d+$/u.test(name) && Array.isArray(value)) return Float32Array.from(value as number[]);
  }
  return undefined;
}

function normalise(v: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= scale;
  return true;
}

export class ExactVectorSearch implements VectorSearch {
  private readonly cache = new Map<string, Loaded>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly maxCachedValues = DEFAULT_CACHE_VALUES,
  ) {}

  async nearest(teamId: string, datasetId: string, vector: readonly number[], topK: number): Promise<ScoredRef[]> {
    if (topK <= 0 || vector.length === 0) return [];
    const loaded = await this.load(datasetKey(teamId, datasetId));
    const matrix = loaded.byDimension.get(vector.length);
    if (!matrix) return [];
    const query = Float32Array.from(vector);
    if (!normalise(query)) return [];
    return nearestRows(matrix, query, topK);
  }

  private async load(pk: string): Promise<Loaded> {
    const head = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { pk, sk: VECTOR_VERSION_SK }, ConsistentRead: true }),
    );
    const version = Number(head.Item?.w ?? 0);
    const warm = this.cache.get(pk);
    if (warm && warm.version === version) return warm;
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': VECTOR_SK_PREFIX },
    });
    const grouped = new Map<number, { vectors: Float32Array[]; refs: ChunkRef[] }>();
    for (const item of items) {
      const vector = vectorOf(item);
      if (!vector || !normalise(vector)) continue;
      const group = grouped.get(vector.length) ?? { vectors: [], refs: [] };
      grouped.set(vector.length, group);
      group.vectors.push(vector);
      group.refs.push({
        dataId: String(item.dataId),
        collectionId: String(item.collectionId),
        ...(typeof item.chunkIndex === 'number' ? { chunkIndex: item.chunkIndex } : {}),
      });
    }
    const byDimension = new Map<number, Matrix>();
    let values = 0;
    for (const [dimensions, group] of grouped) {
      const rows = new Float32Array(group.vectors.length * dimensions);
      for (const [i, v] of group.vectors.entries()) rows.set(v, i * dimensions);
      byDimension.set(dimensions, { rows, refs: group.refs });
      values += rows.length;
    }
    const loaded: Loaded = { version, byDimension, values };
    this.cache.delete(pk);
    this.cache.set(pk, loaded);
    this.evict();
    return loaded;
  }

  private evict(): void {
    let total = 0;
    for (const entry of this.cache.values()) total += entry.values;
    for (const [pk, entry] of this.cache) {
      if (total <= this.maxCachedValues || this.cache.size === 1) break;
      this.cache.delete(pk);
      total -= entry.values;
    }
  }
}

/** The `topK` chunks nearest to `query` (normalised), each chunk once (its nearest row). */
export function nearestRows(matrix: Matrix, query: Float32Array, topK: number): ScoredRef[] {
  const dimensions = query.length;
  const count = matrix.refs.length;
  const scores = new Float32Array(count);
  for (let row = 0; row < count; row++) {
    let dot = 0;
    const base = row * dimensions;
    for (let i = 0; i < dimensions; i++) dot += matrix.rows[base + i]! * query[i]!;
    scores[row] = dot;
  }
  // Rows by score, best first, looked at until topK distinct chunks are found: a partial selection would do, but a
  // sort of 100,000 indices is a few milliseconds, below the dot products' cost.
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => scores[b]! - scores[a]!);
  const seen = new Set<string>();
  const out: ScoredRef[] = [];
  for (const row of order) {
    const ref = matrix.refs[row]!;
    if (seen.has(ref.dataId)) continue;
    seen.add(ref.dataId);
    out.push({ ...ref, score: scores[row]! });
    if (out.length >= topK) break;
  }
  return out;
}
