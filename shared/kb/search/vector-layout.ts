/*
 * How vectors sit in `kbVectors` (docs/knowledge-base-search.md, "Vectors"), shared by the writer, both searches and
 * the stack. One partition per knowledge base (`pk = datasetKey`, the vector indexes' HASH), one item per index text:
 * `sk = v#<dataId>#<indexNo>`, with `dataId`, `collectionId`, `chunkIndex` and the vector. A vector index has one
 * dimension, so each dimension has its attribute (`v1536`) and its index (`vectors1536`); the exact search reads the
 * same items (`vb`, the vector as float32 bytes, when written for it). `m#version` counts writes, so a warm cache of
 * the exact search knows with one GetItem whether it is still current.
 */

/** Sort-key prefix of the vector items. */
export const VECTOR_SK_PREFIX = 'v#';
/** The item counting a knowledge base's vector writes. */
export const VECTOR_VERSION_SK = 'm#version';
/** The attribute holding a vector as float32 bytes (the exact search's form). */
export const VECTOR_BYTES_ATTRIBUTE = 'vb';
/** Attributes a search reads of a vector item besides the vector (the vector indexes project these). */
export const VECTOR_REF_ATTRIBUTES = ['dataId', 'collectionId', 'chunkIndex'] as const;

/*
 * DynamoDB's vector index quotas: Amazon DynamoDB Developer Guide, "Service, account, and table quotas in Amazon
 * DynamoDB", section "Vector indexes" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-vector-indexes),
 * to which the guide's "Requirements and limitations" of vector search refers for them. The figures as AWS's own agent
 * toolkit quotes that page (aws/agent-toolkit-for-aws, skills/specialized-skills/database-skills/amazon-dynamodb/
 * references/vector-search.md at 63a7d9cc81cfa53290e28eb80b3dac1d83435471, with the service's error for a TopK of 101:
 * "The value must be between 1 and 100 inclusive"); docs/knowledge-base-search.md, "Vectors".
 */

/** Vector indexes one table may hold (5). */
export const MAX_VECTOR_INDEXES_PER_TABLE = 5;
/** The most dimensions a vector index takes (4,096). */
export const MAX_VECTOR_DIMENSIONS = 4096;
/** The largest `TopK` one SearchVectors takes (1 to 100). */
export const MAX_SEARCH_TOP_K = 100;

export function vectorSortKey(dataId: string, indexNo: number): string {
  return `${VECTOR_SK_PREFIX}${dataId}#${indexNo}`;
}

/** The attribute holding vectors of `dimensions` for the vector index. */
export function vectorAttribute(dimensions: number): string {
  return `v${dimensions}`;
}

/** The vector index of vectors of `dimensions`. */
export function vectorIndexName(dimensions: number): string {
  return `vectors${dimensions}`;
}

/** The distinct dimensions given, sorted, or a clear error when a table cannot hold an index for each. */
export function vectorIndexDimensions(dimensions: Iterable<number>): number[] {
  const distinct = [...new Set(dimensions)].sort((a, b) => a - b);
  const tooLong = distinct.filter((d) => d > MAX_VECTOR_DIMENSIONS);
  if (tooLong.length > 0) {
    throw new Error(
      `The model catalogue gives vector models of ${tooLong.join(', ')} dimensions, but a DynamoDB vector index takes at ` +
        `most ${MAX_VECTOR_DIMENSIONS}: use a model (or its \`dimensions\` option) of at most ${MAX_VECTOR_DIMENSIONS} ` +
        '(docs/knowledge-base-search.md, "Vectors")',
    );
  }
  if (distinct.length > MAX_VECTOR_INDEXES_PER_TABLE) {
    throw new Error(
      `The model catalogue's vector models have ${distinct.length} distinct dimensions (${distinct.join(', ')}), ` +
        `but the vectors table holds at most ${MAX_VECTOR_INDEXES_PER_TABLE} vector indexes, one per dimension: ` +
        'use fewer distinct dimensions (docs/knowledge-base-search.md, "Vectors")',
    );
  }
  return distinct;
}
