import { afterAll, describe, expect, it } from 'vitest';
import { ENV } from '#shared/config';
import { MAX_VECTOR_DIMENSIONS, MAX_VECTOR_INDEXES_PER_TABLE } from '#shared/kb/search/vector-layout';
import { logicalId, permissionsOf, removeTempDirs, synthStack } from './synth.ts';

/*
 * The search's part of the stack (infra/kb-search.ts): its tables, one vector index per distinct dimension of the
 * catalogue, and a search function that may only read.
 */

afterAll(removeTempDirs);

type Json = Record<string, unknown>;
const { stack, template } = synthStack();
const tableId = (name: keyof typeof stack.tables) => logicalId(stack, stack.tables[name].table);
const props = (logical: string) => template.toJSON().Resources[logical].Properties as Json;
const arn = (logical: string) => JSON.stringify({ 'Fn::GetAtt': [logical, 'Arn'] });

describe('search tables', () => {
  it('makes one COSINE vector index per distinct dimension of the built-in catalogue, the knowledge base as HASH', () => {
    const indexes = props(tableId('kbVectors')).VectorIndexes as Json[];
    expect(indexes).toEqual(
      [1024, 1536, 3072].map((d) => ({
        IndexName: `vectors${d}`,
        Dimensions: d,
        DistanceFunction: 'COSINE',
        VectorAttribute: { AttributeName: `v${d}` },
        SearchSchema: [{ AttributeName: 'pk', SearchSchemaElementType: 'HASH' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['dataId', 'collectionId', 'chunkIndex'] },
      })),
    );
  });

  it('keeps the tables on demand, with point-in-time recovery and encryption', () => {
    for (const name of ['kbContent', 'kbVectors', 'kbTerms'] as const) {
      expect(props(tableId(name))).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
    }
  });

  it('makes an index for a catalogue model that gives its dimensions, and none for a model with no known length', () => {
    const custom = synthStack({
      modelCatalog: {
        vector: { models: [{ model: 'my-embedder', dimensions: 768 }, 'mystery-embedder'], default: 'my-embedder' },
        agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
        vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
      },
    });
    const resources = custom.template.toJSON().Resources;
    const indexes = resources[logicalId(custom.stack, custom.stack.tables.kbVectors.table)].Properties.VectorIndexes;
    expect(indexes.map((i: Json) => i.IndexName)).toEqual(['vectors768']);
  });

  it('refuses at synth a catalogue with more distinct dimensions than a table holds vector indexes', () => {
    const models = Array.from({ length: MAX_VECTOR_INDEXES_PER_TABLE + 1 }, (_, i) => ({
      model: `embedder-${i}`,
      dimensions: 256 * (i + 1),
    }));
    expect(() =>
      synthStack({
        modelCatalog: {
          vector: { models, default: 'embedder-0' },
          agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
          vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
        },
      }),
    ).toThrow(
      new RegExp(
        `${MAX_VECTOR_INDEXES_PER_TABLE + 1} distinct dimensions .* at most ${MAX_VECTOR_INDEXES_PER_TABLE} vector`,
      ),
    );
  });

  it('refuses at synth a vector model longer than a vector index takes', () => {
    expect(() =>
      synthStack({
        modelCatalog: {
          vector: {
            models: [{ model: 'huge-embedder', dimensions: MAX_VECTOR_DIMENSIONS + 1 }],
            default: 'huge-embedder',
          },
          agent: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
          vlm: { models: ['gpt-4o-mini'], default: 'gpt-4o-mini' },
        },
      }),
    ).toThrow(/4097 dimensions, but a DynamoDB vector index takes at most 4096/);
  });
});

describe('search-test function', () => {
  const role = () => logicalId(stack, stack.functions['search-test'].role);

  it('may read the knowledge base, chunks by key or by id, term postings, and search the vector indexes, nothing more', () => {
    // The knowledge base's own tables; the relay's (the question's embedding) are the next test's.
    const relayTables = (['channels', 'relayState', 'usage'] as const).map(tableId);
    const dynamo = [...permissionsOf(template, role())]
      .filter(([action]) => action.startsWith('dynamodb:'))
      .map(([action, resources]): [string, Set<string>] => [
        action,
        new Set([...resources].filter((r) => !relayTables.some((t) => r.includes(t)))),
      ])
      .filter(([, resources]) => resources.size > 0);
    const vectors = tableId('kbVectors');
    expect(new Map(dynamo)).toEqual(
      new Map([
        // The knowledge base; the full-text index's `n` item (the df sketch).
        ['dynamodb:GetItem', new Set([arn(tableId('datasets')), arn(tableId('kbTerms'))])],
        ['dynamodb:BatchGetItem', new Set([arn(tableId('kbContent')), arn(tableId('kbTerms'))])],
        [
          'dynamodb:Query',
          new Set([
            JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId('kbContent'), 'Arn'] }, '/index/byId']] }),
            arn(tableId('kbTerms')),
          ]),
        ],
        [
          'dynamodb:SearchVectors',
          new Set(
            [1024, 1536, 3072].map((d) =>
              JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [vectors, 'Arn'] }, `/index/vectors${d}`]] }),
            ),
          ),
        ],
      ]),
    );
  });

  it("embeds the question through the relay's routing core, and writes no table of the knowledge base", () => {
    const found = permissionsOf(template, role());
    // The relay's core as the training uses it (infra/kb.ts, useRelayCore): the channels, health, one usage record.
    expect(found.get('dynamodb:Scan')).toEqual(new Set([arn(tableId('channels'))]));
    expect(found.get('dynamodb:BatchWriteItem')).toEqual(new Set([arn(tableId('usage'))]));
    expect(found.get('dynamodb:PutItem')).toBeUndefined();
    const writes = [...found].filter(([a]) => a.startsWith('dynamodb:') && /Put|Update|Delete|Write/.test(a));
    const kbTables = (['datasets', 'kbContent', 'kbVectors', 'kbTerms'] as const).map(tableId);
    const kbWrites = writes.flatMap(([, r]) => [...r]).filter((r) => kbTables.some((t) => r.includes(t)));
    expect(kbWrites).toEqual([]);
  });

  it('searches with the vector indexes deployed, and knows every table it reads', () => {
    const fn = props(logicalId(stack, stack.functions['search-test'].function));
    const variables = (fn.Environment as { Variables: Json }).Variables;
    expect(variables[ENV.kbVectorSearch]).toBe('index');
    expect(variables[ENV.kbVectorDimensions]).toBe('1024,1536,3072');
    for (const name of [ENV.datasetsTable, ENV.kbContentTable, ENV.kbVectorsTable, ENV.kbTermsTable]) {
      expect(variables[name]).toEqual({ Ref: expect.any(String) });
    }
  });
});
