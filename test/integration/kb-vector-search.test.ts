import { DynamoDBClient, SearchVectorsCommand, type SearchVectorsCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, localDynamoClient } from '#infra/local/dynamo-engine';
import { newObjectId } from '#shared/ids';
import type { ChunkVector } from '#shared/kb/contract';
import type { VectorSearch } from '#shared/kb/search/types';
import { MAX_SEARCH_TOP_K } from '#shared/kb/search/vector-layout';
import { ExactVectorSearch } from '#shared/kb/search/vector-search-exact';
import { IndexVectorSearch } from '#shared/kb/search/vector-search-index';
import { DynamoVectorStore, type VectorForm } from '#shared/kb/search/vector-store';
import { TABLES } from '#shared/tables';
import { startTestEngine, TEST_ENGINE_NAME, type TestEngine, uniqueTableName } from '#test/support/dynamo-engine';

/*
 * One contract for both embedding-recall adapters (docs/knowledge-base-search.md, "Adapters"): the exact search over
 * the local engine's items, and SearchVectors, whose answers come from a stand-in that reads the same items the store
 * wrote and ranks them by cosine distance as DynamoDB's COSINE index does (no local engine has SearchVectors).
 */

let engine: TestEngine;
let raw: DynamoDBClient;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  engine = await startTestEngine();
  raw = localDynamoClient(engine);
  documents = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
});
afterAll(async () => {
  raw?.destroy();
  await engine?.close();
});

interface Harness {
  readonly store: DynamoVectorStore;
  readonly search: VectorSearch;
  readonly sent: SearchVectorsCommandInput[];
}

const cosineDistance = (a: readonly number[], b: readonly number[]) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return 1 - dot / Math.sqrt(na * nb);
};

/** SearchVectors as a COSINE vector index answers it, over the items of the table (its HASH condition honoured). */
function searchVectorsStandIn(tableName: string, sent: SearchVectorsCommandInput[]) {
  return async (input: SearchVectorsCommandInput) => {
    sent.push(input);
    // The service's range (shared/kb/search/vector-layout.ts MAX_SEARCH_TOP_K) and its refusal.
    const topK = input.TopK ?? 0;
    if (!Number.isInteger(topK) || topK < 1 || topK > MAX_SEARCH_TOP_K) {
      throw Object.assign(
        new Error(`Provided TopK value '${topK}' is out of valid range. The value must be between 1 and 100 inclusive`),
        { name: 'ValidationException' },
      );
    }
    const dimensions = Number(input.IndexName?.replace('vectors', ''));
    const pk = input.ExpressionAttributeValues?.[':pk']?.S;
    const items = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    const query = (input.SearchVector ?? []).map((v) => Number(v.N));
    const ranked = (items.Items ?? [])
      .filter((item) => Array.isArray(item[`v${dimensions}`]))
      .map((item) => ({ item, score: cosineDistance(item[`v${dimensions}`] as number[], query) }))
      .sort((a, b) => a.score - b.score)
      .slice(0, input.TopK);
    return {
      SearchResults: ranked.map(({ item, score }) => ({
        Score: score,
        Item: {
          dataId: { S: String(item.dataId) },
          collectionId: { S: String(item.collectionId) },
          ...(item.chunkIndex === undefined ? {} : { chunkIndex: { N: String(item.chunkIndex) } }),
        },
      })),
    };
  };
}

async function harness(form: VectorForm): Promise<Harness> {
  const tableName = uniqueTableName('kb-vectors');
  await ensureTable(raw, tableName, TABLES.kbVectors);
  const store = new DynamoVectorStore(documents, tableName, form);
  const sent: SearchVectorsCommandInput[] = [];
  if (form === 'exact') return { store, search: new ExactVectorSearch(documents, tableName), sent };
  const client = new DynamoDBClient({ region: 'us-east-1' });
  mockClient(client).on(SearchVectorsCommand).callsFake(searchVectorsStandIn(tableName, sent));
  return { store, search: new IndexVectorSearch(client, tableName), sent };
}

const vector = (dataId: string, indexNo: number, values: number[], chunkIndex = 0): ChunkVector => ({
  dataId,
  collectionId: 'c1',
  indexNo,
  vector: values,
  chunkIndex,
});

describe.each([
  [`exact search (${TEST_ENGINE_NAME})`, 'exact'],
  ['SearchVectors on the vector index', 'index'],
] as const)('embedding recall contract: %s', (_name, form) => {
  it('answers the nearest chunks first, with the cosine similarity and where each chunk is', async () => {
    const h = await harness(form);
    const [team, dataset] = [newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [
      vector('east', 0, [1, 0, 0], 3),
      vector('north', 0, [0, 1, 0], 4),
      vector('between', 0, [1, 1, 0], 5),
    ]);
    const found = await h.search.nearest(team, dataset, [1, 0.1, 0], 3);
    expect(found.map((f) => f.dataId)).toEqual(['east', 'between', 'north']);
    expect(found[0]).toMatchObject({ collectionId: 'c1', chunkIndex: 3 });
    expect(found[0]!.score).toBeCloseTo(1 / Math.sqrt(1.01), 5);
    expect(found[2]!.score).toBeCloseTo(0.1 / Math.sqrt(1.01), 5);
  });

  it('answers each chunk once, by its nearest index text, and at most topK chunks', async () => {
    const h = await harness(form);
    const [team, dataset] = [newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [
      vector('a', 0, [0, 1, 0]),
      vector('a', 1, [1, 0, 0]),
      vector('b', 0, [0.9, 0.1, 0]),
      vector('c', 0, [0, 0, 1]),
    ]);
    const found = await h.search.nearest(team, dataset, [1, 0, 0], 2);
    expect(found.map((f) => f.dataId)).toEqual(['a', 'b']);
    expect(found[0]!.score).toBeCloseTo(1, 5);
  });

  it("never answers another knowledge base's or team's vectors", async () => {
    const h = await harness(form);
    const [team, dataset, otherDataset] = [newObjectId(), newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [vector('mine', 0, [0, 1, 0])]);
    await h.store.put(team, otherDataset, [vector('theirs', 0, [1, 0, 0])]);
    await h.store.put(newObjectId(), dataset, [vector('other-team', 0, [1, 0, 0])]);
    expect((await h.search.nearest(team, dataset, [1, 0, 0], 10)).map((f) => f.dataId)).toEqual(['mine']);
  });

  it('forgets removed chunks and a removed knowledge base', async () => {
    const h = await harness(form);
    const [team, dataset] = [newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [vector('a', 0, [1, 0, 0]), vector('a', 1, [1, 1, 0]), vector('b', 0, [0, 1, 0])]);
    expect(await h.search.nearest(team, dataset, [1, 0, 0], 10)).toHaveLength(2);
    await h.store.remove(team, dataset, ['a']);
    expect((await h.search.nearest(team, dataset, [1, 0, 0], 10)).map((f) => f.dataId)).toEqual(['b']);
    await h.store.removeDataset(team, dataset);
    expect(await h.search.nearest(team, dataset, [1, 0, 0], 10)).toEqual([]);
  });

  it('answers nothing for an empty knowledge base', async () => {
    const h = await harness(form);
    expect(await h.search.nearest(newObjectId(), newObjectId(), [1, 0, 0], 10)).toEqual([]);
  });
});

describe('SearchVectors adapter', () => {
  it('sends one SearchVectors on the index of the query dimension, the knowledge base as its HASH', async () => {
    const h = await harness('index');
    const [team, dataset] = [newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [vector('a', 0, [0.5, 0.25, 1])]);
    await h.search.nearest(team, dataset, [0.5, -0.25, 1], 7);
    expect(h.sent).toEqual([
      {
        TableName: expect.stringMatching(/^kb-vectors-/),
        IndexName: 'vectors3',
        SearchVector: [{ N: '0.5' }, { N: '-0.25' }, { N: '1' }],
        SearchConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': { S: `${team}#${dataset}` } },
        ProjectionExpression: 'dataId, collectionId, chunkIndex',
        TopK: 14,
      },
    ]);
  });

  it("asks for at most SearchVectors' 100 results, however many chunks a recall wants", async () => {
    const h = await harness('index');
    const [team, dataset] = [newObjectId(), newObjectId()];
    await h.store.put(team, dataset, [vector('a', 0, [0.5, 0.25, 1]), vector('b', 0, [1, 0, 0])]);
    const found = await h.search.nearest(team, dataset, [0.5, 0.25, 1], 100);
    expect(h.sent.map((input) => input.TopK)).toEqual([MAX_SEARCH_TOP_K]);
    expect(found.map((r) => r.dataId)).toEqual(['a', 'b']);
  });

  it('refuses a dimension the stack made no index for, naming it', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1' });
    const mock = mockClient(client);
    const search = new IndexVectorSearch(client, 'table', new Set([1536]));
    await expect(search.nearest('t', 'd', [1, 2, 3], 5)).rejects.toThrow(/3-dimension/);
    expect(mock.commandCalls(SearchVectorsCommand)).toHaveLength(0);
  });

  it('writes vectors as number lists under the attribute of their dimension', async () => {
    const tableName = uniqueTableName('kb-vectors');
    await ensureTable(raw, tableName, TABLES.kbVectors);
    await new DynamoVectorStore(documents, tableName, 'index').put('t', 'd', [vector('a', 2, [1, 2])]);
    const items = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 't#d' },
      }),
    );
    expect(items.Items).toContainEqual({
      pk: 't#d',
      sk: 'v#a#2',
      dataId: 'a',
      collectionId: 'c1',
      chunkIndex: 0,
      v2: [1, 2],
    });
  });
});
