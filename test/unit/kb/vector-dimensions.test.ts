import { describe, expect, it } from 'vitest';
import { vectorIndexDimensions } from '#shared/kb/search/vector-layout';
import { BUILT_IN_MODEL_CATALOG, modelItem, parseModelCatalog, vectorModelDimensions } from '#shared/model-catalog';

const catalogue = (vector: unknown) => ({
  vector,
  agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
  vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
});

describe('vector model dimensions', () => {
  it("knows the built-in models' lengths as their providers return them", () => {
    expect(vectorModelDimensions(BUILT_IN_MODEL_CATALOG)).toEqual([
      { model: 'text-embedding-3-small', dimensions: 1536 },
      { model: 'text-embedding-3-large', dimensions: 3072 },
      { model: 'text-embedding-ada-002', dimensions: 1536 },
      { model: 'bge-m3', dimensions: 1024 },
    ]);
  });

  it("takes a catalogue entry's `dimensions`, keeps it out of the model item FastGPT's pages read, and survives a round trip", () => {
    const parsed = parseModelCatalog(
      catalogue({ models: [{ model: 'my-embedder', dimensions: 768 }, 'mystery'], default: 'my-embedder' }),
    );
    expect(vectorModelDimensions(parsed)).toEqual([
      { model: 'my-embedder', dimensions: 768 },
      { model: 'mystery', dimensions: undefined },
    ]);
    expect(modelItem(parsed, 'vector', 'my-embedder')).not.toHaveProperty('dimensions');
    // The stack compiles the parsed catalogue into the bundles; parsed again at cold start, it keeps its lengths.
    expect(vectorModelDimensions(parseModelCatalog(JSON.stringify(parsed)))[0]).toEqual({
      model: 'my-embedder',
      dimensions: 768,
    });
  });

  it('refuses a length that is not a positive integer', () => {
    expect(() => parseModelCatalog(catalogue({ models: [{ model: 'm', dimensions: 0 }], default: 'm' }))).toThrow(
      /MODEL_CATALOG is invalid at vector.models/,
    );
  });

  it('counts distinct dimensions and refuses more than a table holds, naming them', () => {
    expect(vectorIndexDimensions([1536, 1024, 1536])).toEqual([1024, 1536]);
    // DynamoDB's quota: 5 vector indexes a table, 4,096 dimensions an index.
    expect(vectorIndexDimensions([256, 512, 768, 1024, 1536])).toEqual([256, 512, 768, 1024, 1536]);
    expect(() => vectorIndexDimensions([256, 512, 768, 1024, 1536, 3072])).toThrow(
      /6 distinct dimensions \(256, 512, 768, 1024, 1536, 3072\)/,
    );
    expect(() => vectorIndexDimensions([1536, 8192])).toThrow(
      /8192 dimensions, but a DynamoDB vector index takes at most 4096/,
    );
  });
});
