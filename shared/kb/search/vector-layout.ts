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

/**
 * Vector indexes one table may hold. AWS's quota page (DynamoDB, "Vector indexes") gives the figure; this one is
 * deliberately low so a catalogue that passes here is within it. Raise it with AWS's published quota.
 */
export const MAX_VECTOR_INDEXES_PER_TABLE = 4;

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
  if (distinct.length > MAX_VECTOR_INDEXES_PER_TABLE) {
    throw new Error(
      `The model catalogue's vector models have ${distinct.length} distinct dimensions (${distinct.join(', ')}), ` +
        `but the vectors table holds at most ${MAX_VECTOR_INDEXES_PER_TABLE} vector indexes, one per dimension: ` +
        'use fewer distinct dimensions (docs/knowledge-base-search.md, "Vectors")',
    );
  }
  return distinct;
}
